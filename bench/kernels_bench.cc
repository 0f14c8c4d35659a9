// `lazax bench kernels` (kernels_bench.h). Each figure is the best of --reps timed runs after a
// warm-up run; ratios > 1 mean lazax is faster.
#include "kernels_bench.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "gemm_bf16_bench.h"
#include "lazax/backend/backend.h"
#include "lazax/core/error.h"
#include "lazax/ir/builder.h"
#include "lazax/lazax.h"
#include "lazax/runtime/context.h"
#include "subprocess.h"

namespace lazax::bench {
namespace {

// --cpu-time: time by the process's CPU time instead of the wall clock (on a shared, loaded
// machine with LAZAX_NUM_THREADS=1 the wall clock mostly measures waiting for a core).
bool g_cpu_time = false;

double now_seconds() {
  if (!g_cpu_time) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double best_seconds(int reps, const std::function<void()>& f) {
  f();  // warm-up (compiles primitives, faults pages in)
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now_seconds();
    f();
    best = std::min(best, now_seconds() - t0);
  }
  return best;
}

Literal random_f32(const Shape& s, uint32_t seed) {
  Literal l = Literal::zeros({DType::f32, s});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  float* p = l.data<float>();
  for (int64_t i = 0; i < l.numel(); ++i) p[i] = u(rng);
  return l;
}

// Seconds per run of `f` on the cpu backend.
double time_program(const FunctionPtr& f, const std::vector<Literal>& args, int reps) {
  auto exe = make_backend("cpu")->compile(f);
  return best_seconds(reps, [&] { exe->run(args); });
}

TensorType f32(Dims d) { return {DType::f32, Shape(std::move(d))}; }

// lazax's dot_general [n, n] x [n, n] (lhs transposed when `t`) against oneDNN's sgemm.
double gemm_ratio(int64_t n, bool t, int reps) {
  Builder b;
  auto x = b.param(f32({n, n}));
  auto w = b.param(f32({n, n}));
  auto y = b.add(OpCode::dot_general, {x, w}, DotGeneralAttrs{{}, {}, {t ? 0 : 1}, {0}});
  auto f = b.build({y});
  Literal a = random_f32(Shape{n, n}, 1), c = random_f32(Shape{n, n}, 2);
  double lazax = time_program(f, {a, c}, reps);
  std::vector<float> out(static_cast<size_t>(n * n));
  double onednn = best_seconds(reps, [&] {
    dnnl_sgemm(t ? 'T' : 'N', 'N', n, n, n, 1.0f, a.data<float>(), n, c.data<float>(), n, 0.0f,
               out.data(), n);
  });
  return onednn / lazax;
}

// STREAM triad a = b + s * c over three 64 MiB arrays, GB/s (reads b, c; writes a).
double triad_gbs(int reps) {
  const int64_t n = (int64_t{64} << 20) / 4;
  std::vector<float> a(static_cast<size_t>(n)), bb(static_cast<size_t>(n), 1.0f),
      c(static_cast<size_t>(n), 2.0f);
  float* pa = a.data();
  const float* pb = bb.data();
  const float* pc = c.data();
  double s = best_seconds(reps, [&] {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) pa[i] = pb[i] + 3.0f * pc[i];
  });
  return 3.0 * static_cast<double>(n) * 4 / s / 1e9;
}

// A 6-op elementwise chain over two 64 MiB inputs into one output, GB/s.
double fused_chain_gbs(int reps) {
  const int64_t n = (int64_t{64} << 20) / 4;
  Builder b;
  auto x = b.param(f32({n}));
  auto y = b.param(f32({n}));
  auto t = b.add(OpCode::mul, {x, y});
  t = b.add(OpCode::add, {t, x});
  t = b.add(OpCode::sub, {t, y});
  t = b.add(OpCode::max, {t, x});
  t = b.add(OpCode::neg, {t});
  t = b.add(OpCode::abs, {t});
  double s = time_program(b.build({t}), {random_f32(Shape{n}, 3), random_f32(Shape{n}, 4)}, reps);
  return 3.0 * static_cast<double>(n) * 4 / s / 1e9;
}

// x broadcast along the last axis of [rows, cols] from [rows].
ValueRef row_broadcast(Builder& b, ValueRef v, int64_t rows, int64_t cols) {
  return b.add(OpCode::broadcast_in_dim, {v}, BroadcastInDimAttrs{Shape{rows, cols}, {0}});
}

FunctionPtr softmax_program(int64_t r, int64_t c) {
  Builder b;
  auto x = b.param(f32({r, c}));
  auto m = b.add(OpCode::reduce_max, {x}, ReduceAttrs{{1}});
  auto e = b.add(OpCode::exp, {b.add(OpCode::sub, {x, row_broadcast(b, m, r, c)})});
  auto s = b.add(OpCode::reduce_sum, {e}, ReduceAttrs{{1}});
  return b.build({b.add(OpCode::div, {e, row_broadcast(b, s, r, c)})});
}

FunctionPtr rmsnorm_program(int64_t r, int64_t c) {
  Builder b;
  auto x = b.param(f32({r, c}));
  auto ss = b.add(OpCode::reduce_sum, {b.add(OpCode::mul, {x, x})}, ReduceAttrs{{1}});
  auto k = b.constant(Literal::from_vector<float>(std::vector<float>(r, 1.0f / c), Shape{r}));
  auto eps = b.constant(Literal::from_vector<float>(std::vector<float>(r, 1e-6f), Shape{r}));
  auto inv = b.add(OpCode::rsqrt, {b.add(OpCode::add, {b.add(OpCode::mul, {ss, k}), eps})});
  return b.build({b.add(OpCode::mul, {x, row_broadcast(b, inv, r, c)})});
}

// GB/s of a [4096, 4096] row-wise program: one read and one write of the array.
double rows_gbs(const FunctionPtr& f, int reps) {
  const double bytes = 2.0 * 4096 * 4096 * 4;
  return bytes / time_program(f, {random_f32(Shape{4096, 4096}, 5)}, reps) / 1e9;
}

// PyTorch's softmax and RMS norm over [4096, 4096] on the same threads, GB/s; null when absent.
nlohmann::json torch_rows_gbs(int reps) {
  std::string script =
      "import json,time,torch\n"
      "torch.set_num_threads(" +
      std::to_string(omp_get_max_threads()) +
      ")\n"
      "x=torch.rand(4096,4096)\n"
      "clock=time.process_time if " +
      std::string(g_cpu_time ? "True" : "False") +
      " else time.perf_counter\n"
      "def best(f):\n"
      "  f(); b=1e30\n"
      "  for _ in range(" +
      std::to_string(reps) +
      "):\n"
      "    t=clock(); f(); b=min(b,clock()-t)\n"
      "  return 2*4096*4096*4/b/1e9\n"
      "sm=best(lambda: torch.softmax(x,-1))\n"
      "rn=best(lambda: x*torch.rsqrt(x.pow(2).mean(-1,keepdim=True)+1e-6))\n"
      "print(json.dumps({'softmax_gbs':sm,'rmsnorm_gbs':rn}))\n";
  auto [code, out] = run_command("/usr/bin/python3 -c " + shell_quote(script));
  if (code != 0) return nullptr;
  try {
    return nlohmann::json::parse(last_line(out));
  } catch (const std::exception&) {
    return nullptr;
  }
}

// ms per training step (forward, backward, SGD, sync) of nn::Llama at the bench's own sizes
// (dim 256, 4 heads, hidden 768, 4 layers, seq 128, batch 8: the `tiny` preset but with 4 heads)
// in LayerMode::lazy on the default backend: the best of `steps` steps after one warm-up step
// (which traces and compiles); random byte tokens.
nlohmann::json decoder_step(int steps) {
  nn::LlamaConfig c = nn::LlamaConfig::tiny();
  c.n_heads = 4;
  manual_seed(42);
  nn::Llama model(c);
  optim::SGD sgd(model.named_parameters(), optim::SGDOptions{.lr = 0.01});
  std::mt19937 rng(7);
  std::vector<int64_t> tok(static_cast<size_t>(c.batch * (c.seq + 1)));
  double best = 1e30, first = 0;
  for (int s = 0; s <= steps; ++s) {
    for (auto& t : tok) t = static_cast<int64_t>(rng() % 256);
    double t0 = now_seconds();
    Tensor loss = model.forward(from_vector<int64_t>(tok, {c.batch, c.seq + 1}));
    loss.backward();
    sgd.step();
    sgd.zero_grad();
    lazax::sync();
    double ms = (now_seconds() - t0) * 1e3;
    if (s == 0) {
      first = ms;
    } else {
      best = std::min(best, ms);
    }
  }
  return {{"decoder_tiny_step_ms", best},
          {"decoder_tiny_first_step_ms", first},
          {"backend", Context::get().backend().name()}};
}

}  // namespace

