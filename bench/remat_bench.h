// `lazax bench remat`: what each remat policy keeps for the backward of nn::Llama's blocks
// (LayerMode::assume_pure, `tiny` sizes) and what it costs: saved bytes, the FLOPs of matmuls
// the backward recomputes, step time and peak live bytes of a training step.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

namespace lazax::bench {

struct RematBenchOptions {
  int steps = 3;       // timed training steps per policy (after one warm-up step)
  int64_t layers = 0;  // 0: tiny's 4
};

// One JSON object per policy (memory_budget with 3/4 of everything_saveable's bytes, its row
// with `budget_bytes`): policy, device_bytes (saved for the backward, all layers),
// host_bytes (saved in host memory by the offload policies), recompute_flops (matmul FLOPs the
// backward programs recompute beyond everything_saveable's, all layers), step_ms (best), peak_bytes
// (the cpu backend's planned peak of live bytes for the step's program), measured_peak_bytes (the
// peak of live buffer bytes during a step beyond those live before it; buffers reused from the
// programs' pools are not counted again).
nlohmann::json run_remat_bench(const RematBenchOptions& options);

}  // namespace lazax::bench
