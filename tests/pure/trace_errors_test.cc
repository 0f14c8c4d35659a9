// The same rules inside a traced function as outside, and errors that say where they happened:
// an in-place update of a leaf that requires grad raises inside assume_pure/jit as it does in
// plain code (on the call that traces and on cached calls); an error raised while tracing names
// the traced function; ImpureFunctionError shows the values that differ.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "lazax/autodiff/pure.h"
#include "pure_test_util.h"

using namespace lazax;
using lazax::pure_test::vec;

namespace {

bool has(const std::string& m, const std::string& part) {
  return m.find(part) != std::string::npos;
}

// Calls f(args...) expecting the in-place-on-leaf ValueError naming `op` and `fn`.
template <class F, class... Args>
void expect_leaf_in_place_error(F& f, const char* op, const char* fn, const Args&... args) {
  try {
    f(args...);
    FAIL() << "expected a ValueError for " << op << " on a leaf that requires grad";
  } catch (const ValueError& e) {
    std::string m = e.what();
    EXPECT_TRUE(has(m, std::string("[") + op + "]")) << m;
    EXPECT_TRUE(has(m, "leaf tensor that requires grad")) << m;
    EXPECT_TRUE(has(m, "NoGrad")) << m;
    EXPECT_TRUE(has(m, fn)) << m;
  }
}
}  // namespace

TEST(TraceErrors, InPlaceOnCapturedLeafThatRequiresGradRaisesAsOutside) {
  Tensor w = from_vector<float>({1, 2}, {2}).requires_grad_();
  EXPECT_THROW(w.add_(1.0), ValueError);  // plain code
  auto bump = assume_pure(
      [&](const Tensor& x) {
        w.add_(1.0);
        return x * 2.0;
      },
      PureOptions{"bump_w"});
  Tensor x = ones({2});
  for (int call = 0; call < 2; ++call) {  // the call that traces, then a cached one
    expect_leaf_in_place_error(bump, "add_", "bump_w", x);
    EXPECT_EQ(vec(w), (std::vector<float>{1, 2})) << "call " << call;  // nothing changed
  }
  // Under NoGrad it is allowed, as outside (an optimizer's update).
  {
    NoGrad off;
    bump(x);
  }
  EXPECT_EQ(vec(w), (std::vector<float>{2, 3}));
  EXPECT_TRUE(w.requires_grad());
  // jit is the same mechanism; operator*= is mul_.
  auto scale = jit(
      [&](const Tensor& x) {
        w *= 2.0;
        return x + 1.0;
      },
      PureOptions{"scale_w"});
  for (int call = 0; call < 2; ++call) expect_leaf_in_place_error(scale, "mul_", "scale_w", x);
  EXPECT_EQ(vec(w), (std::vector<float>{2, 3}));
  // Called from another traced function: the outer call checks it, naming the op.
  auto outer = jit([&](const Tensor& x) { return bump(x) - 1.0; }, PureOptions{"calls_bump"});
  for (int call = 0; call < 2; ++call) expect_leaf_in_place_error(outer, "add_", "calls_bump", x);
  EXPECT_EQ(vec(w), (std::vector<float>{2, 3}));
  {
    NoGrad off;
    EXPECT_EQ(vec(outer(x)), (std::vector<float>{1, 1}));
  }
  EXPECT_EQ(vec(w), (std::vector<float>{3, 4}));
}

TEST(TraceErrors, InPlaceUnderNoGradInsideTheFunctionIsAllowed) {
  // As an optimizer's step inside a jitted train step: the body's own NoGrad allows it.
  Tensor w = from_vector<float>({1, 2}, {2}).requires_grad_();
  auto step = jit([&](const Tensor& g) {
    NoGrad off;
    w.sub_(g * 0.5);
    return g * 1.0;
  });
  Tensor g = from_vector<float>({2, 4}, {2});
  step(g);
  step(g);
  EXPECT_EQ(vec(w), (std::vector<float>{-1, -2}));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
}

TEST(TraceErrors, InPlaceOnArgumentLeafThatRequiresGradRaisesAsOutside) {
  auto bump = assume_pure(
      [](Tensor x) {
        x += 1.0;
        return x * 2.0;
      },
      PureOptions{"bump_arg"});
  Tensor w = from_vector<float>({1, 2}, {2}).requires_grad_();
  for (int call = 0; call < 2; ++call) {
    expect_leaf_in_place_error(bump, "add_", "bump_arg", w);
    EXPECT_EQ(vec(w), (std::vector<float>{1, 2}));
  }
  {
    NoGrad off;
    EXPECT_EQ(vec(bump(w)), (std::vector<float>{4, 6}));
  }
  EXPECT_EQ(vec(w), (std::vector<float>{2, 3}));
  // A tensor that does not require grad, and a non-leaf (as outside), may be updated.
  Tensor a = from_vector<float>({1, 2}, {2});
  bump(a);
  EXPECT_EQ(vec(a), (std::vector<float>{2, 3}));
  Tensor h = w * 1.0;
  EXPECT_EQ(vec(bump(h)), (std::vector<float>{6, 8}));
  EXPECT_EQ(vec(h), (std::vector<float>{3, 4}));
}

