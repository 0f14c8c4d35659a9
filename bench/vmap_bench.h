// `lazax bench vmap`: per-example gradients of a small MLP (batch 64 by default) three ways:
// vmap(grad(loss)) in lazax, a loop of one grad per example in lazax (what one writes without
// vmap), and PyTorch's loop of per-example backward passes (a subprocess; null without torch).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

namespace lazax::bench {

struct VmapBenchOptions {
  int64_t batch = 64;
  int64_t in = 32, hidden = 64, out = 8;  // MLP sizes: in -> hidden (tanh) -> out, squared error
  int reps = 5;                           // steady-state repetitions; figures are medians
};

// One JSON object: batch, vmap_ms and loop_ms (a compiled call: the gradients of every example
// computed and synced), vmap_first_ms and loop_first_ms (the first call: trace, compile, run),
// vmap_trace_ms (the host time of recording the vmapped gradients, before the sync),
// speedup (loop_ms / vmap_ms), max_diff (the largest difference between the two results),
// torch_loop_ms (null when torch is missing) and torch_detail.
nlohmann::json run_vmap_bench(const VmapBenchOptions& options);

}  // namespace lazax::bench
