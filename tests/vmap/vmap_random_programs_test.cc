// The random-program generator's vmap mode (tests/common/random_program.h): on random
// well-typed programs (elementwise, layout, reductions, dot_general, calls, cond, scan, while),
// vmap of the program over random batch axes equals the program run on each example and
// stacked, on the reference interpreter and on cpu.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "lazax/autodiff/eval_function.h"
#include "lazax/ir/printer.h"
#include "lazax/runtime/context.h"
#include "random_program.h"
#include "vmap_test_util.h"

namespace lazax::vmap_test {
namespace {

// "" when vmap of f matches the loop on the examples of `seed`, else what differs.
std::string mismatch(const FunctionPtr& f, uint64_t seed, int64_t& compared) {
  const int64_t size = 3;
  testing::VmapArguments va = testing::random_vmap_arguments(*f, seed, size);
  auto run = [f](const Tensors& xs) { return autodiff::eval_function(*f, xs); };
  std::vector<Tensors> per_example;
  for (const auto& ex : va.examples) {
    Tensors args;
    for (const Literal& l : ex) args.push_back(Tensor(l.clone()));
    per_example.push_back(run(args));
  }
  Tensors args;
  std::vector<Axis> axes;
  for (size_t i = 0; i < va.in_axes.size(); ++i) {
    axes.push_back(va.in_axes[i]);
    if (!va.in_axes[i]) {
      args.emplace_back(va.examples[0][i].clone());
      continue;
    }
    Tensors col;
    for (const auto& ex : va.examples) col.emplace_back(ex[i].clone());
    const auto rank = static_cast<int64_t>(f->param_type(static_cast<int>(i)).shape.rank());
    const int64_t a = *va.in_axes[i] < 0 ? *va.in_axes[i] + rank + 1 : *va.in_axes[i];
    args.push_back(stack(col, a));
  }
  Tensors got = vmap(run, {.in_axes = {AxisSpec(axes)}})(args);
  for (size_t r = 0; r < got.size(); ++r) {
    Tensors col;
    for (const Tensors& ex : per_example) col.push_back(ex[r]);
    Tensor want = stack(col, 0);
    if (got[r].type_str() != want.type_str())
      return "result " + std::to_string(r) + ": " + got[r].type_str() + " vs " + want.type_str();
    std::vector<double> g = values(got[r]), w = values(want);
    compared += static_cast<int64_t>(g.size());
    for (size_t i = 0; i < g.size(); ++i) {
      const bool same = std::isnan(w[i]) ? std::isnan(g[i])
                                         : std::abs(g[i] - w[i]) <= 1e-4 * (1 + std::abs(w[i]));
      if (!same) {
        return "result " + std::to_string(r) + " at " + std::to_string(i) + ": " +
               std::to_string(g[i]) + " vs " + std::to_string(w[i]);
      }
    }
  }
  return "";
}

class VmapRandomPrograms : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    saved_ = Context::get().backend().name();
    Context::get().set_backend(GetParam());
  }
  void TearDown() override { Context::get().set_backend(saved_); }
  std::string saved_;
};

TEST_P(VmapRandomPrograms, EqualTheLoopOverExamples) {
  int failures = 0, with_control_flow = 0;
  int64_t compared = 0;
  for (uint64_t seed = 1; seed <= 200 && failures < 3; ++seed) {
    FunctionPtr f = testing::random_program(seed);
    for (const Node& n : f->nodes())
      if (n.op == OpCode::cond || n.op == OpCode::scan || n.op == OpCode::while_) {
        ++with_control_flow;
        break;
      }
    std::string d;
    try {
      d = mismatch(f, seed, compared);
    } catch (const Error& e) {
      d = std::string("threw: ") + e.what();
    }
    if (d.empty()) continue;
    ++failures;
    ADD_FAILURE() << "seed " << seed << ": " << d << "\nprogram:\n" << print_program(*f);
  }
  // The check compared something, and on programs with control flow.
  EXPECT_GT(with_control_flow, 20);
  EXPECT_GT(compared, 2000);
  std::printf("%d programs with control flow, %lld elements compared\n", with_control_flow,
              static_cast<long long>(compared));
}

INSTANTIATE_TEST_SUITE_P(Backends, VmapRandomPrograms, ::testing::Values("reference", "cpu"));

}  // namespace
}  // namespace lazax::vmap_test
