// `lazax bench kernels`' bf16 GEMM figures (gemm_bf16_bench.cc).
#pragma once
#include <nlohmann/json.hpp>

namespace lazax::bench {

// gemm_bf16_gflops (dot_general, bf16 [1024, 1024] x [1024, 1024], bf16 result),
// gemm_bf16_onednn_gflops (oneDNN's bf16 matmul on the same buffers) and their ratio,
// gemm_bf16_vs_onednn_1024 (> 1: dot_general faster), best of `reps` runs after a warm-up.
nlohmann::json gemm_bf16_bench(int reps);

}  // namespace lazax::bench
