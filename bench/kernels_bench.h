// `lazax bench kernels`: the cpu backend's kernels against the machine and its peers, in one
// run: GEMM through dot_general against oneDNN's own sgemm, a fused elementwise chain against a
// STREAM triad's bandwidth, softmax and RMS norm over [4096, 4096] (GB/s counting one read and
// one write) against PyTorch (Debian's, run as a subprocess).
#pragma once
#include <span>
#include <string>

namespace lazax::bench {

struct KernelsBenchOptions {
  bool json = false;
  bool peers = true;      // PyTorch's softmax and RMS norm (a subprocess)
  bool cpu_time = false;  // process CPU time instead of wall time
  int reps = 5;
  int decoder_steps = 0;  // > 0: only nn::Llama's training step, this many times
};

// `lazax bench kernels`: prints a table or one JSON object.
void run_kernels_bench(const KernelsBenchOptions& options);

}  // namespace lazax::bench
