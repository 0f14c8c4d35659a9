// split_shared_broadcasts (the cpu backend's fused.h): a broadcast read by a fused group other
// than its own is copied into that group, so no group writes a broadcast out whole for another.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fused.h"
#include "lazax/backend/backend.h"
#include "lazax/ir/builder.h"
#include "lazax/ir/printer.h"

namespace lazax::cpu {
namespace {

// A softmax whose row sums (broadcast, %3) and scale (broadcast of a scalar, %5) a second group
// reads again after a GEMM, as a softmax's backward does.
constexpr const char* kSoftmaxThenBackward = R"(
func @main(%x: f32[64,256], %w: f32[256,256], %s: f32[]) -> (f32[64,256]) {
  %0 = exp(%x) : f32[64,256]
  %1 = reduce_sum(%0) {axes=[1]} : f32[64]
  %2 = reshape(%1) {new_sizes=[64,1]} : f32[64,1]
  %3 = broadcast_in_dim(%2) {shape=[64,256], broadcast_dimensions=[0, 1]} : f32[64,256]
  %4 = div(%0, %3) : f32[64,256]
  %5 = broadcast_in_dim(%s) {shape=[64,256], broadcast_dimensions=[]} : f32[64,256]
  %6 = mul(%4, %5) : f32[64,256]
  %7 = dot_general(%6, %w) {lhs_batch=[], rhs_batch=[],
      lhs_contracting=[1], rhs_contracting=[0]} : f32[64,256]
  %8 = div(%7, %3) : f32[64,256]
  %9 = mul(%8, %5) : f32[64,256]
  %10 = add(%9, %0) : f32[64,256]
  return %10
}
)";

// Each node's group in `groups` (-1: none).
std::vector<int32_t> group_of(const Function& f, const std::vector<FusionGroup>& groups) {
  std::vector<int32_t> of(f.nodes().size(), -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int32_t m : groups[g].members) of[static_cast<size_t>(m)] = static_cast<int32_t>(g);
  return of;
}

TEST(CpuSplitBroadcasts, AGroupReadingAnotherGroupsBroadcastGetsItsOwnCopy) {
  FunctionPtr f = parse_program(kSoftmaxThenBackward);
  std::vector<FusionGroup> groups = fuse_groups(*f);
  std::vector<int32_t> of = group_of(*f, groups);
  auto group_of_value = [&](int k) { return of[static_cast<size_t>(f->num_params() + k)]; };
  ASSERT_GE(group_of_value(4), 0);
  ASSERT_GE(group_of_value(9), 0);
  ASSERT_NE(group_of_value(4), group_of_value(9)) << "the GEMM between them splits the groups";
  ASSERT_EQ(group_of_value(3), group_of_value(4))
      << "the row sums' broadcast is made in the softmax's group";

  FunctionPtr g = split_shared_broadcasts(f, groups);
  ASSERT_NE(g, f);
  verify(*g);
  int broadcasts = 0;
  for (const Node& n : g->nodes()) broadcasts += n.op == OpCode::broadcast_in_dim;
  EXPECT_EQ(broadcasts, 4) << "each of the two broadcasts once per group: " << print_program(*g);
  std::vector<FusionGroup> regrouped = fuse_groups(*g);
  std::vector<int32_t> of2 = group_of(*g, regrouped);
  for (size_t i = 0; i < g->nodes().size(); ++i) {
    for (ValueRef v : g->nodes()[i].operands) {
      const Node& b = g->node(v.node);
      if (b.op != OpCode::broadcast_in_dim || of2[i] < 0) continue;
      EXPECT_EQ(of2[static_cast<size_t>(v.node)], of2[i])
          << "node " << i << " reads a broadcast of another group: " << print_program(*g);
    }
  }
  EXPECT_EQ(split_shared_broadcasts(g, regrouped), g) << "nothing left to copy";
}

TEST(CpuSplitBroadcasts, TheProgramComputesWhatTheReferenceDoes) {
  FunctionPtr f = parse_program(kSoftmaxThenBackward);
  std::vector<Literal> args;
  for (const TensorType& t : f->param_types()) {
    Literal l = Literal::zeros(t);
    for (int64_t i = 0; i < l.numel(); ++i)
      l.data<float>()[i] = static_cast<float>((i * 37) % 101) / 101.0f - 0.5f;
    args.push_back(std::move(l));
  }
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = make_backend("cpu")->compile(f)->run(args);
  for (int64_t i = 0; i < want[0].numel(); ++i)
    ASSERT_NEAR(got[0].data<float>()[i], want[0].data<float>()[i], 1e-4) << i;
}

// A broadcast read only inside its own group, or by a node no group holds, is left alone.
TEST(CpuSplitBroadcasts, ABroadcastReadInItsOwnGroupStays) {
  FunctionPtr f = parse_program(R"(
func @main(%x: f32[64,256], %s: f32[]) -> (f32[64,256], f32[64,256]) {
  %0 = broadcast_in_dim(%s) {shape=[64,256], broadcast_dimensions=[]} : f32[64,256]
  %1 = mul(%x, %0) : f32[64,256]
  %2 = add(%1, %0) : f32[64,256]
  %3 = transpose(%0) {permutation=[1, 0]} : f32[256,64]
  %4 = reshape(%3) {new_sizes=[64,256]} : f32[64,256]
  return %2, %4
}
)");
  EXPECT_EQ(split_shared_broadcasts(f, fuse_groups(*f)), f);
}

}  // namespace
}  // namespace lazax::cpu
