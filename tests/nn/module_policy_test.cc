// Modules under a precision policy (Module::set_policy, nn::call_module): the forward runs in
// compute_dtype on converted inputs and parameters, bit for bit the explicit cast-compute-cast
// code; the stored parameters and their gradients stay f32; a submodule's own policy (a norm in
// f32) converts at its boundary; the policy is part of a module's tree key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nn_test_util.h"

namespace lazax {
namespace {

using test::expect_close;
using test::values;

constexpr DType kBf16 = DType::bf16, kF32 = DType::f32;
const Policy kMixed = Policy::parse("params=f32,compute=bf16,output=f32");

// Values with more mantissa bits than bf16 keeps (so bf16 and f32 results differ).
Tensor ramp(std::vector<int64_t> shape, double scale, double phase = 0.1) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(scale * std::sin(0.37 * static_cast<double>(i) + phase));
  return from_vector<float>(v, shape);
}

bool differ(const Tensor& a, const Tensor& b) { return values(a) != values(b); }

TEST(NnPolicy, LinearRunsInBf16AndKeepsF32MasterWeights) {
  manual_seed(21);
  nn::Linear f32(40, 5), mixed = f32;  // the same parameter tensors
  mixed.set_policy(kMixed);
  ASSERT_NE(mixed.policy(), nullptr);
  EXPECT_EQ(f32.policy(), nullptr);
  Tensor x = ramp({6, 40}, 1.3);
  Tensor y = mixed(x), y32 = f32(x);
  EXPECT_EQ(y.dtype(), kF32);
  EXPECT_EQ(mixed.weight.dtype(), kF32);
  EXPECT_EQ(mixed.weight.impl(), f32.weight.impl());  // f32 parameters: nothing rebound
  // Bit for bit the explicit version; not the f32 result, but within bf16's precision of it.
  auto by_hand = [&](const Tensor& x) {
    return (matmul(x.to(kBf16), f32.weight.to(kBf16).t()) + f32.bias.to(kBf16)).to(kF32);
  };
  EXPECT_EQ(values(y), values(by_hand(x)));
  EXPECT_TRUE(differ(y, y32));
  expect_close(y, y32, 3e-2, "bf16 vs f32 output");
  // forward is the computation alone: the policy acts on the call.
  EXPECT_EQ(values(mixed.forward(x)), values(y32));
  // An output dtype of bf16 leaves the result in bf16.
  nn::Linear out16 = f32;
  out16.set_policy(Policy::parse("c=bf16,o=bf16"));
  EXPECT_EQ(out16(x).dtype(), kBf16);
  EXPECT_EQ(values(out16(x)), values(by_hand(x).to(kBf16)));
}

TEST(NnPolicy, GradientsReachTheF32ParametersAsF32) {
  manual_seed(22);
  nn::Linear lin(40, 5);
  Tensor x = ramp({6, 40}, 1.3), c = ramp({6, 5}, 0.9, 0.4);
  auto grads = [&](const Policy* p) {
    nn::Linear m = lin;
    if (p) m.set_policy(*p);
    zero_grad(m.parameters());
    (m(x) * c).sum().backward();
    return std::vector<Tensor>{m.weight.grad(), m.bias.grad()};
  };
  std::vector<Tensor> g32 = grads(nullptr), g16 = grads(&kMixed);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(g16[i].dtype(), kF32);
    expect_close(g16[i], g32[i], 3e-2, "gradient " + std::to_string(i));
  }
  EXPECT_TRUE(differ(g16[0], g32[0])) << "the backward GEMM should run in bf16";
  // Bit for bit the gradients of the explicit version.
  Tensor w = lin.weight.detach().requires_grad_(), b = lin.bias.detach().requires_grad_();
  ((matmul(x.to(kBf16), w.to(kBf16).t()) + b.to(kBf16)).to(kF32) * c).sum().backward();
  EXPECT_EQ(values(g16[0]), values(w.grad()));
  EXPECT_EQ(values(g16[1]), values(b.grad()));
  // The transforms see the same: grad over the module gives f32 gradients.
  nn::Linear mixed = lin;
  mixed.set_policy(kMixed);
  nn::Linear g = grad([&](const nn::Linear& m) { return (m(x) * c).sum(); })(mixed);
  EXPECT_EQ(g.weight.dtype(), kF32);
  EXPECT_EQ(values(g.weight), values(w.grad()));
}

TEST(NnPolicy, SetPolicyStoresTheParametersInParamDtype) {
  manual_seed(23);
  nn::Linear lin(4, 3);
  lin.to(kBf16);
  lin.set_policy(kMixed);  // bf16 parameters become f32 masters (new leaves)
  EXPECT_EQ(lin.weight.dtype(), kF32);
  EXPECT_TRUE(lin.weight.requires_grad());
  EXPECT_TRUE(lin.weight.is_leaf());
}

