// `lazax bench kernels`: the cpu backend's kernels against the machine and its peers, in one
// run: GEMM through dot_general against oneDNN's own sgemm, a fused elementwise chain against a
// STREAM triad's bandwidth, softmax and RMS norm over [4096, 4096] (GB/s counting one read and
// one write) against PyTorch (Debian's, run as a subprocess).
#pragma once
#include <span>
#include <string>

namespace lazax::bench {

// The `lazax bench kernels [--json] [--no-peers] [--reps N]` command: prints a table or one
// JSON object; returns the exit status.
int kernels_bench_command(std::span<const std::string> args);

}  // namespace lazax::bench
