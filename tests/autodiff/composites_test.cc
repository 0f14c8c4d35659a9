// check_grads (orders 1 and 2, forward and reverse) on composites built from primitives:
// softmax, log_softmax, cross_entropy, layer norm, RMS norm, causal attention, rotary
// embeddings, SwiGLU.
#include <cmath>
#include <limits>

#include "lazax/autodiff/pure.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

Tensor layer_norm(const Tensor& x, const Tensor& w, const Tensor& b, double eps = 1e-5) {
  Tensor mu = x.mean({-1}, true);
  Tensor xc = x - mu;
  Tensor var = (xc * xc).mean({-1}, true);
  return xc * rsqrt(var + eps) * w + b;
}

Tensor rms_norm(const Tensor& x, const Tensor& w, double eps = 1e-6) {
  return x * rsqrt((x * x).mean({-1}, true) + eps) * w;
}

// Single-head attention over [T, D] with a causal mask (masked scores are -inf).
Tensor causal_attention(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t t = q.size(0);
  Tensor scores = matmul(q, k.t()) / std::sqrt(static_cast<double>(q.size(1)));
  Tensor masked = where(tril_mask(t, t), scores, -std::numeric_limits<double>::infinity());
  return matmul(softmax(masked, -1), v);
}

// Rotary position embedding of x [T, D] (D even): rotates pairs (x1, x2) of the two halves by
// position-dependent angles.
Tensor rotary(const Tensor& x) {
  const int64_t t = x.size(0), half = x.size(1) / 2;
  Tensor pos = arange(0.0, static_cast<double>(t), 1.0, x.dtype()).unsqueeze(1);
  Tensor freq = pow(full({half}, 10000.0, x.dtype()),
                    arange(0.0, static_cast<double>(half), 1.0, x.dtype()) * (-2.0 / (2.0 * half)));
  Tensor ang = pos * freq;  // [T, half]
  Tensor c = cos(ang), s = sin(ang);
  Tensor x1 = x.narrow(1, 0, half), x2 = x.narrow(1, half, half);
  return cat({x1 * c - x2 * s, x1 * s + x2 * c}, 1);
}

Tensor swiglu(const Tensor& x, const Tensor& w1, const Tensor& w2, const Tensor& w3) {
  return matmul(silu(matmul(x, w1)) * matmul(x, w2), w3);
}

}  // namespace

TEST(CompositeGrads, Softmax) {
  expect_grads(one([](const Tensors& a) { return softmax(a[0], 1) * a[1]; }),
               {rnd({2, 4}, 1), rnd({2, 4}, 2)});
}
// As PyTorch's softmax backward and JAX's custom_jvp softmax: dx = y * (g - sum(g * y)) reads
// softmax's output alone. Differentiating its primitives read the exponentials as well (exp's
// and div's VJPs), which the tape then kept beside the output.
TEST(CompositeGrads, SoftmaxsBackwardReadsOnlyItsOutput) {
  Tensor w = rnd({2, 4}, 2);
  auto loss = [&](const Tensor& v) { return (softmax(v, 1) * w).sum(); };
  FunctionPtr f = trace([&](const Tensor& x) { return grad(loss)(x); }, rnd({2, 4}, 1));
  int32_t exp_node = -1;
  int readers = 0;
  for (int32_t i = 0; i < static_cast<int32_t>(f->nodes().size()); ++i) {
    const Node& n = f->node(i);
    for (const ValueRef& r : n.operands) readers += exp_node >= 0 && r.node == exp_node;
    if (n.op != OpCode::exp) continue;
    EXPECT_EQ(exp_node, -1) << "one exp, the forward's";
    exp_node = i;
  }
  ASSERT_GE(exp_node, 0);
  EXPECT_EQ(readers, 2) << "the row sum and the division";
  // The gradient itself, against the primitives' (whose VJPs the tape would otherwise use).
  Tensor x = rnd({2, 4}, 1);
  Tensor e = exp(x - x.amax({1}, true));
  Tensor y = e / e.sum({1}, true);
  std::vector<double> got = grad(loss)(x).to_vector<double>();
  std::vector<double> want = (y * (w - (w * y).sum({1}, true))).to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}
TEST(CompositeGrads, LogSoftmax) {
  expect_grads(one([](const Tensors& a) { return log_softmax(a[0], 0); }), {rnd({3, 2}, 3)});
}
TEST(CompositeGrads, CrossEntropy) {
  Tensor targets = ints<int64_t>({2, 0, 1}, {3});
  expect_grads(one([targets](const Tensors& a) { return cross_entropy(a[0], targets); }),
               {rnd({3, 4}, 4)});
}
TEST(CompositeGrads, LayerNorm) {
  expect_grads(one([](const Tensors& a) { return layer_norm(a[0], a[1], a[2]); }),
               {rnd({2, 5}, 5), rnd({5}, 6), rnd({5}, 7)});
}
TEST(CompositeGrads, RmsNorm) {
  expect_grads(one([](const Tensors& a) { return rms_norm(a[0], a[1]); }),
               {rnd({3, 4}, 8), rnd({4}, 9)});
}
TEST(CompositeGrads, CausalAttention) {
  expect_grads(one([](const Tensors& a) { return causal_attention(a[0], a[1], a[2]); }),
               {rnd({4, 3}, 10), rnd({4, 3}, 11), rnd({4, 3}, 12)});
}
TEST(CompositeGrads, RotaryEmbedding) {
  expect_grads(one([](const Tensors& a) { return rotary(a[0]) * a[0]; }), {rnd({3, 4}, 13)});
}
TEST(CompositeGrads, SwiGLU) {
  expect_grads(one([](const Tensors& a) { return swiglu(a[0], a[1], a[2], a[3]); }),
               {rnd({2, 3}, 14), rnd({3, 4}, 15), rnd({3, 4}, 16), rnd({4, 3}, 17)});
}
TEST(CompositeGrads, DecoderBlockFloat32) {
  // Everything together in f32: RMS norm, rotary causal attention, residual, SwiGLU.
  expect_grads(one([](const Tensors& a) {
                 Tensor h = rms_norm(a[0], a[1]);
                 Tensor att = causal_attention(rotary(h), rotary(h), h);
                 Tensor r = a[0] + att;
                 return (r + swiglu(rms_norm(r, a[1]), a[2], a[3], a[4])).sum();
               }),
               {rnd({4, 4}, 18, DType::f32), rnd({4}, 19, DType::f32), rnd({4, 6}, 20, DType::f32),
                rnd({4, 6}, 21, DType::f32), rnd({6, 4}, 22, DType::f32)},
               1);
}