// A norm and a linear layer, called through their operator() (the module call).
struct NormLinear : nn::Module {
  nn::RMSNorm norm{16};
  nn::Linear lin{16, 8};
  Tensor forward(const Tensor& x) const { return lin(norm(x)); }
  Tensor operator()(const Tensor& x) const { return nn::call_module(*this, x); }
  void visit(nn::ModuleVisitor& v) override {
    v.module("norm", norm);
    v.module("lin", lin);
  }
  std::string type_name() const override { return "NormLinear"; }
};

Tensor rms(const Tensor& x, const Tensor& w) {
  return x * rsqrt(mean(x * x, {-1}, true) + 1e-5) * w;
}

TEST(NnPolicy, ChildrenInheritUnlessTheyHaveTheirOwn) {
  manual_seed(24);
  NormLinear m;
  {
    NoGrad off;
    m.norm.weight.copy_(ramp({16}, 0.5, 1.0) + 1.0);  // not exact in bf16
  }
  Tensor x = ramp({5, 16}, 2.0);
  const Tensor w = m.norm.weight, lw = m.lin.weight, lb = m.lin.bias;
  auto linear16 = [&](const Tensor& h) {
    return (matmul(h, lw.to(kBf16).t()) + lb.to(kBf16)).to(kF32);
  };
  NormLinear all16 = m;
  all16.set_policy(kMixed);  // the norm inherits: its reduction runs in bf16
  const Tensor x16 = x.to(kBf16);
  EXPECT_EQ(values(all16(x)), values(linear16(rms(x16, w.to(kBf16)))));
  // Haiku's per-class policy: the norms in f32 with f32 weights, their output in bf16.
  NormLinear keep = m;
  keep.set_policy(kMixed);
  nn::set_policy<nn::RMSNorm>(keep, Policy::parse("params=f32,compute=f32,output=bf16"));
  EXPECT_EQ(*keep.policy(), kMixed);
  ASSERT_NE(keep.norm.policy(), nullptr);
  EXPECT_EQ(keep.lin.policy(), nullptr);
  const Tensor want = linear16(rms(x16.to(kF32), w).to(kBf16));
  EXPECT_EQ(values(keep(x)), values(want));
  EXPECT_TRUE(differ(keep(x), all16(x)));
  // An f32 output feeds the inheriting Linear, which converts its input to bf16 itself.
  nn::set_policy<nn::RMSNorm>(keep, Policy::parse("c=f32,o=f32"));
  EXPECT_EQ(values(keep(x)), values(want));
  // Gradients of every parameter are f32, the norm's included.
  keep(x).sum().backward();
  for (const auto& [name, p] : keep.named_parameters()) EXPECT_EQ(p.grad().dtype(), kF32) << name;
}

TEST(NnPolicy, ThePolicyIsPartOfTheTreeKey) {
  manual_seed(25);
  nn::Linear lin(40, 5);
  auto f = assume_pure([](const nn::Linear& m, const Tensor& x) { return m(x); });
  Tensor x = ramp({6, 40}, 1.3);
  Tensor y32 = f(lin, x);
  nn::Linear mixed = lin;
  mixed.set_policy(kMixed);
  Tensor y16 = f(mixed, x);
  EXPECT_EQ(f.cache_size(), 2u);
  EXPECT_EQ(values(y16), values(mixed(x)));
  EXPECT_TRUE(differ(y16, y32));
  EXPECT_NE(tree_structure(mixed).find("(policy params=f32,compute=bf16,output=f32)"),
            std::string::npos)
      << tree_structure(mixed);
}

TEST(NnPolicy, InsideAPolicyAutocastIsOff) {
  manual_seed(26);
  nn::Linear lin(40, 5), f32 = lin;
  f32.set_policy(Policy::parse("f32"));
  Tensor x = ramp({6, 40}, 1.3);
  Tensor plain = lin(x), ac, pol;
  {
    Autocast scope(kBf16);
    ac = lin(x);   // no policy: Autocast's bf16 matmul
    pol = f32(x);  // an f32 policy decides: f32
  }
  EXPECT_TRUE(differ(ac, plain));
  EXPECT_EQ(values(pol), values(plain));
  // Autocast's Linear casts its bias too (PyTorch's autocast linear): all of it is bf16.
  EXPECT_EQ(ac.dtype(), kBf16);
  EXPECT_EQ(values(ac), values(matmul(x.to(kBf16), lin.weight.to(kBf16).t()) + lin.bias.to(kBf16)));
}

}  // namespace
}  // namespace lazax
