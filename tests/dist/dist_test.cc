// The collectives in one process (no launcher: a world of one), their shape rules and text form,
// and the passes' promise to keep them. The multi-rank semantics are tests/dist/mpi/.
#include <gtest/gtest.h>

#include <string>

#include "lazax/ir/printer.h"
#include "lazax/lazax.h"
#include "lazax/passes/passes.h"

namespace lazax {
namespace {

Tensor input() { return from_vector<float>({1, -2, 3, 4.5F, -5, 6}, {2, 3}); }

TEST(Dist, WithoutALauncherTheWorldIsOneProcess) {
  EXPECT_FALSE(dist::uses_mpi());
  EXPECT_EQ(dist::rank(), 0);
  EXPECT_EQ(dist::world_size(), 1);
  dist::barrier();  // nothing to wait for
}

TEST(Dist, EachCollectiveIsTheIdentityInAWorldOfOne) {
  const std::vector<float> x = input().to_vector<float>();
  for (const Tensor& y :
       {psum(input()), pmean(input()), pmax(input()), pmin(input()), all_gather(input(), 1),
        psum_scatter(input(), 0), all_to_all(input(), 0, 1), broadcast_from(input(), 0)}) {
    EXPECT_EQ(y.sizes(), input().sizes());
    EXPECT_EQ(y.to_vector<float>(), x);
  }
  EXPECT_EQ(axis_index().item(), 0.0);
}

TEST(Dist, GradientsInAWorldOfOneAreThoseOfTheIdentity) {
  for (int k = 0; k < 6; ++k) {
    Tensor x = input().requires_grad_();
    Tensor y = k == 0   ? psum(x)
               : k == 1 ? pmax(x)
               : k == 2 ? all_gather(x, 0)
               : k == 3 ? psum_scatter(x, 1)
               : k == 4 ? all_to_all(x, 1, 0)
                        : broadcast_from(x, 0);
    (y * y).sum().backward();
    EXPECT_EQ(x.grad().to_vector<float>(), (2.0 * input()).to_vector<float>()) << k;
  }
}

TEST(Dist, AGroupThatDoesNotDivideTheWorldIsAValueError) {
  try {
    psum(input(), 2);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[all_reduce] a replica group of 2 ranks in a world of 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(Dist, ShapeRulesCheckDivisibilityAndDtypes) {
  const TensorType f{DType::f32, Shape{6, 3}};
  EXPECT_EQ(infer_types(OpCode::all_gather, {&f, 1}, AllGatherAttrs{1, 4})[0],
            (TensorType{DType::f32, Shape{6, 12}}));
  EXPECT_EQ(
      infer_types(OpCode::reduce_scatter, {&f, 1}, ReduceScatterAttrs{ReduceKind::sum, 0, 3})[0],
      (TensorType{DType::f32, Shape{2, 3}}));
  EXPECT_EQ(infer_types(OpCode::all_to_all, {&f, 1}, AllToAllAttrs{0, 1, 2})[0],
            (TensorType{DType::f32, Shape{3, 6}}));
  try {
    infer_types(OpCode::reduce_scatter, {&f, 1}, ReduceScatterAttrs{ReduceKind::sum, 1, 2});
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[reduce_scatter] axis 1 of f32[6,3] has size 3"),
              std::string::npos)
        << e.what();
  }
  const TensorType i{DType::i32, Shape{4}};
  EXPECT_THROW(infer_types(OpCode::all_reduce, {&i, 1}, AllReduceAttrs{ReduceKind::mean, 2}),
               DTypeError);
  EXPECT_THROW(infer_types(OpCode::collective_broadcast, {&f, 1}, CollectiveBroadcastAttrs{2, 2}),
               ShapeError);
}

TEST(Dist, ThePassesKeepEveryCollectiveInOrder) {
  // Two identical all_reduces of the same value and one of a constant: CSE merges none and
  // constant folding evaluates none, so every rank runs the three, in this order.
  const char* text =
      "func @main(%x: f32[4]) -> (f32[4]) {\n"
      "  %c = constant() {value=f32[4] [1, 2, 3, 4]} : f32[4]\n"
      "  %0 = all_reduce(%x) {reduce=sum, group_size=1} : f32[4]\n"
      "  %1 = all_reduce(%x) {reduce=sum, group_size=1} : f32[4]\n"
      "  %2 = all_reduce(%c) {reduce=max, group_size=1} : f32[4]\n"
      "  %3 = add(%0, %1) : f32[4]\n"
      "  %4 = add(%3, %2) : f32[4]\n"
      "  return %4\n}\n";
  FunctionPtr f = passes::optimize(parse_program(text));
  std::vector<ReduceKind> kinds;
  for (const Node& n : f->nodes())
    if (n.op == OpCode::all_reduce) kinds.push_back(std::get<AllReduceAttrs>(n.attrs).reduce);
  EXPECT_EQ(kinds, (std::vector<ReduceKind>{ReduceKind::sum, ReduceKind::sum, ReduceKind::max}))
      << print_program(*f);
}

}  // namespace
}  // namespace lazax
