// cond, switch_, while_loop and scan on trees (control_flow.h): a single Tensor with no [0],
// structs with LAZAX_TREE_FIELDS, pairs and tuples; structure mismatches named as such; the flat
// form still taken by bodies that return Tensors; gradients through the tree forms.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>

#include "lazax/autodiff/control_flow.h"
#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

struct Affine {
  Tensor w;
  Tensor b;
  int tag = 0;  // a static leaf, carried through
  LAZAX_TREE_FIELDS(w, b, tag)
};

void expect_close(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.type_str(), want.type_str());
  std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-12) << "at " << i;
}

// The error's message, or "" when f does not throw a lazax Error.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

Tensor truth(bool b) { return scalar_tensor(b, DType::boolean); }

}  // namespace

TEST(ControlFlowTrees, CondSingleTensor) {
  Tensor x = rnd({3}, 1);
  for (bool p : {true, false}) {
    Tensor y = cond(
        truth(p), [](const Tensor& v) { return sin(v); }, [](const Tensor& v) { return v * 2.0; },
        x);
    expect_close(y, p ? sin(x) : x * 2.0);
  }
}

// No operands: the branches capture what they use.
TEST(ControlFlowTrees, CondNoOperands) {
  Tensor x = rnd({2}, 2);
  Tensor y = cond(
      truth(false), [&] { return exp(x); }, [&] { return -x; });
  expect_close(y, -x);
}

TEST(ControlFlowTrees, CondStructAndPair) {
  Affine a{rnd({2}, 3), rnd({2}, 4), 7};
  Tensor x = rnd({2}, 5);
  auto step = [](const Affine& p, const std::pair<Tensor, double>& in) {
    return Affine{p.w * in.first + in.second, p.b, p.tag + 1};
  };
  auto other = [](const Affine& p, const std::pair<Tensor, double>& in) {
    return Affine{p.w, p.b * in.first, p.tag + 1};
  };
  for (bool pr : {true, false}) {
    Affine r = cond(truth(pr), step, other, a, std::make_pair(x, 0.5));
    EXPECT_EQ(r.tag, 8);
    expect_close(r.w, pr ? a.w * x + 0.5 : a.w);
    expect_close(r.b, pr ? a.b : a.b * x);
  }
}

TEST(ControlFlowTrees, CondTupleResult) {
  Tensor x = rnd({3}, 6);
  auto [s, c] = cond(
      truth(true), [](const Tensor& v) { return std::make_tuple(sin(v), cos(v)); },
      [](const Tensor& v) { return std::make_tuple(v, v); }, x);
  expect_close(s, sin(x));
  expect_close(c, cos(x));
}

TEST(ControlFlowTrees, SwitchSingleTensor) {
  Tensor x = rnd({3}, 7);
  std::vector<std::function<Tensor(const Tensor&)>> branches = {
      [](const Tensor& v) { return v + 1.0; }, [](const Tensor& v) { return v * v; },
      [](const Tensor& v) { return tanh(v); }};
  for (int32_t i : {-1, 0, 1, 2, 5}) {
    Tensor y = switch_(scalar_tensor(i, DType::i32), branches, x);
    Tensor want = i <= 0 ? x + 1.0 : i == 1 ? x * x : tanh(x);
    expect_close(y, want);
  }
}

TEST(ControlFlowTrees, WhileLoopSingleTensor) {
  Tensor x = scalar_tensor(1.0, DType::f64);
  Tensor y = while_loop([](const Tensor& v) { return v < 100.0; },
                        [](const Tensor& v) { return v * 3.0; }, x);
  EXPECT_DOUBLE_EQ(y.item(), 243.0);
}

struct Counter {
  Tensor i;
  Tensor acc;
  LAZAX_TREE_FIELDS(i, acc)
};

TEST(ControlFlowTrees, WhileLoopStruct) {
  Counter init{scalar_tensor(0, DType::i32), rnd({2}, 8)};
  Counter r = while_loop([](const Counter& c) { return c.i < 3; },
                         [](const Counter& c) {
                           return Counter{c.i + 1, c.acc * 2.0};
                         },
                         init);
  EXPECT_EQ(r.i.item(), 3.0);
  expect_close(r.acc, init.acc * 8.0);
}

TEST(ControlFlowTrees, ScanSingleTensors) {
  Tensor h0 = rnd({2}, 9), xs = rnd({4, 2}, 10);
  for (bool reverse : {false, true}) {
    auto [h, ys] = scan(
        [](const Tensor& c, const Tensor& x) {
          Tensor n = tanh(c + x);
          return std::make_pair(n, n * 2.0);
        },
        h0, xs, reverse);
    Tensor want = h0;
    std::vector<Tensor> want_ys(4);
    for (int64_t k = 0; k < 4; ++k) {
      int64_t t = reverse ? 3 - k : k;
      want = tanh(want + xs[t]);
      want_ys[static_cast<size_t>(t)] = want * 2.0;
    }
    expect_close(h, want);
    ASSERT_EQ(ys.sizes(), (std::vector<int64_t>{4, 2}));
    for (int64_t t = 0; t < 4; ++t) expect_close(ys[t], want_ys[static_cast<size_t>(t)]);
  }
}

