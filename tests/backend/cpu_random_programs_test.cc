// Differential testing of the cpu backend on random well-typed programs (tests/common, fixed
// seeds): the cpu backend (passes + its kernels) against the reference interpreter. A failure
// is shrunk and printed as IR text. LAZAX_CPU_FUZZ_SEEDS=N runs N more seeds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "lazax/backend/backend.h"
#include "lazax/interp/interpreter.h"
#include "lazax/ir/printer.h"
#include "random_program.h"

namespace lazax {
namespace {

std::string mismatch(const FunctionPtr& f, uint64_t seed) {
  // (f32 math functions differ in the last bits between the cpu kernels and the reference.)
  auto exe = make_backend("cpu")->compile(f);
  std::vector<Literal> args = testing::random_arguments(*f, seed);
  // f32 GEMMs and reductions accumulate in f32 on cpu, in f64 on the reference.
  std::vector<Literal> want = interpret(*f, args);
  std::string d = testing::compare_results(want, exe->run(args), 1e-4, 1e-4);
  if (d.empty()) return d;
  // An ill-conditioned program (pow then cos of a large sum, say) turns f32 rounding into
  // different results: skip it when nudging its f32 arguments by 1e-6 changes the reference's
  // results beyond the tolerance too.
  std::vector<Literal> nudged;
  for (const Literal& a : args) {
    Literal b = a.clone();
    if (b.dtype() == DType::f32)
      for (int64_t i = 0; i < b.numel(); ++i) b.data<float>()[i] *= 1.000001f;
    nudged.push_back(std::move(b));
  }
  if (!testing::compare_results(want, interpret(*f, nudged), 1e-4, 1e-4).empty()) return "";
  return d;
}

void check_seeds(uint64_t first, uint64_t count, const testing::RandomProgramOptions& o = {}) {
  int failures = 0;
  for (uint64_t seed = first; seed < first + count && failures < 3; ++seed) {
    FunctionPtr f = testing::random_program(seed, o);
    std::string d;
    try {
      d = mismatch(f, seed);
    } catch (const Error& e) {
      d = std::string("threw: ") + e.what();
    }
    if (d.empty()) continue;
    ++failures;
    FunctionPtr small = testing::shrink_program(f, [&](const FunctionPtr& g) {
      try {
        return !mismatch(g, seed).empty();
      } catch (const Error&) {
        return true;
      }
    });
    ADD_FAILURE() << "seed " << seed << ": " << d << "\nshrunk program:\n" << print_program(*small);
  }
}

TEST(CpuRandomPrograms, MatchTheReference) { check_seeds(1, 1000); }

// Larger shapes, so that elementwise chains reach the fused kernels' size threshold.
TEST(CpuRandomPrograms, LargerShapesMatchTheReference) {
  testing::RandomProgramOptions o;
  o.max_dim = 16;
  o.max_rank = 3;
  o.num_steps = 20;
  check_seeds(5000, 1000, o);
}

TEST(CpuRandomPrograms, FuzzSeedsFromEnvironment) {
  const char* n = std::getenv("LAZAX_CPU_FUZZ_SEEDS");
  if (!n) GTEST_SKIP() << "set LAZAX_CPU_FUZZ_SEEDS=N to run N more seeds";
  check_seeds(1000000, std::strtoull(n, nullptr, 10));
}

}  // namespace
}  // namespace lazax
