// The tape saves an op's inputs as the caller's handles (no copy per input); an in-place op on a
// saved handle hands the tape entries a copy of the old value first. These tests check that the
// backward still sees the values the ops were given, in every way a handle can be rebound.
#include <cmath>
#include <string>

#include "lazax/autodiff/transforms.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

Tensor leaf(const std::vector<double>& v) {
  Tensor t = from_vector<double>(v, {static_cast<int64_t>(v.size())});
  t.requires_grad_();
  return t;
}

size_t saved_by(const Tensor& t) { return t.impl()->saved_by.size(); }

}  // namespace

TEST(SavedInputs, InPlaceUpdateAfterUseDoesNotChangeTheGradient) {
  Tensor w = leaf({1, 2, 3});
  Tensor x = from_vector<double>({4, 5, 6}, {3}) * 1.0;  // a non-leaf handle
  Tensor y = (x * w).sum();
  EXPECT_EQ(saved_by(x), 1u);
  x.mul_(10.0);  // after use, before backward
  EXPECT_EQ(saved_by(x), 0u) << "the tape entry now holds a copy of the old value";
  y.backward();
  expect_values(w.grad(), {4, 5, 6});  // d/dw sum(x*w) = x as it was when used
  expect_values(x, {40, 50, 60});
}

TEST(SavedInputs, AHandleUpdatedInPlaceFromItsOwnValue) {
  // h.add_(c) records add(h, c) on the tape, then rebinds h to it: the entry saved h itself.
  Tensor a = leaf({1, 2}), c = leaf({3, 4});
  Tensor h = a * a;
  h.add_(c);
  h.mul_(h);  // h = (a*a + c)^2: its own entry saved h twice
  h.sum().backward();
  // d/da = 2 (a^2 + c) * 2a, d/dc = 2 (a^2 + c)
  expect_values(a.grad(), {2 * 4 * 2 * 1, 2 * 8 * 2 * 2});
  expect_values(c.grad(), {2 * 4, 2 * 8});
}

TEST(SavedInputs, ManyEntriesAndTheSameHandleTwice) {
  Tensor w = leaf({2, 3});
  Tensor x = w * 1.0;
  Tensor p = x * x;   // x saved twice by one entry
  Tensor q = x * w;   // and once more by another
  Tensor r = exp(x);  // and by a third
  EXPECT_EQ(saved_by(x), 4u);
  x.zero_();
  EXPECT_EQ(saved_by(x), 0u);
  (p + q + r).sum().backward();
  // p = w^2, q = w^2, r = exp(w): d/dw = 2w + 2w + exp(w)
  expect_values(w.grad(), {8 + std::exp(2.0), 12 + std::exp(3.0)});
}

TEST(SavedInputs, UpdatesBetweenUsesAreSeenByTheLaterUseOnly) {
  Tensor w = leaf({1, 1});
  Tensor x = from_vector<double>({2, 3}, {2}) * 1.0;
  Tensor a = (x * w).sum();
  x.add_(1.0);
  Tensor b = (x * w).sum();
  x.add_(1.0);
  (a + b).backward();
  expect_values(w.grad(), {2 + 3, 3 + 4});
}

TEST(SavedInputs, BackwardUnregistersTheEntries) {
  Tensor w = leaf({1, 2});
  Tensor x = w * 2.0;
  Tensor y = (x * x).sum();
  EXPECT_EQ(saved_by(x), 2u);
  y.backward();
  EXPECT_EQ(saved_by(x), 0u) << "backward(retain_graph=false) frees the saved values";
  x.add_(1.0);  // no tape entry is told: there is none
  expect_values(x, {3, 5});
}

TEST(SavedInputs, RetainGraphKeepsThemAndASecondBackwardSeesTheOldValue) {
  Tensor w = leaf({1, 2});
  Tensor x = w * 2.0;
  Tensor y = (x * w).sum();  // d/dw = 2w + x = 4w
  y.backward(Tensor(), /*retain_graph=*/true);
  EXPECT_EQ(saved_by(x), 1u);
  x.mul_(100.0);
  w.set_grad(Tensor());
  y.backward();
  expect_values(w.grad(), {4, 8});
}

