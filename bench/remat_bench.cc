// `lazax bench remat` (remat_bench.h).
#include "remat_bench.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lazax/autodiff/function_ad.h"
#include "lazax/autodiff/remat.h"
#include "lazax/lazax.h"
#include "lazax/runtime/context.h"

namespace lazax::bench {
namespace {

// FLOPs of the dot_generals of `f` (2 per multiply-add), sub-functions not included.
double dot_flops(const Function& f) {
  double flops = 0;
  for (const Node& n : f.nodes()) {
    if (n.op != OpCode::dot_general) continue;
    const auto& a = std::get<DotGeneralAttrs>(n.attrs);
    double k = 1;
    const Shape& lhs = f.type(n.operands[0]).shape;
    for (int64_t d : a.lhs_contracting) k *= static_cast<double>(lhs[static_cast<size_t>(d)]);
    flops += 2 * k * static_cast<double>(n.outputs[0].numel());
  }
  return flops;
}

struct Split {
  int64_t saved_bytes = 0;  // residuals kept in device memory, one block
  int64_t host_bytes = 0;   // residuals offloaded to host memory
  double bwd_flops = 0;
};

Split block_split(const nn::Llama& model, const Tensor& h) {
  std::shared_ptr<detail::PureEntry> e = model.block_entry(h);
  const autodiff::VjpPrograms& p = detail::split_for_every_input(*e);
  Split s;
  for (int k = 0; k < p.num_residuals; ++k) {
    const auto bytes = static_cast<int64_t>(
        p.fwd->type(p.fwd->results()[static_cast<size_t>(p.num_outputs) + static_cast<size_t>(k)])
            .bytes());
    (p.offloaded[static_cast<size_t>(k)] ? s.host_bytes : s.saved_bytes) += bytes;
  }
  // (The inputs the backward reads are the layer's weights and its input: kept by the model
  // and the previous layer anyway, so not counted as saved.)
  s.bwd_flops = dot_flops(*p.bwd);
  return s;
}

}  // namespace

nlohmann::json run_remat_bench(const RematBenchOptions& options) {
  nn::LlamaConfig c = nn::LlamaConfig::tiny();
  if (options.layers > 0) c.n_layers = options.layers;
  std::vector<std::string> names = {"none",
                                    "everything_saveable",
                                    "dots_saveable",
                                    "dots_with_no_batch_dims_saveable",
                                    "offload_dot_with_no_batch_dims",
                                    "nothing_saveable",
                                    "save_and_offload_only_these_names",
                                    "memory_budget"};
  nlohmann::json rows = nlohmann::json::array();
  double base_flops = -1;
  int64_t budget = -1;  // per block: 3/4 of what everything_saveable keeps
  for (std::string name : names) {
    if (name == "memory_budget") name = "memory_budget(" + std::to_string(budget) + ")";
    // (Compiled programs keep pools of the buffers they freed: dropped, so that the figures of
    // one policy do not include another's.)
    lazax::sync();
    Context::get().cache().clear();
    manual_seed(42);
    nn::Llama model(c);
    if (name == "save_and_offload_only_these_names") {
      // The blocks' named activations (llama.h): the attention output kept on the device, the
      // projections and the MLP's hidden values offloaded to host memory.
      RematPolicy p = policies::save_and_offload_only_these_names(
          {"attn_out"}, {"q", "k", "v", "mlp_hidden", "mlp_out"});
      name = p.name;
      model.set_remat(std::make_shared<const RematPolicy>(std::move(p)));
    } else if (name != "none") {
      model.set_remat(std::make_shared<const RematPolicy>(policies::by_name(name)));
    }
    optim::SGD sgd(model.named_parameters(), optim::SGDOptions{.lr = 0.01});
    std::mt19937 rng(7);
    std::vector<int64_t> tok(static_cast<size_t>(c.batch * (c.seq + 1)));
    double best = 1e30;
    int64_t peak = 0, planned = 0;
    for (int s = 0; s <= options.steps; ++s) {
      for (auto& t : tok) t = static_cast<int64_t>(rng() % 256);
      lazax::sync();
      reset_peak_bytes();
      const int64_t live_before = memory_stats().live_bytes;
      auto t0 = std::chrono::steady_clock::now();
      Tensor loss = model.forward(from_vector<int64_t>(tok, {c.batch, c.seq + 1}),
                                  nn::LayerMode::assume_pure);
      loss.backward();
      sgd.step();
      sgd.zero_grad();
      lazax::sync();
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (s > 0) best = std::min(best, ms);
      // (The step's own peak: what was live before it, weights and pools, not counted.)
      if (s > 0) peak = std::max(peak, memory_stats().peak_bytes - live_before);
      planned = Context::get().cache().max_planned_peak_bytes();
    }
    Tensor h = zeros({c.batch, c.seq, c.dim});
    Split split = block_split(model, h);
    const double layers = static_cast<double>(c.n_layers);
    if (name == "everything_saveable") {
      base_flops = split.bwd_flops;
      budget = split.saved_bytes * 3 / 4;
    }
    rows.push_back({{"policy", name},
                    {"device_bytes", split.saved_bytes * c.n_layers},
                    {"host_bytes", split.host_bytes * c.n_layers},
                    {"bwd_matmul_flops", split.bwd_flops * layers},
                    {"step_ms", best},
                    {"peak_bytes", planned},
                    {"measured_peak_bytes", peak}});
    if (model.block_entry(h)->remat && model.block_entry(h)->remat->budget_bytes >= 0)
      rows.back()["budget_bytes"] = budget * c.n_layers;
  }
  for (auto& r : rows)  // recomputation: the backward's matmul FLOPs beyond everything_saveable's
    r["recompute_flops"] = std::max(
        0.0, r["bwd_matmul_flops"].get<double>() - base_flops * static_cast<double>(c.n_layers));
  return rows;
}

}  // namespace lazax::bench
