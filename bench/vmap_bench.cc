// `lazax bench vmap` (vmap_bench.h).
#include "vmap_bench.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "lazax/lazax.h"
#include "subprocess.h"

namespace lazax::bench {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Mlp {
  Tensor w1, b1, w2;
  LAZAX_TREE_FIELDS(w1, b1, w2)
};
Tensor loss(const Mlp& p, const Tensor& x, const Tensor& y) {
  Tensor d = matmul((matmul(x, p.w1) + p.b1).tanh(), p.w2) - y;
  return (d * d).sum();
}

// The per-example gradients of w1, stacked: [batch, in, hidden].
Tensor by_vmap(const Mlp& p, const Tensor& xs, const Tensor& ys) {
  return vmap(grad(loss), {.in_axes = {std::nullopt, 0, 0}})(p, xs, ys).w1;
}
Tensor by_loop(const Mlp& p, const Tensor& xs, const Tensor& ys) {
  std::vector<Tensor> gs;
  gs.reserve(static_cast<size_t>(xs.size(0)));
  for (int64_t i = 0; i < xs.size(0); ++i) gs.push_back(grad(loss)(p, xs[i], ys[i]).w1);
  return stack(gs, 0);
}

template <class F>
std::vector<float> timed(F f, double& ms) {
  auto t0 = std::chrono::steady_clock::now();
  Tensor g = f();
  lazax::sync();
  ms = ms_since(t0);
  return g.to_vector<float>();
}

void torch_peer(const VmapBenchOptions& o, nlohmann::json& r) {
  r["torch_loop_ms"] = nullptr;
  const std::string python = LAZAX_BENCH_PYTHON;
  if (::access(python.c_str(), X_OK) != 0) {
    r["torch_detail"] = python + " not found";
    return;
  }
  auto [code, out] = run_command(shell_quote(python) + " " + shell_quote(LAZAX_TORCH_VMAP_SCRIPT) +
                                 " " + std::to_string(o.batch) + " " + std::to_string(o.in) + " " +
                                 std::to_string(o.hidden) + " " + std::to_string(o.out) + " " +
                                 std::to_string(o.reps) + " 2>&1");
  if (code != 0) {
    r["torch_detail"] = "torch peer failed: " + last_line(out);
    return;
  }
  nlohmann::json t = nlohmann::json::parse(last_line(out));
  r["torch_loop_ms"] = t["loop_ms"];
  r["torch_detail"] = "torch " + t["version"].get<std::string>();
}

}  // namespace

nlohmann::json run_vmap_bench(const VmapBenchOptions& o) {
  manual_seed(0);
  Mlp p{randn({o.in, o.hidden}), randn({o.hidden}), randn({o.hidden, o.out})};
  Tensor xs = randn({o.batch, o.in}), ys = randn({o.batch, o.out});
  lazax::sync();
  nlohmann::json r;
  r["batch"] = o.batch;
  double first_v = 0, first_l = 0, ms = 0;
  std::vector<float> gv = timed([&] { return by_vmap(p, xs, ys); }, first_v);
  std::vector<float> gl = timed([&] { return by_loop(p, xs, ys); }, first_l);
  // The vmap calls run back to back, apart from the loop's, so that the host trace time is not
  // measured on caches the loop's larger working set has just evicted.
  std::vector<double> tv, tl, trace;
  for (int i = 0; i < o.reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Tensor g = by_vmap(p, xs, ys);
    trace.push_back(ms_since(t0));
    lazax::sync();
    tv.push_back(ms_since(t0));
  }
  for (int i = 0; i < o.reps; ++i) {
    timed([&] { return by_loop(p, xs, ys); }, ms);
    tl.push_back(ms);
  }
  double diff = 0;
  for (size_t i = 0; i < gv.size(); ++i) diff = std::max(diff, double(std::abs(gv[i] - gl[i])));
  r["vmap_first_ms"] = first_v;
  r["loop_first_ms"] = first_l;
  r["vmap_ms"] = median(tv);
  r["loop_ms"] = median(tl);
  r["vmap_trace_ms"] = median(trace);
  r["speedup"] = median(tl) / median(tv);
  r["max_diff"] = diff;
  torch_peer(o, r);
  return r;
}

}  // namespace lazax::bench
