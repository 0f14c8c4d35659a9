// Differential testing of the cpu backend on random well-typed programs (tests/common, fixed
// seeds): the cpu backend (passes + its kernels) against the reference interpreter. A failure
// is shrunk and printed as IR text. LAZAX_CPU_FUZZ_SEEDS=N runs N more seeds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "lazax/backend/backend.h"
#include "lazax/ir/interpreter.h"
#include "lazax/ir/printer.h"
#include "random_program.h"

namespace lazax {
namespace {

std::string mismatch(const FunctionPtr& f, uint64_t seed) {
  auto exe = make_backend("cpu")->compile(f);
  std::vector<Literal> args = testing::random_arguments(*f, seed);
  // f32 GEMMs and reductions accumulate in f32 on cpu, in f64 on the reference.
  return testing::compare_results(interpret(*f, args), exe->run(args), 1e-4, 1e-4);
}

void check_seeds(uint64_t first, uint64_t count) {
  int failures = 0;
  for (uint64_t seed = first; seed < first + count && failures < 3; ++seed) {
    FunctionPtr f = testing::random_program(seed);
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

TEST(CpuRandomPrograms, MatchTheReference) { check_seeds(1, 400); }

TEST(CpuRandomPrograms, FuzzSeedsFromEnvironment) {
  const char* n = std::getenv("LAZAX_CPU_FUZZ_SEEDS");
  if (!n) GTEST_SKIP() << "set LAZAX_CPU_FUZZ_SEEDS=N to run N more seeds";
  check_seeds(1000000, std::strtoull(n, nullptr, 10));
}

}  // namespace
}  // namespace lazax
