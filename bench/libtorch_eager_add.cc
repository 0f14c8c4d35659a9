// Peer figure for `lazax bench trace`: LibTorch's eager dispatch cost for one small op, the add
// of two 16-float tensors (no autograd, one thread). Prints one JSON object:
//   {"ns_per_op": ..., "ops": ..., "reps": ..., "clock": "thread_cpu", "torch_version": ...}
// Usage: libtorch_eager_add [--ops N] [--reps N]
#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

// Thread CPU time: the other processes sharing the machine do not inflate it.
int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  long ops = 10000, reps = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--ops") == 0)
      ops = std::atol(argv[i + 1]);
    else if (std::strcmp(argv[i], "--reps") == 0)
      reps = std::atol(argv[i + 1]);
  }
  if (ops <= 0 || reps <= 0) {
    std::fprintf(stderr, "usage: libtorch_eager_add [--ops N] [--reps N] (N > 0)\n");
    return 2;
  }
  torch::set_num_threads(1);
  torch::NoGradGuard no_grad;
  torch::Tensor a = torch::ones({16}), b = torch::ones({16});

  auto chain = [&] {
    torch::Tensor x = a;
    for (long i = 0; i < ops; ++i) x = torch::add(x, b);
    return x;
  };
  chain();  // warm up the dispatcher and the allocator
  std::vector<double> per_op;
  for (long r = 0; r < reps; ++r) {
    int64_t t0 = thread_cpu_ns();
    torch::Tensor x = chain();
    int64_t t1 = thread_cpu_ns();
    per_op.push_back(static_cast<double>(t1 - t0) / static_cast<double>(ops));
    if (x.numel() != 16) return 1;
  }
  std::printf(
      "{\"ns_per_op\": %.1f, \"ops\": %ld, \"reps\": %ld, \"clock\": \"thread_cpu\", "
      "\"torch_version\": \"%s\"}\n",
      median(per_op), ops, reps, TORCH_VERSION);
  return 0;
}