// Carry a struct, xs a pair, y a tuple with a static leaf.
TEST(ControlFlowTrees, ScanStructCarryPairXs) {
  Affine init{rnd({2}, 11), rnd({2}, 12), 3};
  auto xs = std::make_pair(rnd({3, 2}, 13), ints<int32_t>({1, 2, 3}, {3}));
  auto [c, ys] = scan(
      [](const Affine& p, const std::pair<Tensor, Tensor>& x) {
        Affine n{p.w * x.first, p.b + x.second.to(DType::f64), p.tag};
        return std::make_pair(n, std::make_tuple(n.w.sum(), x.second, 1.5));
      },
      init, xs);
  Tensor w = init.w, b = init.b;
  for (int64_t t = 0; t < 3; ++t) {
    w = w * xs.first[t];
    b = b + static_cast<double>(t + 1);
  }
  EXPECT_EQ(c.tag, 3);
  expect_close(c.w, w);
  expect_close(c.b, b);
  EXPECT_EQ(std::get<0>(ys).sizes(), std::vector<int64_t>{3});
  expect_close(std::get<1>(ys), xs.second);
  EXPECT_EQ(std::get<2>(ys), 1.5);
}

TEST(ControlFlowTrees, StructureMismatchesAreNamed) {
  Tensor x = rnd({2}, 14);
  std::string e = error_of([&] {
    cond(
        truth(true),
        [](const Tensor& v) {
          return Tensors{v, v};
        },
        [](const Tensor& v) { return Tensors{v}; }, x);
  });
  EXPECT_NE(e.find("[cond] true_fn returns [2:f64[2];f64[2];] but false_fn returns [1:f64[2];]"),
            std::string::npos)
      << e;

  std::vector<std::function<std::pair<Tensor, int>(const Tensor&)>> branches = {
      [](const Tensor& v) { return std::make_pair(v, 0); },
      [](const Tensor& v) { return std::make_pair(v, 1); }};
  e = error_of([&] { switch_(scalar_tensor(0, DType::i32), branches, x); });
  EXPECT_NE(e.find("[switch_] branch 1 returns <f64[2];static:1;> but branch 0 returns"),
            std::string::npos)
      << e;

  using Carry = std::pair<Tensor, Tensors>;
  e = error_of([&] {
    while_loop([](const Carry& c) { return c.first < 3.0; },
               [](const Carry& c) {
                 return Carry{c.first + 1.0, {c.first, c.first}};
               },
               Carry{scalar_tensor(0.0, DType::f64), {}});
  });
  EXPECT_NE(e.find("[while_loop] the body returns <f64[];[2:f64[];f64[];]> but the carry is "
                   "<f64[];[0:]>"),
            std::string::npos)
      << e;

  e = error_of([&] {
    scan(
        [](const Carry& c, const Tensor& v) {
          return std::make_pair(Carry{c.first, {v}}, v);
        },
        Carry{scalar_tensor(0.0, DType::f64), {}}, rnd({3}, 15));
  });
  EXPECT_NE(e.find("[scan] the body returns the carry"), std::string::npos) << e;
}

// Same structure, different types: the flat form's type check reports it.
TEST(ControlFlowTrees, TypeMismatchesAreReportedByTheTypeCheck) {
  Tensor x = rnd({2}, 16);
  EXPECT_THROW(cond(
                   truth(true), [](const Tensor& v) { return v; },
                   [](const Tensor& v) { return v.to(DType::f32); }, x),
               ShapeError);
  EXPECT_THROW(while_loop([](const Tensor& v) { return v.sum() < 3.0; },
                          [](const Tensor& v) { return v.to(DType::f32); }, x),
               ShapeError);
}

// Bodies that take and return Tensors take the flat form (its ShapeError on a count mismatch,
// not the tree form's ValueError), whether the operands are braced or a variable.
TEST(ControlFlowTrees, TensorsBodiesTakeTheFlatForm) {
  Tensors ops = {rnd({2}, 17)};
  auto two = [](const Tensors& o) { return Tensors{o[0], o[0]}; };
  auto one = [](const Tensors& o) { return Tensors{o[0]}; };
  EXPECT_THROW(cond(truth(true), two, one, ops), ShapeError);
  EXPECT_THROW(cond(truth(true), two, one, {ops[0]}), ShapeError);
  Tensors r = cond(truth(false), one, one, ops);
  EXPECT_EQ(r.size(), 1u);
}

// ---- gradients ----

