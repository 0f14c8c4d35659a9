// `lazax bench scan`: the first training step of a deep nn::Llama (trace + compile + run of the
// forward and backward) with its layers unrolled (LayerMode::lazy) against one scan over them
// (LayerMode::scan, nn::scan_layers), and whether both give the same gradients.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

namespace lazax::bench {

struct ScanBenchOptions {
  // Small sizes: the figure is about tracing and compiling, not running (at tiny's dim 256, 32
  // layers' weights and gradients alone are 220 MB of memory traffic per step).
  int64_t layers = 32;  // decoder layers
  int64_t dim = 64;     // model width; hidden 3 * dim, 4 heads, byte vocabulary
  int64_t batch = 1;
  int64_t seq = 16;
  // Each a fresh model with empty program caches, after an untimed round; figures are medians.
  int reps = 3;
};

// One JSON object: layers, unrolled_compile_ms and scan_compile_ms (the first step: from the
// first call to computed gradients), their ratio compile_speedup (unrolled / scan),
// unrolled_step_ms and scan_step_ms (a second, compiled step: what the first includes of
// running), unrolled_trace_compile_ms and scan_trace_compile_ms (the first step less its run)
// with their ratio trace_compile_speedup, and max_grad_diff (the largest absolute difference of any
// parameter gradient of the first step between the two), and unrolled_first_step / scan_first_step:
// where the first step's time went (record_ms: tracing, the tape and VJP programs; sync_hash_ms;
// compile_ms: passes and backend; execute_ms; and ops_recorded).
nlohmann::json run_scan_bench(const ScanBenchOptions& options);

}  // namespace lazax::bench
