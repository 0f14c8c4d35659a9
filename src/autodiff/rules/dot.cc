// VJP and JVP rules of dot_general. dot_general is bilinear: its JVP is the sum of the products
// with one tangent each, and its VJP contracts the cotangent with the other operand and
// transposes the result back into the operand's dimension order (JAX's
// _dot_general_transpose_lhs/rhs), unless contracting them the other way round gives that order
// directly.
#include <algorithm>
#include <numeric>

#include "common.h"

namespace lazax::autodiff {
using namespace detail;

namespace {

bool contains(const IntList& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Dimensions 0..rank-1 that are in neither list, in order.
IntList remaining(int64_t rank, const IntList& a, const IntList& b) {
  IntList out;
  for (int64_t d = 0; d < rank; ++d)
    if (!contains(a, d) && !contains(b, d)) out.push_back(d);
  return out;
}

IntList iota_list(int64_t start, size_t n) {
  IntList out(n);
  std::iota(out.begin(), out.end(), start);
  return out;
}

IntList argsort(const IntList& v) {
  IntList idx = iota_list(0, v.size());
  std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return v[static_cast<size_t>(a)] < v[static_cast<size_t>(b)];
  });
  return idx;
}

// The cotangent of x in out = dot_general(x, y) (or of y when swap_ans: then out's free dims
// list y's before x's). g has out's shape.
Tensor transpose_lhs(const Tensor& g, const Tensor& x, const Tensor& y, const IntList& x_contract,
                     const IntList& y_contract, const IntList& x_batch, const IntList& y_batch,
                     bool swap_ans) {
  const int64_t x_rank = x.dim(), y_rank = y.dim();
  IntList x_kept = remaining(x_rank, x_contract, x_batch);
  IntList y_kept = remaining(y_rank, y_contract, y_batch);
  // Positions in g: batch dims first, then the free dims of each side.
  IntList ans_batch = iota_list(0, x_batch.size());
  IntList ans_y;
  if (swap_ans) {
    ans_y = iota_list(static_cast<int64_t>(x_batch.size()), y_kept.size());
  } else {
    ans_y = iota_list(static_cast<int64_t>(x_batch.size() + x_kept.size()), y_kept.size());
  }
  // dot_general(g, y) contracting g's y-free dims with y's kept dims: its result lists
  // x_batch, then x_kept (g's remaining dims), then x_contract in y_contract's sorted order.
  IntList contracted;
  for (int64_t i : argsort(y_contract)) contracted.push_back(x_contract[static_cast<size_t>(i)]);
  IntList order = x_batch;
  order.insert(order.end(), x_kept.begin(), x_kept.end());
  order.insert(order.end(), contracted.begin(), contracted.end());
  if (!is_iota(order)) {
    // dot_general(y, g) lists the two free groups the other way round. When that is x's order
    // already (a weight gradient: x^T g rather than (g^T x)^T), it needs no transpose. The sums
    // are the same: the same contraction pairs, in the same order, products commuted.
    IntList swapped = x_batch;
    swapped.insert(swapped.end(), contracted.begin(), contracted.end());
    swapped.insert(swapped.end(), x_kept.begin(), x_kept.end());
    if (is_iota(swapped))
      return record_op(OpCode::dot_general, {y, g},
                       DotGeneralAttrs{y_batch, ans_batch, y_kept, ans_y});
  }
  Tensor r =
      record_op(OpCode::dot_general, {g, y}, DotGeneralAttrs{ans_batch, y_batch, ans_y, y_kept});
  if (is_iota(order)) return r;
  return record_op(OpCode::transpose, {r}, TransposeAttrs{argsort(order)});
}

}  // namespace

Tensors vjp_dot_general(const OpContext& c, const Tensors& cts) {
  if (!cts[0].defined() || !is_floating(c.inputs[0].dtype())) return no_cts(c);
  const auto& a = c.attr<DotGeneralAttrs>();
  const Tensor &x = c.inputs[0], &y = c.inputs[1];
  Tensors out(2);
  if (needs_ct(c, 0))
    out[0] = transpose_lhs(cts[0], x, y, a.lhs_contracting, a.rhs_contracting, a.lhs_batch,
                           a.rhs_batch, false);
  if (needs_ct(c, 1))
    out[1] = transpose_lhs(cts[0], y, x, a.rhs_contracting, a.lhs_contracting, a.rhs_batch,
                           a.lhs_batch, true);
  return out;
}

Tensors jvp_dot_general(const OpContext& c, const Tensors& ts) {
  if (all_undefined(ts) || !is_floating(c.inputs[0].dtype())) return {Tensor()};
  Tensor r;
  if (ts[0].defined()) r = record_op(OpCode::dot_general, {ts[0], c.inputs[1]}, c.attrs);
  if (ts[1].defined())
    r = add_maybe(r, record_op(OpCode::dot_general, {c.inputs[0], ts[1]}, c.attrs));
  return {r};
}

}  // namespace lazax::autodiff
