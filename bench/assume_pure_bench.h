// `lazax bench assume-pure`: the host cost of a training step of a deep decoder (nn::Llama of
// lazax/nn/llama.h at the bench's own sizes: dim 128, 4 heads, SwiGLU hidden 256, vocab 256,
// batch 2, sequence 8), traced op by op in plain lazy mode and with assume_pure over each layer,
// next to PyTorch's lazy tensor tracing (torch._lazy) of the same model on the same machine
// (PyTorch/XLA reports 140.1 ms vs 24.2 ms for this setting on its own hardware).
//
// What is timed, per step: the forward (the loss), loss.backward() and lazax::sync() until the
// gradients are computed, less the execution; then, on its own line, the optimizer (optim::SGD's
// step and its sync). The timed loops run on the "null" backend, which compiles and computes
// nothing (the reference interpreter would take seconds per step): what remains is recording, the
// tape, the graph walk + hash + cache lookup of sync, rebinding the results and freeing the step's
// graph and tape. The null backend's run (returning shared zero buffers) is read from the
// runtime's ExecuteTime timer and subtracted. Times are thread CPU time
// (CLOCK_THREAD_CPUTIME_ID), so that other processes on a shared machine do not inflate them;
// lazax records on one thread. Figures are medians (and means) over the timed steps, after the
// warm-up steps, which trace and compile. The modes take turns, in rounds of steps, and the
// torch._lazy peer (bench/torch_lazy_decoder.py, kept running as a subprocess) takes its turn
// after each round, so that a change in the load of a shared machine falls on all of them alike.
//
// Modes: "lazy" (LayerMode::lazy: every op of every layer recorded each step), "assume_pure"
// (LayerMode::assume_pure: Llama's one assume_pure block, each layer's parameters passed as
// arguments, so one trace serves all layers and each layer is one forward and one backward call
// node) and "assume_pure, 2x ops" (the bench composes Llama's pieces itself, each layer one
// assume_pure call that applies the layer's block twice: twice the ops inside each layer).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace lazax::bench {

struct AssumePureBenchOptions {
  int64_t layers = 100;  // decoder layers (dim 128, vocab 256, batch 2, sequence 8)
  int steps = 100;       // timed training steps per mode
  int warmup = 2;        // untimed steps first (they trace and compile)
  int rounds = 5;        // the timed steps run in rounds, the modes taking turns
  bool peers = true;     // also measure torch._lazy when /usr/bin/python3 can import torch
  int torch_steps = 10;  // timed steps of the torch._lazy peer (it is slow)
  int torch_warmup = 2;
  std::string only;  // profiling aid: run only this mode (lazy, assume_pure, double); the
                     // others' figures are then 0
};

// One mode's figures: milliseconds per step (thread CPU time), medians unless named _mean.
struct ModeResult {
  std::string name;
  double host_ms = 0;  // forward + backward + sync, execution excluded
  double host_ms_mean = 0;
  double forward_ms = 0;    // the loss
  double backward_ms = 0;   // loss.backward()
  double sync_ms = 0;       // sync less execution, and freeing the step's graph and tape
  double optimizer_ms = 0;  // optim::SGD's step + its sync, execution excluded
  double optimizer_ms_mean = 0;
  double execute_ms_mean = 0;   // the null backend's runs (subtracted above), wall clock
  double ops_recorded = 0;      // lazy-graph ops recorded per step (forward + backward)
  double synced_nodes = 0;      // ops in the step's synced graph
  int64_t compile_misses = 0;   // UncachedCompile over the timed steps (want 0)
  int64_t cached_compiles = 0;  // CachedCompile over the timed steps
  int64_t pure_traces = 0;      // assume_pure traces over the timed steps (want 0)
  int64_t warmup_compile_misses = 0;
  int64_t warmup_pure_traces = 0;
  int64_t size_cuts = 0;  // graph-size cuts over the timed steps (want 0)
};

// The torch._lazy peer (bench/torch_lazy_decoder.py), or why it is absent.
struct TorchLazyResult {
  std::optional<double> host_ms;       // forward + backward tracing, before mark_step
  std::optional<double> mark_step_ms;  // mark_step after the backward (includes execution)
  std::optional<double> optimizer_ms;  // tracing the SGD update (before its mark_step)
  std::string detail;                  // the script's settings, or the reason it is absent
};

struct AssumePureBenchResult {
  AssumePureBenchOptions options;
  ModeResult lazy, pure, pure_double;
  TorchLazyResult torch_lazy;

  // Targets of the issue.
  static constexpr double kModesTarget = 20.0;      // lazy / assume_pure >= 20
  static constexpr double kFlatTarget = 0.2;        // |double_ops / assume_pure - 1| <= 0.2
  static constexpr double kTorchLazyTarget = 20.0;  // torch._lazy / lazy >= 20
  double lazy_over_pure() const;
  double double_ops_over_pure() const;
  std::optional<double> torch_lazy_over_lazy() const;
  bool meets_modes_target() const;
  bool meets_flat_target() const;
  std::optional<bool> meets_torch_lazy_target() const;
};

AssumePureBenchResult run_assume_pure_bench(const AssumePureBenchOptions& options);

// One JSON object: lazy_host_ms_per_step, assume_pure_host_ms_per_step,
// assume_pure_host_ms_per_step_double_ops, torch_lazy_host_ms_per_step (null when absent),
// optimizer_host_ms_per_step, the ratios, whether each target is met, and per-mode details.
nlohmann::json to_json(const AssumePureBenchResult& r);
// A human-readable table of the same.
std::string to_table(const AssumePureBenchResult& r);

}  // namespace lazax::bench
