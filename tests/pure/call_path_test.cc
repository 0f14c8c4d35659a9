// The per-call host path of assume_pure (what `lazax bench assume-pure` measures): residuals held
// as deferred graph values, released by backward, materialized by a sync that comes before the
// backward; the signature key of the cache (tree_key); the "null" backend.
#include <gtest/gtest.h>

#include "lazax/api/random.h"
#include "lazax/autodiff/pure.h"
#include "lazax/backend/backend.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/lazy_value.h"

using namespace lazax;

namespace {
struct Layer {
  Tensor w, b;
  LAZAX_TREE_FIELDS(w, b)
};

// Several ops, so that the forward program has several residuals.
Tensor layer_fn(const Layer& l, const Tensor& h) {
  Tensor y = tanh(matmul(h, l.w) + l.b);
  return exp(y) * sigmoid(y) + h;
}

Layer make_layer(int64_t d, uint64_t seed) {
  manual_seed(seed);
  Layer l{randn({d, d}) * 0.3, randn({d}) * 0.1};
  lazax::sync();
  l.w.requires_grad_();
  l.b.requires_grad_();
  return l;
}

Tensor input(int64_t d) {
  std::vector<float> v(static_cast<size_t>(2 * d));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  return from_vector<float>(v, {2, d});
}

// Gradients of sum(f(f(x))) through three calls of the layer, plain or through `block`.
template <class Fn>
std::vector<std::vector<float>> grads(const Layer& l, const Tensor& x, Fn&& layer,
                                      bool sync_before_backward) {
  Tensor h = x;
  for (int i = 0; i < 3; ++i) h = layer(l, h);
  Tensor loss = h.sum();
  if (sync_before_backward) loss.item();  // a graph break between forward and backward
  loss.backward();
  lazax::sync();
  std::vector<std::vector<float>> out = {l.w.grad().to_vector<float>(),
                                         l.b.grad().to_vector<float>()};
  zero_grad({l.w, l.b});
  return out;
}

void expect_near(const std::vector<std::vector<float>>& a,
                 const std::vector<std::vector<float>>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].size(), b[k].size());
    for (size_t i = 0; i < a[k].size(); ++i) EXPECT_NEAR(a[k][i], b[k][i], 1e-5f) << k << "/" << i;
  }
}
}  // namespace

TEST(PureCallPath, GradientsWithAndWithoutASyncBeforeBackward) {
  Layer l = make_layer(4, 3);
  Tensor x = input(4);
  auto block = assume_pure(layer_fn);
  auto plain = grads(l, x, layer_fn, false);
  expect_near(grads(l, x, block, false), plain);
  // The residuals are materialized by the sync in between and read back as data.
  expect_near(grads(l, x, block, true), plain);
  expect_near(grads(l, x, block, false), plain);
}

TEST(PureCallPath, ResidualsAreDeferredUntilASyncAndReleasedByBackward) {
  Layer l = make_layer(4, 4);
  Tensor x = input(4);
  auto block = assume_pure(layer_fn);
  {
    Tensor loss = block(l, x).sum();
    // The residuals hold no tensor handles until something asks for the pending values (probe
    // asks as sync does): then they become pending values, to be materialized.
    size_t n = num_pending_values();
    Context::get().probe();
    EXPECT_GT(num_pending_values(), n);
    loss.backward();
    lazax::sync();
  }
  {
    Tensor loss = block(l, x).sum();
    loss.backward();
    // Backward released them: nothing is left to materialize.
    size_t n = num_pending_values();
    Context::get().probe();
    EXPECT_EQ(num_pending_values(), n);
    lazax::sync();
  }
  zero_grad({l.w, l.b});
}

