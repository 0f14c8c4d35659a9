// `lazax bench dist`: data-parallel training side by side, from the same weights on the same
// batches, 1 thread per process: `lazax train` on 1 process, `mpirun -np 2 lazax train` with
// --shard none, optimizer and full, and PyTorch's DistributedDataParallel over gloo on 2
// processes (bench/torch_ddp.py). Each configuration runs --repeats times, in turns (a change in
// the load of a shared machine falls on all alike); the medians are reported.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "batches.h"
#include "cli.h"
#include "corpus.h"
#include "lazax/core/error.h"
#include "lazax/io/npy.h"
#include "lazax/io/safetensors.h"
#include "subprocess.h"
#include "train.h"

namespace lazax::cli {
namespace {

namespace fs = std::filesystem;
using bench::shell_quote;

struct BenchDistOptions {
  TrainOptions train;
  int64_t warmup = 2, repeats = 3;
  bool json = false, peers = true;
};

nlohmann::json run_json(const std::string& what, const std::string& cmd, const fs::path& file) {
  auto [code, out] = bench::run_command(cmd + " 2>&1");
  std::string line = file.empty() ? bench::last_line(out) : "";
  if (code != 0 || (file.empty() && (line.empty() || line[0] != '{'))) {
    throw Error("[bench dist] " + what + " failed (exit " + std::to_string(code) +
                "): " + out.substr(out.size() > 2000 ? out.size() - 2000 : 0));
  }
  if (file.empty()) return nlohmann::json::parse(line);
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The weights and batches every run starts from, written into `dir`.
void write_inputs(const fs::path& dir, const nn::LlamaConfig& c, uint64_t seed, int64_t steps) {
  manual_seed(seed);
  {
    nn::Llama model(c);
    SafetensorsFile f;
    for (const auto& [name, t] : model.named_parameters())
      f.tensors.emplace_back(name, t.literal());
    write_safetensors((dir / "init.safetensors").string(), f);
  }
  std::string text;
  try {
    text = train::read_fortunes();
  } catch (const IOError&) {
    for (int i = 0; i < 1 << 16; ++i) text += static_cast<char>('a' + i * 7919 % 26);
  }
  train::CorpusSampler sampler(text, c.batch, c.seq, 1);
  std::vector<int64_t> ids;
  for (int64_t s = 0; s < steps; ++s)
    for (int32_t v : sampler.next()) ids.push_back(v);
  write_npy((dir / "batches.npy").string(),
            Literal::from_vector<int64_t>(ids, Shape{steps, c.batch, c.seq + 1}));
}

void bench_dist(const BenchDistOptions& o) {
  nn::LlamaConfig c = model_config(o.train);
  if (c.batch % 2 != 0)
    throw ValueError("[bench dist] --batch " + std::to_string(c.batch) + " must split over 2");
  std::string tmpl = (fs::temp_directory_path() / "lazax-bench-dist-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw IOError("[bench dist] cannot create " + tmpl);
  const fs::path dir = tmpl;
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};
  const int64_t total = o.warmup + o.train.steps;
  write_inputs(dir, c, o.train.seed, total);

  auto n = [](int64_t v) { return std::to_string(v); };
  const std::string init = shell_quote((dir / "init.safetensors").string());
  const std::string batches = shell_quote((dir / "batches.npy").string());
  const std::string train = shell_quote(sibling_tool("lazax")) + " train --dim " + n(c.dim) +
                            " --layers " + n(c.n_layers) + " --heads " + n(c.n_heads) +
                            " --hidden " + n(c.hidden) + " --init " + init + " --batches " +
                            batches + " --steps " + n(total) +
                            " --schedule constant --clip 0 --lr 1e-3 --mode " + o.train.mode +
                            " --threads 1 --svg '' --sample 0 --quiet";
  const std::string one_thread = "LAZAX_NUM_THREADS=1 ";
  const std::string mpirun = "mpirun --allow-run-as-root --oversubscribe -np 2 ";
  const std::string torch =
      "env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 GOMP_SPINCOUNT=0 /usr/bin/python3 " +
      shell_quote(std::string(LAZAX_SOURCE_DIR) + "/bench/torch_ddp.py") + " " + init + " " +
      batches + " --layers " + n(c.n_layers) + " --heads " + n(c.n_heads) + " --ranks 2 --warmup " +
      n(o.warmup) + " --steps " + n(o.train.steps) + " --lr 1e-3";

  // name -> the summaries of its runs
  std::map<std::string, std::vector<nlohmann::json>> runs;
  const std::vector<std::string> modes = {"none", "optimizer", "full"};
  for (int64_t rep = 0; rep < o.repeats; ++rep) {
    const fs::path one = dir / "one.json";
    runs["1rank"].push_back(run_json("lazax train (1 process)",
                                     one_thread + train + " --summary " + shell_quote(one.string()),
                                     one));
    for (const std::string& m : modes) {
      const fs::path s = dir / (m + ".json");
      std::string what = "mpirun -np 2 lazax train --shard ";
      what += m;
      std::string cmd = one_thread;
      cmd += mpirun;
      cmd += train;
      cmd += " --shard ";
      cmd += m;
      cmd += " --summary ";
      cmd += shell_quote(s.string());
      runs[m].push_back(run_json(what, cmd, s));
    }
    if (o.peers) runs["torch"].push_back(run_json("PyTorch DDP (gloo, 2 processes)", torch, {}));
  }
  auto med = [&](const std::string& run, const char* field) {
    std::vector<double> v;
    for (const nlohmann::json& j : runs[run]) v.push_back(j[field].get<double>());
    return median(v);
  };

  nlohmann::ordered_json r;
  r["model"] = {{"dim", c.dim},       {"layers", c.n_layers}, {"heads", c.n_heads},
                {"hidden", c.hidden}, {"batch", c.batch},     {"seq", c.seq}};
  r["steps"] = o.train.steps;
  r["repeats"] = o.repeats;
  r["threads_per_rank"] = 1;
  r["ms_per_step_1rank"] = med("1rank", "ms_per_step");
  r["ms_per_step_2ranks"] = med("none", "ms_per_step");
  r["allreduce_ms"] = med("none", "dist_ms_per_step");
  r["bytes_per_step"] = med("none", "dist_bytes_per_step");
  r["torch_ms_per_step_2ranks"] = nullptr;
  if (o.peers) r["torch_ms_per_step_2ranks"] = med("torch", "ms_per_step");
  nlohmann::ordered_json ms, rss, state, bytes;
  for (const std::string& m : modes) {
    ms[m] = med(m, "ms_per_step");
    rss[m] = med(m, "peak_rss_mb_max_rank");
    state[m] = med(m, "state_bytes_per_rank");
    bytes[m] = med(m, "dist_bytes_per_step");
  }
  r["ms_per_step_2ranks_by_shard"] = ms;
  r["bytes_per_step_by_shard"] = bytes;
  r["peak_rss_mb_per_rank"] = rss;  // the largest VmHWM of the ranks
  r["state_bytes_per_rank"] = state;
  r["peak_rss_mb_1rank"] = med("1rank", "peak_rss_mb");
  if (o.peers) {
    r["torch_peak_rss_mb_per_rank"] = med("torch", "peak_rss_mb");
    r["lazax_over_torch_2ranks"] = med("none", "ms_per_step") / med("torch", "ms_per_step");
  }
  // The same global batch per step: tokens/s of 2 ranks over 1 is the ratio of the step times.
  r["throughput_2ranks_over_1rank"] = med("1rank", "ms_per_step") / med("none", "ms_per_step");
  r["state_full_over_none"] =
      med("full", "state_bytes_per_rank") / med("none", "state_bytes_per_rank");
  if (o.json) {
    std::printf("%s\n", r.dump().c_str());
    return;
  }
  for (const auto& [k, v] : r.items()) std::printf("%-30s %s\n", k.c_str(), v.dump().c_str());
}

}  // namespace

void add_bench_dist(CLI::App& bench) {
  auto o = std::make_shared<BenchDistOptions>();
  o->train.steps = 5;
  CLI::App* sub = bench.add_subcommand(
      "dist", "ms per data-parallel step: lazax on 1 and 2 ranks, PyTorch DDP (gloo) on 2");
  sub->footer(
      "Trains the same model from the same weights on the same batches, 1 thread per process:\n"
      "lazax train on 1 process, mpirun -np 2 lazax train --shard none|optimizer|full, and\n"
      "PyTorch DDP over gloo on 2 processes (bench/torch_ddp.py). Reports the medians of\n"
      "--repeats runs: ms per step, the time and bytes of lazax's collectives per step, each\n"
      "rank's bytes of parameters, gradients and optimizer state, and rank 0's peak RSS.");
  sub->add_flag("--json", o->json, "print one JSON object");
  add_bench_model_options(*sub, o->train, o->warmup, "override the preset's batch (even)");
  sub->add_option("--repeats", o->repeats, "runs of each configuration (default 3; medians)")
      ->check(CLI::Range(int64_t{1}, int64_t{100}));
  sub->add_option("--mode", o->train.mode, "lazax's layer mode (default lazy)")
      ->check(CLI::IsMember({"lazy", "assume_pure", "scan"}));
  sub->add_flag_callback(
      "--no-peers", [o] { o->peers = false; }, "skip PyTorch");
  sub->callback([o] { bench_dist(*o); });
}

}  // namespace lazax::cli