// cond on a struct and a pair: a = {pred, w, b, x}.
Tensors cond_struct(const Tensors& a) {
  Affine p{a[1], a[2], 0};
  Affine r = cond(
      a[0],
      [](const Affine& q, const std::pair<Tensor, Tensor>& in) {
        return Affine{q.w * in.first + sin(in.second), q.b, 1};
      },
      [](const Affine& q, const std::pair<Tensor, Tensor>& in) {
        return Affine{exp(q.b) * in.first, tanh(q.w * in.second), 1};
      },
      p, std::make_pair(a[3], a[3] * a[2]));
  return {r.w, r.b};
}

TEST(ControlFlowTrees, CondGrads) {
  for (bool pr : {true, false}) {
    SCOPED_TRACE(pr ? "true" : "false");
    expect_grads(cond_struct, {truth(pr), rnd({2}, 20), rnd({2}, 21), rnd({2}, 22)});
  }
}

TEST(ControlFlowTrees, SwitchGrads) {
  FlatFn f = [](const Tensors& a) {
    const Tensor& w = a[2];
    std::vector<std::function<Tensor(const std::tuple<Tensor, Tensor>&)>> branches = {
        [&](const auto& t) { return std::get<0>(t) * w; },
        [&](const auto& t) { return sin(std::get<0>(t)) * std::get<1>(t); },
        [&](const auto& t) { return tanh(std::get<1>(t) + w); }};
    return Tensors{switch_(a[0], branches, std::make_tuple(a[1], a[1] * w))};
  };
  for (int32_t i : {0, 1, 2}) {
    SCOPED_TRACE(i);
    expect_grads(f, {scalar_tensor(i, DType::i32), rnd({3}, 23), rnd({3}, 24)});
  }
}

// A struct carry, pair xs, a tuple y, a captured scale: a = {w, b, xs0, xs1, scale}.
std::pair<Affine, std::tuple<Tensor, Tensor>> affine_scan(const Tensors& a, bool reverse) {
  const Tensor& scale = a[4];
  return scan(
      [&](const Affine& p, const std::pair<Tensor, Tensor>& x) {
        Affine n{tanh(p.w * x.first + p.b) * scale, p.b + sin(x.second), p.tag};
        return std::make_pair(n, std::make_tuple(n.w * x.second, exp(p.b)));
      },
      Affine{a[0], a[1], 2}, std::make_pair(a[2], a[3]), reverse);
}

TEST(ControlFlowTrees, ScanGrads) {
  Tensors args = {rnd({2}, 25), rnd({2}, 26), rnd({3, 2}, 27), rnd({3, 2}, 28), rnd({2}, 29)};
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    expect_grads(
        [reverse](const Tensors& a) {
          auto [c, ys] = affine_scan(a, reverse);
          return Tensors{c.w, c.b, std::get<0>(ys), std::get<1>(ys)};
        },
        args);
  }
}

// Forward mode only, as the flat form.
TEST(ControlFlowTrees, WhileLoopGradsForwardMode) {
  FlatFn f = [](const Tensors& a) {
    const Tensor& w = a[1];
    Counter r = while_loop([](const Counter& c) { return c.i < 3; },
                           [&](const Counter& c) {
                             return Counter{c.i + 1, sin(c.acc) * w};
                           },
                           Counter{scalar_tensor(0, DType::i32), a[0]});
    return Tensors{r.acc};
  };
  expect_grads(f, {rnd({2}, 30), rnd({2}, 31)}, 2, Modes::fwd);
}

// grad and value_and_grad of a function of a struct that uses the tree forms, against the same
// function unrolled by C++.
TEST(ControlFlowTrees, GradOverTreeForms) {
  auto staged = [](const Affine& p, const Tensor& xs) {
    auto [h, ys] = scan(
        [&](const Tensor& c, const Tensor& x) {
          Tensor n = tanh(c * p.w + x + p.b);
          return std::make_pair(n, n.sum());
        },
        zeros_like(p.w), xs);
    return cond(
        h.sum() > 0.0, [&](const Tensor& v) { return (v * v).sum() + ys.sum(); },
        [&](const Tensor& v) { return -v.sum(); }, h);
  };
  auto unrolled = [](const Affine& p, const Tensor& xs) {
    Tensor h = zeros_like(p.w), total = zeros({}, DType::f64);
    for (int64_t t = 0; t < xs.size(0); ++t) {
      h = tanh(h * p.w + xs[t] + p.b);
      total = total + h.sum();
    }
    return h.sum().item() > 0 ? (h * h).sum() + total : -h.sum();
  };
  Affine p{rnd({3}, 32), rnd({3}, 33), 0};
  Tensor xs = rnd({5, 3}, 34);
  Affine g = grad(staged)(p, xs);
  Affine want = grad(unrolled)(p, xs);
  expect_close(g.w, want.w);
  expect_close(g.b, want.b);
  auto [value, g2] = value_and_grad(staged)(p, xs);
  expect_close(value, unrolled(p, xs));
  expect_close(g2.w, want.w);
}
