// The purity check of assume_pure (PureOptions::check_pure, or Options::check_pure:
// LAZAX_CHECK_PURE=1): every call re-traces the function and compares the program with the cached
// one. Pure functions must pass it call after call (captured parameters updated in place, random
// numbers, static arguments, gradients); an impure one fails it (assume_pure_test.cc names the
// node).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "lazax/api/random.h"
#include "lazax/autodiff/pure.h"
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"
#include "pure_test_util.h"

using namespace lazax;
using lazax::pure_test::vec;

namespace {

int64_t counter(const char* name) { return metrics::counter(name).get(); }

// Sets the Context's Options::check_pure (what LAZAX_CHECK_PURE sets) for one scope and restores
// the value it had before, so that the tests after it, in any order, see the options they
// started with.
class ScopedCheckPure {
 public:
  explicit ScopedCheckPure(bool on) : old_(Context::get().options().check_pure) {
    Context::get().options().check_pure = on;
  }
  ~ScopedCheckPure() { Context::get().options().check_pure = old_; }
  ScopedCheckPure(const ScopedCheckPure&) = delete;
  ScopedCheckPure& operator=(const ScopedCheckPure&) = delete;

 private:
  bool old_;
};

// A function whose program depends on host state: a different program from the second call on.
auto impure_function(int& calls, PureOptions opts = {"leaky"}) {
  return assume_pure(
      [&calls](const Tensor& x) {
        ++calls;
        return calls > 1 ? x * 3.0 + 1.0 : exp(x);
      },
      std::move(opts));
}

}  // namespace

TEST(CheckPure, PureFunctionsPassCallAfterCall) {
  Tensor w = from_vector<float>({0.5f, -1.0f, 2.0f}, {3});
  w.requires_grad_();
  int traced = 0;
  auto f = assume_pure(
      [&](const Tensor& x, int power) {
        ++traced;
        Tensor r = x;
        for (int i = 1; i < power; ++i) r = r * x;
        return tanh(r * w + 0.25) * 2.0;  // w is captured: read afresh on every call
      },
      PureOptions{"pure_layer", true});
  Tensor x = from_vector<float>({0.1f, 0.2f, -0.3f}, {3});
  int64_t traces = counter("PureTraces");
  const int kCalls = 4;
  for (int step = 0; step < kCalls; ++step) {
    int power = 1 + step % 2;  // two static signatures, each called twice
    Tensor y;
    ASSERT_NO_THROW(y = f(x, power)) << "call " << step;
    // Same values as the plain code with the current w.
    std::vector<float> got = vec(y), xv = vec(x), wv = vec(w);
    for (size_t i = 0; i < got.size(); ++i) {
      float r = power == 1 ? xv[i] : xv[i] * xv[i];
      EXPECT_NEAR(got[i], std::tanh(r * wv[i] + 0.25f) * 2.0f, 1e-5f) << "call " << step;
    }
    y.sum().backward();
    ASSERT_TRUE(w.grad().defined());
    {
      NoGrad off;
      w.sub_(w.grad() * 0.1);  // an in-place update of the capture: same program next call
    }
    zero_grad({w});
    lazax::sync();
  }
  // The check re-traced on every call (that is what makes it a check), and kept one entry per
  // static signature.
  EXPECT_EQ(traced, kCalls);
  EXPECT_EQ(counter("PureTraces") - traces, kCalls);
  EXPECT_EQ(f.cache_size(), 2u);
}

// Random numbers advance the generator by an in-place update inside the trace, which is undone
// and written back after the call: the program is the same on every call, the numbers are not.
TEST(CheckPure, RandomNumbersAreStillPure) {
  manual_seed(3);
  auto noisy =
      assume_pure([](const Tensor& x) { return x + randn({4}); }, PureOptions{"noisy", true});
  Tensor x = zeros({4});
  std::vector<float> first, second;
  ASSERT_NO_THROW(first = vec(noisy(x)));
  ASSERT_NO_THROW(second = vec(noisy(x)));
  ASSERT_NO_THROW(noisy(x));
  EXPECT_NE(first, second);
}

// The impure function passes unnoticed without the check (the cached program runs), and fails it
// with the check on.
TEST(CheckPure, ImpureFunctionFailsOnlyWithTheCheck) {
  int calls = 0;
  auto unchecked = impure_function(calls, PureOptions{"leaky", false});
  Tensor x = zeros({2});
  unchecked(x);
  EXPECT_NO_THROW(unchecked(x));
  EXPECT_EQ(vec(unchecked(x)), (std::vector<float>{1, 1}));  // exp(0): the first trace
  EXPECT_EQ(calls, 1);
  int checked_calls = 0;
  auto checked = impure_function(checked_calls, PureOptions{"leaky", true});
  checked(x);
  EXPECT_THROW(checked(x), ImpureFunctionError);
}

// Options::check_pure (LAZAX_CHECK_PURE, read into the Context's options at its creation) is read
// when an assume_pure/jit object is made (detail::check_pure_default in PureFunction's
// constructor). So the test sets the option (restored by ScopedCheckPure, whatever order or
// repeat the tests run in) and then makes the object.
TEST(CheckPure, OptionSwitch) {
  Tensor x = zeros({2});
  auto second_call_throws = [&](bool on) {
    ScopedCheckPure option(on);
    EXPECT_EQ(detail::check_pure_default(), on);
    int calls = 0;
    auto f = impure_function(calls);  // PureOptions::check_pure left false
    f(x);
    try {
      f(x);
    } catch (const ImpureFunctionError& e) {
      EXPECT_NE(std::string(e.what()).find("leaky"), std::string::npos) << e.what();
      return true;
    }
    return false;
  };
  EXPECT_TRUE(second_call_throws(true));
  EXPECT_FALSE(second_call_throws(false));
  // The object keeps the setting it was made with.
  int calls = 0;
  auto made_with_check = [&] {
    ScopedCheckPure option(true);
    return impure_function(calls);
  }();
  made_with_check(x);
  EXPECT_THROW(made_with_check(x), ImpureFunctionError);
  // A pure function passes with the switch on.
  ScopedCheckPure option(true);
  auto pure = assume_pure([](const Tensor& t) { return sin(t) * 2.0; });
  for (int i = 0; i < 3; ++i) EXPECT_NO_THROW(pure(x)) << "call " << i;
}