void run_kernels_bench(const KernelsBenchOptions& options) {
  const bool json = options.json, peers = options.peers;
  const int reps = options.reps, decoder_steps = options.decoder_steps;
  g_cpu_time = options.cpu_time;
  Context::get();  // sizes the thread pool (Options::num_threads) before it is read
  nlohmann::json j;
  j["threads"] = omp_get_max_threads();
  j["clock"] = g_cpu_time ? "process cpu time" : "wall";
  if (decoder_steps > 0) {  // only the training step
    j["decoder"] = decoder_step(decoder_steps);
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  j["gemm_vs_onednn_256"] = gemm_ratio(256, false, reps * 4);
  j["gemm_vs_onednn_1024"] = gemm_ratio(1024, false, reps);
  j["gemm_vs_onednn_2048"] = gemm_ratio(2048, false, reps);
  j["gemm_t_vs_onednn_1024"] = gemm_ratio(1024, true, reps);
  j.update(gemm_bf16_bench(reps));
  j["triad_gbs"] = triad_gbs(reps);
  j["fused_chain_gbs"] = fused_chain_gbs(reps);
  j["softmax_gbs"] = rows_gbs(softmax_program(4096, 4096), reps);
  j["rmsnorm_gbs"] = rows_gbs(rmsnorm_program(4096, 4096), reps);
  nlohmann::json torch = peers ? torch_rows_gbs(reps) : nlohmann::json(nullptr);
  j["torch"] = torch;
  if (torch.is_object()) {
    j["softmax_vs_torch"] = j["softmax_gbs"].get<double>() / torch["softmax_gbs"].get<double>();
    j["rmsnorm_vs_torch"] = j["rmsnorm_gbs"].get<double>() / torch["rmsnorm_gbs"].get<double>();
  } else {
    j["softmax_vs_torch"] = nullptr;
    j["rmsnorm_vs_torch"] = nullptr;
  }
  if (json) {
    std::printf("%s\n", j.dump().c_str());
  } else {
    for (auto& [k, v] : j.items()) std::printf("%-24s %s\n", k.c_str(), v.dump().c_str());
  }
}

}  // namespace lazax::bench