TEST(TraceErrors, ShapeErrorWhileTracingNamesTheFunction) {
  auto bad = assume_pure(
      [](const Tensor& x) {
        return matmul(x, ones({5, 2}));
      },
      PureOptions{"bad_matmul"});
  for (int call = 0; call < 2; ++call) {  // nothing cached: each call traces and fails
    try {
      bad(ones({2, 3}));
      FAIL() << "expected ShapeError";
    } catch (const ShapeError& e) {
      std::string m = e.what();
      EXPECT_TRUE(has(m, "while tracing the function 'bad_matmul'")) << m;
      EXPECT_TRUE(has(m, "trace_errors_test.cc:")) << m;  // where it was made
    }
  }
  // Nested: the inner function first, then the one that called it; each named once.
  auto outer = jit([&](const Tensor& x) { return bad(x) + 1.0; }, PureOptions{"outer_fn"});
  try {
    outer(ones({2, 3}));
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string m = e.what();
    size_t inner_at = m.find("'bad_matmul'"), outer_at = m.find("'outer_fn'");
    ASSERT_NE(inner_at, std::string::npos) << m;
    ASSERT_NE(outer_at, std::string::npos) << m;
    EXPECT_LT(inner_at, outer_at) << m;
    EXPECT_EQ(m.find("'bad_matmul'", inner_at + 1), std::string::npos) << m;
  }
  // A ConcretizationError already names its function: not twice.
  auto read =
      assume_pure([](const Tensor& x) { return x * x.sum().item(); }, PureOptions{"reads_value"});
  try {
    read(ones({2}));
    FAIL() << "expected ConcretizationError";
  } catch (const ConcretizationError& e) {
    std::string m = e.what();
    size_t at = m.find("'reads_value'");
    ASSERT_NE(at, std::string::npos) << m;
    EXPECT_EQ(m.find("'reads_value'", at + 1), std::string::npos) << m;
  }
}

TEST(TraceErrors, ImpureFunctionErrorShowsTheDifferingValues) {
  double factor = 2.0;
  auto f = assume_pure([&](const Tensor& x) { return x * factor; },  // reads a host value
                       PureOptions{"reads_factor", /*check_pure=*/true});
  Tensor x = ones({2});
  f(x);
  factor = 3.5;
  try {
    f(x);
    FAIL() << "expected ImpureFunctionError";
  } catch (const ImpureFunctionError& e) {
    std::string m = e.what();
    EXPECT_TRUE(has(m, "reads_factor")) << m;
    EXPECT_TRUE(has(m, "[2]")) << m;
    EXPECT_TRUE(has(m, "[3.5]")) << m;
  }
}

// Trap 3: `if (t)` on a tracer names the traced function and the user's file where it was made,
// never lazax's own source (a conversion to bool gets no caller location in C++); printing a
// tracer shows what it is, as JAX prints a tracer, instead of raising.
TEST(TraceErrors, BoolConversionPointsAtTheUsersFunctionNotLazax) {
  auto branchy = assume_pure(
      [](const Tensor& x) {
        if (x.sum()) return x;
        return -x;
      },
      PureOptions{"branchy_bool"});
  try {
    branchy(ones({1}));
    FAIL() << "expected TracerBoolConversionError";
  } catch (const TracerBoolConversionError& e) {
    std::string m = e.what();
    EXPECT_TRUE(has(m, "converting it to bool")) << m;
    EXPECT_TRUE(has(m, "branchy_bool")) << m;
    EXPECT_TRUE(has(m, "trace_errors_test.cc")) << m;  // where the function was made
    EXPECT_TRUE(has(m, "reduce_sum")) << m;
    EXPECT_FALSE(has(m, "tensor.cc")) << m;  // not lazax's own source
    EXPECT_TRUE(has(m, "lazax::cond")) << m;
  }
}

TEST(TraceErrors, PrintingATracerShowsItsTypeAndFunction) {
  std::string printed;
  auto show = assume_pure(
      [&](const Tensor& x) {
        std::ostringstream s;
        s << x * 2.0;
        printed = s.str();
        return x + 1.0;
      },
      PureOptions{"shown"});
  EXPECT_EQ(vec(show(ones({2}))), (std::vector<float>{2, 2}));
  EXPECT_TRUE(has(printed, "Tracer(f32[2]")) << printed;
  EXPECT_TRUE(has(printed, "mul")) << printed;
  EXPECT_TRUE(has(printed, "shown")) << printed;
  std::ostringstream plain;
  plain << ones({2});  // outside a trace: the values
  EXPECT_TRUE(has(plain.str(), "1")) << plain.str();
  EXPECT_FALSE(has(plain.str(), "Tracer")) << plain.str();
}
