// Every primitive under vmap equals the primitive run on each example and stacked, on the
// reference interpreter and on cpu; the op table's rows all have a case, and the rows that use
// the per-example fallback are exactly the documented ones (docs/VMAP.md: none).
#include <gtest/gtest.h>

#include <set>

#include "lazax/autodiff/batching.h"
#include "lazax/runtime/context.h"
#include "op_cases.h"

namespace lazax::vmap_test {
namespace {

TEST(VmapOpTable, EveryPrimitiveHasARuleAndACase) {
  std::set<std::string> covered;
  for (const OpCase& c : op_cases())
    for (const std::string& op : c.ops) covered.insert(op);
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpCode>(i);
    EXPECT_NE(autodiff::batch_rule(op), nullptr) << op_name(op);
    EXPECT_TRUE(covered.count(std::string(op_name(op)))) << op_name(op) << " has no vmap case";
  }
}

TEST(VmapOpTable, TheFallbackRowsAreTheDocumentedOnes) {
  // docs/VMAP.md, "The fallback": keep the two lists equal. Every op has its own rule now; the
  // fallback is kept for an op whose rule would be wasteful.
  const std::set<std::string> documented = {};
  std::set<std::string> flagged;
  for (int i = 0; i < kNumOps; ++i)
    if (has_flag(static_cast<OpCode>(i), kBatchByLoop))
      flagged.insert(std::string(op_name(static_cast<OpCode>(i))));
  EXPECT_EQ(flagged, documented);
}

class VmapOps : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    saved_ = Context::get().backend().name();
    Context::get().set_backend(GetParam());
  }
  void TearDown() override { Context::get().set_backend(saved_); }
  std::string saved_;
};

TEST_P(VmapOps, EqualsTheLoopOverExamples) {
  std::mt19937 rng(28);
  for (const OpCase& c : op_cases()) {
    // Each case twice: its axes are drawn at random.
    for (int rep = 0; rep < 2; ++rep) {
      try {
        expect_vmap_matches_loop(c.ops[0], c.fn, c.inputs, rng, 3, c.tol);
      } catch (const Error& e) {
        ADD_FAILURE() << c.ops[0] << ": " << e.what();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, VmapOps, ::testing::Values("reference", "cpu"));

}  // namespace
}  // namespace lazax::vmap_test
