// The batched program of control flow and indexing is one node, not a loop over the examples:
// vmap of while, scan and cond records one control-flow node (cond on an unbatched predicate
// one cond, no select), gather and dynamic_slice one gather; gradients through them equal the
// loop's. Remat policies inside a vmapped function, and a concretization inside vmap.
#include <gtest/gtest.h>

#include <cmath>

#include "lazax/api/tensor_impl.h"
#include "lazax/ir/printer.h"
#include "vmap_test_util.h"

namespace lazax::vmap_test {
namespace {

std::vector<float> vec(const Tensor& t) { return t.to(DType::f32).to_vector<float>(); }
void expect_near(const Tensor& a, const Tensor& b, float tol = 1e-5f) {
  ASSERT_EQ(a.sizes(), b.sizes());
  std::vector<float> x = vec(a), y = vec(b);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "at " << i;
}
int count(const Function& f, OpCode op) {
  int n = 0;
  for (const Node& node : f.nodes()) n += node.op == op ? 1 : 0;
  return n;
}

TEST(VmapControl, WhileScanAndCondAreOneNode) {
  Tensor xs = rand({5, 3}) + 0.5;
  auto vw = [](const Tensor& x) {
    return vmap([](const Tensor& e) {
      return while_loop(
          [](const Tensors& c) { return Tensors{lt(c[0].sum(), scalar_tensor(9.0))}; },
          [](const Tensors& c) { return Tensors{c[0] * 2.0}; }, Tensors{e})[0];
    })(x);
  };
  FunctionPtr pw = trace(vw, xs);
  EXPECT_EQ(count(*pw, OpCode::while_), 1) << print_program(*pw);
  auto vs = [](const Tensor& x) {
    return vmap([](const Tensor& e) {
      return scan(
                 [](const Tensor& c, const Tensor& v) {
                   return std::pair{c * v, c};
                 },
                 scalar_tensor(1.0), e)
          .second;
    })(x);
  };
  FunctionPtr ps = trace(vs, xs);
  EXPECT_EQ(count(*ps, OpCode::scan), 1) << print_program(*ps);
  // An unbatched predicate: one cond, one branch runs; a batched one: selects, no cond.
  Tensor flag = scalar_tensor(1.0);
  auto vc = [](const Tensor& x, const Tensor& p) {
    return vmap(
        [&](const Tensor& e) {
          return cond(
              gt(p, scalar_tensor(0.0)), [](const Tensors& o) { return Tensors{o[0].exp()}; },
              [](const Tensors& o) { return Tensors{-o[0]}; }, Tensors{e})[0];
        },
        {.in_axes = {0}})(x);
  };
  FunctionPtr pc = trace(vc, xs, flag);
  EXPECT_EQ(count(*pc, OpCode::cond), 1) << print_program(*pc);
  EXPECT_EQ(count(*pc, OpCode::select), 0) << print_program(*pc);
  expect_near(vc(xs, flag), xs.exp());
  expect_near(vc(xs, -flag), -xs);
}

TEST(VmapControl, GatherAndDynamicSliceAreOneGather) {
  Tensor table = randn({6, 4});
  Tensor idx = from_vector(std::vector<double>{0, 5, 2}, {3}).to(DType::i64);
  auto f = [](const Tensor& t, const Tensor& i) {
    return vmap(
        [](const Tensor& tt, const Tensor& ii) {
          Tensor start = ii.to(DType::i32);
          return record_op(OpCode::dynamic_slice, {tt, start, start}, DynamicSliceAttrs{{2, 2}})[0];
        },
        {.in_axes = {std::nullopt, 0}})(t, i);
  };
  FunctionPtr p = trace(f, table, idx);
  EXPECT_EQ(count(*p, OpCode::dynamic_slice), 0) << print_program(*p);
  EXPECT_EQ(count(*p, OpCode::gather), 1) << print_program(*p);
}

TEST(VmapControl, RandomBitsOfBatchedKeysAreEachKeysStreamExactly) {
  // (i64 bits compared as integers: the op cases compare through f64.)
  std::vector<double> k{12345, 7, -99, 1 << 30, 4e15, 3};
  Tensor keys = from_vector(k, {3, 2}).to(DType::i64);
  auto draw = [](const Tensor& key) {
    return record_op(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{7}, DType::i64}).vec();
  };
  Tensors got = vmap(draw)(keys);
  FunctionPtr p = trace([&](const Tensor& ks) { return vmap(draw)(ks)[0]; }, keys);
  EXPECT_EQ(count(*p, OpCode::random_bits), 0) << print_program(*p);
  for (int64_t i = 0; i < 3; ++i) {
    Tensors want = draw(keys[i]);
    EXPECT_EQ(got[0][i].to_vector<int64_t>(), want[0].to_vector<int64_t>()) << i;
    EXPECT_EQ(got[1][i].to_vector<int64_t>(), want[1].to_vector<int64_t>()) << i;
  }
}

TEST(VmapControl, GradientsThroughBatchedScanAndGatherEqualTheLoop) {
  manual_seed(11);
  Tensor w = randn({3});
  Tensor xs = randn({4, 5, 3});
  Tensor rows = from_vector(std::vector<double>{0, 2, 1, 4}, {4}).to(DType::i64);
  // One example's loss: a scan over its 5 steps, then a row picked by its own index.
  auto loss = [](const Tensor& wv, const Tensor& x, const Tensor& r) {
    auto [c, ys] = scan(
        [&](const Tensor& h, const Tensor& v) {
          Tensor n = (h * wv + v).tanh();
          return std::pair{n, n};
        },
        zeros({3}), x);
    Tensor picked = gather(ys, 0, broadcast_to(r.reshape({1, 1}), {1, 3}));
    return (picked * picked).sum() + c.sum();
  };
  Tensor per = vmap(grad(loss), {.in_axes = {std::nullopt, 0, 0}})(w, xs, rows);
  for (int64_t i = 0; i < 4; ++i) expect_near(per[i], grad(loss)(w, xs[i], rows[i]));
  Tensor total = grad([&](const Tensor& wv) {
    return vmap([&](const Tensor& x, const Tensor& r) { return loss(wv, x, r); })(xs, rows).sum();
  })(w);
  Tensor want = zeros({3});
  for (int64_t i = 0; i < 4; ++i) want = want + grad(loss)(w, xs[i], rows[i]);
  expect_near(total, want);
}

TEST(VmapControl, RematPoliciesInsideVmapKeepValuesAndGradients) {
  manual_seed(12);
  Tensor w = randn({4, 4});
  Tensor xs = randn({6, 4});
  auto body = [](const Tensor& x, const Tensor& m) {
    Tensor h = checkpoint_name(matmul(m, x).tanh(), "h");
    return (matmul(m, h).sin() * h).sum();
  };
  auto plain = [&](const Tensor& m) {
    return vmap([&](const Tensor& x) { return body(x, m); })(xs);
  };
  auto remat_all = checkpoint(body);
  auto remat_h = checkpoint(body, policies::save_only_these_names({"h"}));
  auto with = [&](auto& f) {
    return [&](const Tensor& m) { return vmap([&](const Tensor& x) { return f(x, m); })(xs); };
  };
  Tensor v0 = plain(w);
  expect_near(with(remat_all)(w), v0);
  expect_near(with(remat_h)(w), v0);
  auto total = [](auto f) { return [f](const Tensor& m) { return f(m).sum(); }; };
  Tensor g0 = grad(total(plain))(w);
  expect_near(grad(total(with(remat_all)))(w), g0);
  expect_near(grad(total(with(remat_h)))(w), g0);
  // Per-example gradients through the checkpointed body.
  Tensor per = vmap(
      [&](const Tensor& x) { return grad([&](const Tensor& m) { return remat_h(x, m); })(w); })(xs);
  for (int64_t i = 0; i < 6; ++i)
    expect_near(per[i], grad([&](const Tensor& m) { return body(xs[i], m); })(w));
}

TEST(VmapControl, ConcretizationInsideVmapNamesTheOpAndTheLine) {
  Tensor xs = randn({3, 2});
  try {
    vmap([](const Tensor& x) {
      if (x.sum().item() > 0) return x;  // reads a value: no value exists while tracing
      return -x;
    })(xs);
    FAIL() << "expected ConcretizationError";
  } catch (const ConcretizationError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("reduce_sum"), std::string::npos) << m;
    EXPECT_NE(m.find("vmap_control_test.cc"), std::string::npos) << m;
  }
  // Everything is usable afterwards.
  expect_near(vmap([](const Tensor& x) { return x * 2.0; })(xs), xs * 2.0);
}

}  // namespace
}  // namespace lazax::vmap_test
