// schedule_collectives (the cpu backend's kernels.h): a started all_reduce or reduce_scatter
// moves up, with the steps that only feed it, to just after its operand is ready; nothing passes
// another collective or a control step; and a compiled program counts the steps that run while
// a collective is in flight (PlanStats::overlapped).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels.h"
#include "lazax/backend/backend.h"
#include "lazax/ir/printer.h"

namespace lazax::cpu {
namespace {

// Steps built by hand: each names its node (the op decides what moves) and its slots.
struct Plan {
  std::vector<Node> nodes;  // reserved up front: steps point into it
  std::vector<Step> steps;
  Plan() { nodes.reserve(32); }
  void add(OpCode op, std::vector<int32_t> in, int32_t out) {
    nodes.push_back(Node{.op = op});
    Step s;
    s.node = &nodes.back();
    s.fn = op == OpCode::all_reduce || op == OpCode::reduce_scatter || op == OpCode::all_gather
               ? &run_collective
               : &run_fallback;
    s.in = std::move(in);
    s.out = {out};
    steps.push_back(std::move(s));
  }
  // The order after scheduling, as the output slot of each step.
  std::vector<int32_t> scheduled(std::vector<int32_t> results) {
    schedule_collectives(steps, results);
    std::vector<int32_t> order;
    for (const Step& s : steps) order.push_back(s.out[0]);
    return order;
  }
};

// Slot 0 is the parameter.
TEST(CpuSchedule, AnAllReduceMovesUpToJustAfterItsOperand) {
  Plan p;
  p.add(OpCode::add, {0}, 1);  // the all_reduce's operand
  p.add(OpCode::exp, {0}, 2);  // unrelated work, recorded before the all_reduce
  p.add(OpCode::exp, {2}, 3);
  p.add(OpCode::all_reduce, {1}, 4);  // recorded late, as data parallel records it
  p.add(OpCode::add, {3, 4}, 5);
  EXPECT_EQ(p.scheduled({5}), (std::vector<int32_t>{1, 4, 2, 3, 5}));
}

TEST(CpuSchedule, TheStepsThatOnlyFeedItMoveWithIt) {
  Plan p;
  p.add(OpCode::exp, {0}, 1);  // unrelated
  p.add(OpCode::exp, {1}, 2);
  p.add(OpCode::neg, {0}, 3);     // a gradient, read only by the bucket
  p.add(OpCode::add, {3, 3}, 4);  // the bucket
  p.add(OpCode::all_reduce, {4}, 5);
  p.add(OpCode::add, {2, 5}, 6);
  EXPECT_EQ(p.scheduled({6}), (std::vector<int32_t>{3, 4, 5, 1, 2, 6}));
}

TEST(CpuSchedule, AStepAnotherStepReadsStaysWhereItIs) {
  Plan p;
  p.add(OpCode::neg, {0}, 1);  // read by the all_reduce and by step 3
  p.add(OpCode::exp, {0}, 2);
  p.add(OpCode::add, {1, 2}, 3);
  p.add(OpCode::all_reduce, {1}, 4);
  p.add(OpCode::add, {3, 4}, 5);
  EXPECT_EQ(p.scheduled({5}), (std::vector<int32_t>{1, 4, 2, 3, 5}));
  // A result is not the all_reduce's alone either: it stays, and the all_reduce follows it.
  for (bool result : {false, true}) {
    Plan q;
    q.add(OpCode::exp, {0}, 1);
    q.add(OpCode::neg, {0}, 2);
    q.add(OpCode::all_reduce, {2}, 3);
    std::vector<int32_t> results = {1, 3};
    if (result) results.push_back(2);
    EXPECT_EQ(q.scheduled(results),
              result ? (std::vector<int32_t>{1, 2, 3}) : (std::vector<int32_t>{2, 3, 1}));
  }
}

TEST(CpuSchedule, NoCollectivePassesAnotherOrAControlStep) {
  Plan p;
  p.add(OpCode::exp, {0}, 1);
  p.add(OpCode::all_reduce, {1}, 2);  // A
  p.add(OpCode::all_reduce, {0}, 3);  // B: its operand is ready first, but B stays after A
  EXPECT_EQ(p.scheduled({2, 3}), (std::vector<int32_t>{1, 2, 3}));
  Plan q;
  q.add(OpCode::exp, {0}, 1);
  q.add(OpCode::all_gather, {1}, 2);  // blocking, but still in the collective sequence
  q.add(OpCode::exp, {0}, 3);
  q.add(OpCode::all_reduce, {0}, 4);
  EXPECT_EQ(q.scheduled({2, 3, 4}), (std::vector<int32_t>{1, 2, 4, 3}));
  Plan w;
  w.add(OpCode::exp, {0}, 1);
  w.add(OpCode::while_, {1}, 2);  // its body may run collectives
  w.add(OpCode::all_reduce, {0}, 3);
  EXPECT_EQ(w.scheduled({2, 3}), (std::vector<int32_t>{1, 2, 3}));
}

TEST(CpuSchedule, ACompiledProgramCountsTheStepsThatOverlapTheCollective) {
  // Three GEMMs (one step each) recorded before an all_reduce of the parameter x: the all_reduce
  // starts first and is waited for by the final add, so the three run while it is in flight.
  // In a world of one it is a copy, so the result is x + w^4 whatever the order.
  const std::string dot =
      "{lhs_batch=[], rhs_batch=[], lhs_contracting=[1], rhs_contracting=[0]} : f32[8,8]\n";
  FunctionPtr f = parse_program(
      "func @main(%x: f32[8,8], %w: f32[8,8]) -> (f32[8,8]) {\n"
      "  %0 = dot_general(%w, %w) " +
      dot + "  %1 = dot_general(%0, %w) " + dot + "  %2 = dot_general(%1, %w) " + dot +
      "  %3 = all_reduce(%x) {reduce=sum, group_size=1} : f32[8,8]\n"
      "  %4 = add(%3, %2) : f32[8,8]\n"
      "  return %4\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().collective, 1);
  EXPECT_EQ(exe->plan_stats().overlapped, 3);
  std::vector<Literal> args;
  for (int k = 0; k < 2; ++k) {
    Literal a = Literal::zeros(TensorType{DType::f32, Shape{8, 8}});
    for (int64_t i = 0; i < 64; ++i) a.data<float>()[i] = static_cast<float>((i * (k + 3)) % 7) / 8;
    args.push_back(std::move(a));
  }
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe->run(args);
  for (int64_t i = 0; i < 64; ++i)
    EXPECT_NEAR(got[0].data<float>()[i], want[0].data<float>()[i], 1e-5) << i;
}

}  // namespace
}  // namespace lazax::cpu
