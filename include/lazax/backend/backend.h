// The backend contract: compile a Function once into an Executable, run it many times.
// The reference backend runs the reference interpreter; optimizing backends plug in here.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lazax/core/options.h"
#include "lazax/ir/function.h"

namespace lazax {

// What a compiled plan knows before it runs (backends that plan memory fill it in): the peak
// bytes of the values it holds at once (its intermediates and results, not its arguments), per
// memory kind, and how its steps were lowered.
struct PlanStats {
  int64_t peak_device_bytes = 0;
  int64_t peak_host_bytes = 0;
  int64_t steps = 0;       // kernels run per call (sub-programs not counted)
  int64_t gemm = 0;        // dot_general through oneDNN
  int64_t fused = 0;       // fused elementwise kernels
  int64_t fused_ops = 0;   // ops inside them
  int64_t fallback = 0;    // nodes run by the reference interpreter's kernel
  int64_t collective = 0;  // all_reduce... (MPI calls, in program order on every rank)
  int64_t overlapped = 0;  // steps run while a started all_reduce or reduce_scatter is in
                           // flight (between its start and its first reader), summed
};

class Executable {
 public:
  virtual ~Executable() = default;
  // The arguments are read in place (the caller keeps them alive during the call): the runtime
  // hands over the data its leaves hold without copying a handle per argument.
  virtual std::vector<Literal> run(std::span<const Literal* const> args) = 0;
  // The same for a caller that holds the argument values.
  std::vector<Literal> run(std::span<const Literal> args) {
    return run(std::span<const Literal* const>(pointers_to(args)));
  }
  virtual const Function& function() const = 0;
  virtual PlanStats plan_stats() const { return {}; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::unique_ptr<Executable> compile(FunctionPtr f) = 0;
};

// "cpu" (the optimizing backend, src/backend/cpu/), "reference" (the reference interpreter: the
// oracle), or "null": for measuring host cost only (compiles nothing, runs nothing, returns
// zero-filled results; see null_backend.cc).
std::unique_ptr<Backend> make_backend(const std::string& name);
// Threads of the cpu backend's pool (shared with oneDNN); n >= 1. Without a call: the machine's
// cores. (The Context calls it for Options::num_threads, LAZAX_NUM_THREADS.)
void set_num_threads(int n);
// The cpu backend's kernel profile (Options::cpu_profile, LAZAX_CPU_PROFILE): time per kernel
// kind, or per op, gathered from now on and printed to stderr at exit. Off: not gathered.
void set_cpu_profile(CpuProfile mode);
// The backends that compute (what tools offer): "null" is not listed.
std::vector<std::string> backend_names();

}  // namespace lazax