TEST(PureCallPath, RetainGraphKeepsResidualsForASecondBackward) {
  Layer l = make_layer(4, 5);
  Tensor x = input(4);
  auto block = assume_pure(layer_fn);
  Tensor loss = block(l, x).sum();
  loss.backward(Tensor(), /*retain_graph=*/true);
  lazax::sync();  // materializes the still-held residuals
  std::vector<float> once = l.w.grad().to_vector<float>();
  loss.backward();
  lazax::sync();
  std::vector<float> twice = l.w.grad().to_vector<float>();
  ASSERT_EQ(once.size(), twice.size());
  for (size_t i = 0; i < once.size(); ++i) EXPECT_NEAR(twice[i], 2 * once[i], 1e-5f);
  EXPECT_THROW(loss.backward(), ValueError);  // released now
  zero_grad({l.w, l.b});
  // The same with no sync between the two backwards: the first one (retained) leaves the
  // residuals as graph values for the second, which may then move them out.
  Tensor loss2 = block(l, x).sum();
  loss2.backward(Tensor(), /*retain_graph=*/true);
  loss2.backward();
  lazax::sync();
  std::vector<float> twice2 = l.w.grad().to_vector<float>();
  ASSERT_EQ(twice2.size(), once.size());
  for (size_t i = 0; i < once.size(); ++i) EXPECT_NEAR(twice2[i], 2 * once[i], 1e-5f);
  zero_grad({l.w, l.b});
}

TEST(PureCallPath, StaticFloatArgumentsAreKeyedByValue) {
  // Static values that print alike ("0.000000") are different signatures.
  auto scaled = assume_pure([](const Tensor& x, double s) { return x * s; });
  Tensor x = input(2);
  EXPECT_FLOAT_EQ(scaled(x, 1e-7).sum().item(), static_cast<float>(x.sum().item() * 1e-7));
  EXPECT_FLOAT_EQ(scaled(x, 2e-7).sum().item(), static_cast<float>(x.sum().item() * 2e-7));
  EXPECT_EQ(scaled.cache_size(), 2u);
  scaled(x, 1e-7);
  EXPECT_EQ(scaled.cache_size(), 2u);
}

TEST(PureCallPath, TreeKeySeparatesStructures) {
  Tensor a = input(2), b = input(3);
  EXPECT_EQ(tree_key(std::make_tuple(a, 1)), tree_key(std::make_tuple(input(2), 1)));
  EXPECT_NE(tree_key(std::make_tuple(a, 1)), tree_key(std::make_tuple(b, 1)));
  EXPECT_NE(tree_key(std::make_tuple(a, 1)), tree_key(std::make_tuple(a, 2)));
  EXPECT_NE(tree_key(std::vector<Tensor>{a, a}), tree_key(std::vector<Tensor>{a}));
  EXPECT_NE(tree_key(std::make_pair(std::vector<Tensor>{a}, std::vector<Tensor>{})),
            tree_key(std::make_pair(std::vector<Tensor>{}, std::vector<Tensor>{a})));
  EXPECT_NE(tree_key(std::string("x")), tree_key(std::string("y")));
  EXPECT_NE(tree_key(Tensor()), tree_key(a));
}

TEST(NullBackend, ReturnsZerosOfTheResultTypesAndIsNotListed) {
  for (const std::string& name : backend_names()) EXPECT_NE(name, "null");
  Context& ctx = Context::get();
  std::string saved = ctx.backend().name();
  ctx.set_backend("null");
  Tensor x = input(3);
  Tensor y = (x + 1.5).sum({1});
  std::vector<float> v = y.to_vector<float>();  // syncs on the null backend: nothing computed
  EXPECT_EQ(y.type_str(), "f32[2]");
  EXPECT_EQ(v, std::vector<float>(2, 0.0f));
  ctx.set_backend(saved);
  EXPECT_NEAR((x + 1.5).sum().item(), x.sum().item() + 9.0, 1e-5);
}

// The calls are recorded without the shape rule's check when the caller has compared the types
// itself (record_call_prechecked); a gradient of the wrong shape is still a clear error.
TEST(PureCallPath, CotangentOfTheWrongShapeIsAClearError) {
  Layer l = make_layer(4, 5);
  Tensor x = input(4);
  auto block = assume_pure(layer_fn);
  Tensor y = block(l, x);
  try {
    y.backward(ones({3, 4}));
    lazax::sync();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("[backward]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("f32[3,4]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("f32[2,4]"), std::string::npos) << msg;
  }
  // The right shape works afterwards.
  Tensor y2 = block(l, x);
  y2.backward(ones({2, 4}));
  lazax::sync();
  EXPECT_EQ(l.w.grad().shape(), Shape({4, 4}));
}