TEST(SavedInputs, ADeadTapeUnregistersItself) {
  Tensor w = leaf({1, 2});
  Tensor x = w * 2.0;
  {
    Tensor y = (x * x).sum();
    EXPECT_EQ(saved_by(x), 2u);
  }  // y and its tape entries die without a backward
  EXPECT_EQ(saved_by(x), 0u);
  x.add_(1.0);  // must not touch the freed entries (ASan checks this)
  expect_values(x, {3, 5});
}

TEST(SavedInputs, ALeafThatRequiresGradIsStillAnErrorToUpdate) {
  Tensor w = leaf({1, 2});
  Tensor y = (w * w).sum();
  EXPECT_EQ(saved_by(w), 0u) << "leaves are checked by version, not copied";
  {
    NoGrad off;
    w.add_(1.0);
  }
  try {
    y.backward();
    ADD_FAILURE() << "backward through an updated leaf must fail";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("saved by mul"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(w.grad().defined()) << "checked before any gradient is delivered";
}

TEST(SavedInputs, SecondOrderThroughAnUpdatedHandle) {
  // create_graph: the backward records on the tape, through the copies handed over.
  Tensor w = leaf({0.5, -1.0});
  Tensor x = w * 3.0;
  Tensor y = (x * x * w).sum();  // = 9 w^3, dy/dw = 27 w^2, d2y/dw2 = 54 w
  x.zero_();
  y.backward(Tensor(), /*retain_graph=*/true, /*create_graph=*/true);
  Tensor g = w.grad();
  expect_values(g, {27 * 0.25, 27 * 1.0});
  zero_grad({w});
  g.sum().backward();
  expect_values(w.grad(), {54 * 0.5, 54 * -1.0});
}

TEST(SavedInputs, ALeafWhoseRequiresGradWasTurnedOffIsStillChecked) {
  // w required grad when x * w saved it (held as is, not copied): updating it afterwards would
  // change what the backward reads for x's gradient, whatever w's flag says now.
  Tensor w = leaf({1, 2, 3});
  Tensor x = leaf({4, 5, 6});
  Tensor y = (x * w).sum();
  w.requires_grad_(false);
  w.add_(1.0);
  EXPECT_THROW(y.backward(), ValueError);
  EXPECT_FALSE(x.grad().defined());
}

TEST(SavedInputs, ABackwardThatFailsPartWayHasFreedWhatItRan) {
  // As in PyTorch, backward without retain_graph frees each entry's saved values as soon as its
  // rule ran: when a later rule throws, the entries before it are spent, and a retry says so.
  bool fail = true;
  auto f = custom_vjp([](const Tensor& v) { return std::make_pair(v * 2.0, v); },
                      [&fail](const Tensor&, const Tensor& ct) {
                        if (fail) throw ValueError("[test] bwd failed");
                        return std::make_tuple(ct * 2.0);
                      });
  Tensor x = leaf({1, 2, 3});
  Tensor y = exp(f(x)).sum();
  EXPECT_THROW(y.backward(), ValueError);
  fail = false;
  try {
    y.backward();
    ADD_FAILURE() << "the exp entry ran and was freed: a retry must fail";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("retain_graph=true"), std::string::npos) << e.what();
  }
  // With retain_graph the same failure leaves everything to retry.
  fail = true;
  Tensor x2 = leaf({1, 2, 3});
  Tensor y2 = exp(f(x2)).sum();
  EXPECT_THROW(y2.backward(Tensor(), /*retain_graph=*/true), ValueError);
  fail = false;
  y2.backward();
  std::vector<double> g = values(x2.grad());
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(g[i], 2 * std::exp(2.0 * (i + 1)), 1e-9 * g[i]);
}
