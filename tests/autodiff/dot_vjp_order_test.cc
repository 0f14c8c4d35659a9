// The VJP of dot_general picks the operand order whose result is already in the operand's
// dimension order: a weight gradient is x^T g, recorded without a transpose. The gradients are
// the same bits as the other order followed by a transpose (the rule as it was), and pass the
// finite-difference checks.
#include <algorithm>
#include <numeric>
#include <utility>

#include "test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

// Number of `op` nodes the pending value t depends on.
int count_ops(const Tensor& t, OpCode op) {
  std::vector<const GraphNode*> stack{t.impl()->pending().node.get()}, seen;
  int n = 0;
  while (!stack.empty()) {
    const GraphNode* g = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
    seen.push_back(g);
    n += g->op == op;
    for (const auto& o : g->operands) stack.push_back(o.node.get());
  }
  return n;
}

IntList rest(int64_t rank, const IntList& a, const IntList& b) {
  IntList out;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      out.push_back(d);
  return out;
}

// The cotangent of x in dot_general(x, y) (of y when swap) as the rule computed it before: g
// contracted with y, then transposed into x's order (JAX's _dot_general_transpose_lhs).
Tensor reference_ct(const Tensor& g, const Tensor& x, const Tensor& y, const IntList& xc,
                    const IntList& yc, const IntList& xb, const IntList& yb, bool swap) {
  IntList xk = rest(x.dim(), xc, xb), yk = rest(y.dim(), yc, yb);
  IntList gb(xb.size()), gy(yk.size());
  std::iota(gb.begin(), gb.end(), 0);
  std::iota(gy.begin(), gy.end(), static_cast<int64_t>(xb.size() + (swap ? 0 : xk.size())));
  Tensor r = op(OpCode::dot_general, {g, y}, DotGeneralAttrs{gb, yb, gy, yk});
  IntList ys(yc.size());
  std::iota(ys.begin(), ys.end(), 0);
  std::sort(ys.begin(), ys.end(), [&](int64_t a, int64_t b) {
    return yc[static_cast<size_t>(a)] < yc[static_cast<size_t>(b)];
  });
  IntList order = xb;
  order.insert(order.end(), xk.begin(), xk.end());
  for (int64_t i : ys) order.push_back(xc[static_cast<size_t>(i)]);
  IntList perm(order.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    return order[static_cast<size_t>(a)] < order[static_cast<size_t>(b)];
  });
  return op(OpCode::transpose, {r}, TransposeAttrs{perm});
}

struct Grads {
  Tensor x, y;
  int x_transposes, y_transposes;
};

// The gradients of <dot_general(x, y), g> by backward(), with the transposes they record.
Grads backward_grads(const Tensor& x0, const Tensor& y0, const Tensor& g,
                     const DotGeneralAttrs& a) {
  Tensor x = x0.detach(), y = y0.detach();
  x.requires_grad_();
  y.requires_grad_();
  op(OpCode::dot_general, {x, y}, a).backward(g);
  Grads out{x.grad(), y.grad(), count_ops(x.grad(), OpCode::transpose),
            count_ops(y.grad(), OpCode::transpose)};
  return out;
}

void expect_bits(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
}

// f32 (rounded: a different sum would show), compared with the old rule bit for bit; then
// finite differences in f64. Returns the transposes each gradient recorded.
std::pair<int, int> check(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys,
                          const DotGeneralAttrs& a, uint64_t seed) {
  Tensor x = rnd(xs, seed, DType::f32), y = rnd(ys, seed + 1, DType::f32);
  Tensor out = op(OpCode::dot_general, {x, y}, a);
  Tensor g = rnd(out.sizes(), seed + 2, DType::f32);
  lazax::sync();
  Grads got = backward_grads(x, y, g, a);
  std::pair<int, int> transposes{got.x_transposes, got.y_transposes};
  expect_bits(got.x, reference_ct(g, x, y, a.lhs_contracting, a.rhs_contracting, a.lhs_batch,
                                  a.rhs_batch, false));
  expect_bits(got.y, reference_ct(g, y, x, a.rhs_contracting, a.lhs_contracting, a.rhs_batch,
                                  a.lhs_batch, true));
  expect_grads(one([a](const Tensors& v) {
                 return op(OpCode::dot_general, {v[0], v[1]}, a);
               }),
               {x.to(DType::f64), y.to(DType::f64)}, 1);
  return transposes;
}

}  // namespace

TEST(DotVjpOrder, Matmul2d) {
  // x[3,4] @ w[4,5]: dx = g w^T, dw = x^T g; neither needs a transpose.
  EXPECT_EQ(check({3, 4}, {4, 5}, {{}, {}, {1}, {0}}, 1), std::make_pair(0, 0));
}

TEST(DotVjpOrder, WeightGradientOf3dTimes2dRecordsNoTranspose) {
  // x[2,8,6] @ w[6,5]: dw contracts g and x over (2,8); x first gives [6,5] directly.
  EXPECT_EQ(check({2, 8, 6}, {6, 5}, {{}, {}, {2}, {0}}, 10), std::make_pair(0, 0));
  // The same with the weight on the left (w[5,6] . x[2,8,6] over 6): dw is g . x again.
  EXPECT_EQ(check({5, 6}, {2, 8, 6}, {{}, {}, {1}, {2}}, 20), std::make_pair(0, 0));
}

TEST(DotVjpOrder, BatchedAttentionMatmuls) {
  // scores = q k^T: q[2,3,4,5], k[2,3,6,5] over the last dim.
  EXPECT_EQ(check({2, 3, 4, 5}, {2, 3, 6, 5}, {{0, 1}, {0, 1}, {3}, {3}}, 30),
            std::make_pair(0, 0));
  // out = p v: p[2,3,4,6], v[2,3,6,5]; dv = p^T g needs p first.
  EXPECT_EQ(check({2, 3, 4, 6}, {2, 3, 6, 5}, {{0, 1}, {0, 1}, {3}, {2}}, 40),
            std::make_pair(0, 0));
  // q . kt with kt[2,3,5,6] already transposed: dkt = q^T g.
  EXPECT_EQ(check({2, 3, 4, 5}, {2, 3, 5, 6}, {{0, 1}, {0, 1}, {3}, {2}}, 50),
            std::make_pair(0, 0));
}

TEST(DotVjpOrder, NoOrderFitsKeepsTheTranspose) {
  // Contracting the middle dim of x[3,4,5] with y[4,6]: dx = dot(g, y) lists (3,5,4) and
  // dot(y, g) lists (4,3,5); neither is x's order.
  EXPECT_EQ(check({3, 4, 5}, {4, 6}, {{}, {}, {1}, {0}}, 60).first, 1);
  // Batch dims listed out of order, and two contracting dims in swapped order.
  check({3, 2, 4}, {2, 4, 5}, {{1}, {0}, {2}, {1}}, 70);
  check({2, 3, 4}, {4, 3, 5}, {{}, {}, {1, 2}, {1, 0}}, 80);
}
