// The per-primitive vmap cases: each records its primitive exactly (record_op with explicit
// attributes), with batched and unbatched operands mixed, so each batching rule's cases run.
#include "op_cases.h"

#include "lazax/api/tensor_impl.h"

namespace lazax::vmap_test {

namespace {

FlatFn prim(OpCode op, const SharedAttrs& attrs = {}) {
  return [op, attrs](const Tensors& xs) { return record_op(op, xs, attrs).vec(); };
}
Input f32(std::vector<int64_t> s, double lo = -2, double hi = 2, bool batched = true) {
  return {std::move(s), DType::f32, lo, hi, batched};
}
Input of(DType t, std::vector<int64_t> s, double lo, double hi, bool batched = true) {
  return {std::move(s), t, lo, hi, batched};
}
Input fixed(Input in) {
  in.batched = false;
  return in;
}

void unary(std::vector<OpCase>& cs, const std::vector<OpCode>& ops, double lo, double hi) {
  for (OpCode op : ops) cs.push_back({{std::string(op_name(op))}, prim(op), {f32({2, 3}, lo, hi)}});
}
void binary(std::vector<OpCase>& cs, const std::vector<OpCode>& ops, const Input& a, const Input& b,
            const SharedAttrs& attrs = {}) {
  for (OpCode op : ops) {
    std::string n(op_name(op));
    cs.push_back({{n}, prim(op, attrs), {a, b}});
    cs.push_back({{n}, prim(op, attrs), {a, fixed(b)}});
    cs.push_back({{n}, prim(op, attrs), {fixed(a), b}});
  }
}

void elementwise_cases(std::vector<OpCase>& cs) {
  using O = OpCode;
  unary(cs,
        {O::neg, O::abs, O::relu, O::sign, O::exp, O::tanh, O::logistic, O::sin, O::cos, O::erf,
         O::floor, O::round, O::ceil, O::expm1, O::exp2, O::tan, O::is_finite},
        -1.2, 1.2);
  unary(cs, {O::log, O::log1p, O::sqrt, O::rsqrt, O::erf_inv}, 0.1, 0.9);
  binary(cs, {O::add, O::sub, O::mul, O::max, O::min, O::atan2}, f32({4}), f32({4}));
  binary(cs, {O::div, O::rem}, f32({4}), f32({4}, 0.5, 2));
  binary(cs, {O::pow}, f32({4}, 0.5, 2), f32({4}));
  binary(cs, {O::and_, O::or_, O::xor_}, of(DType::i32, {3}, -50, 50),
         of(DType::i32, {3}, -50, 50));
  binary(cs, {O::shift_left, O::shift_right_logical, O::shift_right_arithmetic},
         of(DType::i32, {3}, -50, 50), of(DType::i32, {3}, 0, 8));
  cs.push_back({{"not"}, prim(O::not_), {of(DType::i32, {3}, -9, 9)}});
  binary(cs, {O::compare}, f32({4}), f32({4}), CompareAttrs{CompareDir::lt});
  cs.push_back({{"convert"}, prim(O::convert, ConvertAttrs{DType::i32}), {f32({2, 2}, -9, 9)}});
  Input pred = of(DType::boolean, {3}, 0, 1);
  cs.push_back({{"select"}, prim(O::select), {pred, f32({3}), fixed(f32({3}))}});
  cs.push_back({{"select"}, prim(O::select), {fixed(pred), f32({3}), f32({3})}});
  // A scalar predicate batched: one choice per example.
  cs.push_back({{"select"}, prim(O::select), {of(DType::boolean, {}, 0, 1), f32({3}), f32({3})}});
  cs.push_back({{"clamp"}, prim(O::clamp), {f32({}, -1, 0), f32({3}), fixed(f32({}, 0, 1))}});
  cs.push_back({{"clamp"}, prim(O::clamp), {fixed(f32({3}, -1, 0)), f32({3}), f32({3}, 0, 1)}});
}

void layout_cases(std::vector<OpCase>& cs) {
  using O = OpCode;
  cs.push_back({{"broadcast_in_dim"},
                prim(O::broadcast_in_dim, BroadcastInDimAttrs{Shape{2, 4, 3}, {0, 2}}),
                {f32({2, 3})}});
  cs.push_back({{"reshape"}, prim(O::reshape, ReshapeAttrs{Shape{3, 2}}), {f32({2, 3})}});
  cs.push_back({{"transpose"}, prim(O::transpose, TransposeAttrs{{2, 0, 1}}), {f32({2, 3, 4})}});
  cs.push_back({{"slice"}, prim(O::slice, SliceAttrs{{0, 1}, {2, 4}, {1, 2}}), {f32({3, 5})}});
  cs.push_back({{"slice"}, prim(O::slice, SliceAttrs{{1}, {3}, {}}), {f32({4})}});
  cs.push_back({{"concatenate"},
                prim(O::concatenate, ConcatenateAttrs{1}),
                {f32({2, 3}), fixed(f32({2, 1})), f32({2, 2})}});
  cs.push_back(
      {{"pad"}, prim(O::pad, PadAttrs{{1, -1}, {0, 2}, {1, 0}}), {f32({2, 3}), fixed(f32({}))}});
  cs.push_back({{"pad"}, prim(O::pad, PadAttrs{{1}, {1}, {0}}), {f32({2}), f32({})}});
  cs.push_back(
      {{"pad"}, prim(O::pad, PadAttrs{{1, -1}, {0, 2}, {1, 0}}), {fixed(f32({2, 3})), f32({})}});
  cs.push_back({{"rev"}, prim(O::rev, RevAttrs{{0, 2}}), {f32({2, 3, 2})}});
}

void reduce_cases(std::vector<OpCase>& cs) {
  using O = OpCode;
  for (OpCode op : {O::reduce_sum, O::reduce_max, O::reduce_min, O::reduce_prod})
    cs.push_back({{std::string(op_name(op))}, prim(op, ReduceAttrs{{0, 2}}), {f32({2, 3, 2})}});
  for (OpCode op : {O::reduce_and, O::reduce_or}) {
    cs.push_back({{std::string(op_name(op))},
                  prim(op, ReduceAttrs{{1}}),
                  {of(DType::boolean, {2, 3}, 0, 1)}});
  }
  for (OpCode op : {O::argmax, O::argmin})
    cs.push_back({{std::string(op_name(op))}, prim(op, ArgmaxAttrs{1, DType::i64}), {f32({2, 5})}});
  for (OpCode op : {O::cumsum, O::cumprod, O::cummax, O::cummin})
    cs.push_back(
        {{std::string(op_name(op))}, prim(op, CumsumAttrs{0, op == O::cumprod}), {f32({4, 2})}});
  cs.push_back({{"sort"}, prim(O::sort, SortAttrs{1, true}), {f32({2, 5})}});
  DotGeneralAttrs mm{{}, {}, {1}, {0}};
  DotGeneralAttrs bmm{{0}, {1}, {2}, {0}};
  for (const DotGeneralAttrs& a : {mm, bmm}) {
    const bool b = !a.lhs_batch.empty();
    Input l = b ? f32({2, 3, 4}) : f32({3, 4});
    Input r = b ? f32({4, 2, 5}) : f32({4, 5});
    cs.push_back({{"dot_general"}, prim(O::dot_general, a), {l, r}, 1e-4});
    cs.push_back({{"dot_general"}, prim(O::dot_general, a), {fixed(l), r}, 1e-4});
    cs.push_back({{"dot_general"}, prim(O::dot_general, a), {l, fixed(r)}, 1e-4});
  }
}

void indexing_cases(std::vector<OpCase>& cs) {
  using O = OpCode;
  Input start = of(DType::i32, {}, 0, 3);
  cs.push_back({{"dynamic_slice"},
                prim(O::dynamic_slice, DynamicSliceAttrs{{2, 1}}),
                {f32({4, 3}), start, fixed(start)}});
  cs.push_back({{"dynamic_update_slice"},
                prim(O::dynamic_update_slice),
                {fixed(f32({4, 3})), f32({2, 2}), start, start}});
  // Only the operand batched, only the starts, a start out of range (clamped), a bool operand.
  cs.push_back({{"dynamic_slice"},
                prim(O::dynamic_slice, DynamicSliceAttrs{{2, 1}}),
                {f32({4, 3}), fixed(start), fixed(start)}});
  cs.push_back({{"dynamic_slice"},
                prim(O::dynamic_slice, DynamicSliceAttrs{{3, 2}}),
                {fixed(f32({4, 3})), of(DType::i64, {}, -2, 5), of(DType::i32, {}, 0, 3)}});
  cs.push_back({{"dynamic_update_slice"},
                prim(O::dynamic_update_slice),
                {f32({4, 3}), f32({2, 2}), fixed(start), fixed(start)}});
  cs.push_back({{"dynamic_update_slice"},
                prim(O::dynamic_update_slice),
                {f32({4, 3}), fixed(f32({3, 1})), of(DType::i64, {}, -2, 5), fixed(start)}});
  cs.push_back({{"dynamic_update_slice"},
                prim(O::dynamic_update_slice),
                {of(DType::boolean, {4}, 0, 1), of(DType::boolean, {2}, 0, 1), start}});
  Input rows = of(DType::i64, {2, 3}, 0, 3);
  auto gather_fn = [](const Tensors& xs) { return Tensors{gather(xs[0], 0, xs[1])}; };
  cs.push_back({{"gather"}, gather_fn, {f32({4, 3}), rows}});
  cs.push_back({{"gather"}, gather_fn, {fixed(f32({4, 3})), rows}});
  cs.push_back({{"gather"}, gather_fn, {f32({4, 3}), fixed(rows)}});
  // lax-style: index vectors of two coordinates picking [1, 2] windows, one dim collapsed.
  cs.push_back({{"gather"},
                prim(O::gather, GatherAttrs{{1}, {0}, {0, 1}, {1, 2}, GatherMode::clip}),
                {f32({4, 3}), of(DType::i32, {5, 2}, -1, 4)}});
  cs.push_back({{"gather"},
                prim(O::gather, GatherAttrs{{1}, {0}, {0, 1}, {1, 2}, GatherMode::fill}),
                {fixed(f32({4, 3})), of(DType::i32, {5, 2}, -1, 4)}});
  auto scatter_fn = [](const Tensors& xs) { return Tensors{scatter_add(xs[0], 0, xs[1], xs[2])}; };
  Input upd = f32({2, 3});
  cs.push_back({{"scatter_add"}, scatter_fn, {fixed(f32({4, 3})), rows, upd}});
  cs.push_back({{"scatter_add"}, scatter_fn, {f32({4, 3}), fixed(rows), fixed(upd)}});
  cs.push_back({{"scatter_add"}, scatter_fn, {fixed(f32({4, 3})), fixed(rows), upd}});
  cs.push_back({{"scatter_add"}, scatter_fn, {f32({4, 3}), rows, fixed(upd)}});
  cs.push_back({{"scatter_add"},
                prim(O::scatter_add, ScatterAttrs{{1}, {0}, {0, 1}, GatherMode::fill}),
                {f32({4, 3}), of(DType::i32, {5, 2}, -1, 4), f32({5, 2})}});
  // A batched key: independent streams (the unbatched key is in vmap_compose_test.cc).
  cs.push_back({{"random_bits"},
                prim(O::random_bits, RandomBitsAttrs{Shape{5}, DType::i32}),
                {of(DType::i64, {2}, 0, 1000)}});
  // Every dtype, a stream of several blocks, keys with high bits set (negative ones included).
  for (DType t : {DType::u32, DType::i32, DType::u8, DType::i8, DType::i64}) {
    cs.push_back({{"random_bits"},
                  prim(O::random_bits, RandomBitsAttrs{Shape{3, 3}, t}),
                  {of(DType::i64, {2}, -1e18, 1e18)}});
  }
}

void misc_cases(std::vector<OpCase>& cs) {
  using O = OpCode;
  cs.push_back(
      {{"checkpoint_name"}, prim(O::checkpoint_name, CheckpointNameAttrs{"h"}), {f32({3})}});
  cs.push_back(
      {{"copy_to_memory_kind"}, prim(O::copy_to_memory_kind, MemoryKindAttrs{}), {f32({3})}});
  cs.push_back(
      {{"optimization_barrier"}, prim(O::optimization_barrier), {f32({3}), fixed(f32({2}))}});
  cs.push_back({{"constant", "iota", "parameter"},
                [](const Tensors& xs) {
                  Tensor i = record_op(O::iota, {}, IotaAttrs{DType::f32, Shape{3}, 0});
                  return Tensors{xs[0] * i + 1.0};
                },
                {f32({3})}});
  cs.push_back({{"all_reduce"}, prim(O::all_reduce, AllReduceAttrs{}), {f32({3})}});
  cs.push_back({{"all_gather"}, prim(O::all_gather, AllGatherAttrs{1, 1}), {f32({2, 3})}});
  cs.push_back({{"reduce_scatter"},
                prim(O::reduce_scatter, ReduceScatterAttrs{ReduceKind::sum, 1, 1}),
                {f32({2, 3})}});
  cs.push_back({{"all_to_all"}, prim(O::all_to_all, AllToAllAttrs{0, 1, 1}), {f32({2, 3})}});
  cs.push_back({{"collective_broadcast"},
                prim(O::collective_broadcast, CollectiveBroadcastAttrs{}),
                {f32({3})}});
  cs.push_back({{"axis_index"},
                [](const Tensors& xs) {
                  Tensor r = record_op(O::axis_index, {}, AxisIndexAttrs{});
                  return Tensors{xs[0] + r.to(DType::f32)};
                },
                {f32({3})}});
}

void control_cases(std::vector<OpCase>& cs) {
  cs.push_back({{"call"},
                [](const Tensors& xs) {
                  auto inner = assume_pure(
                      [](const Tensor& a, const Tensor& b) { return (a * b).tanh().sum({0}); });
                  return Tensors{inner(xs[0], xs[1])};
                },
                {f32({2, 3}), fixed(f32({2, 3}))}});
  cs.push_back({{"cond"},
                [](const Tensors& xs) {
                  return cond(
                      gt(xs[0].sum(), scalar_tensor(0.0)),
                      [](const Tensors& o) {
                        return Tensors{o[0] * 2.0, o[1]};
                      },
                      [](const Tensors& o) {
                        return Tensors{o[0].exp(), o[1] + 1.0};
                      },
                      Tensors{xs[0], xs[1]});
                },
                {f32({3}), fixed(f32({2}))}});
  cs.push_back({{"cond"},
                [](const Tensors& xs) {
                  std::vector<BranchFn> bs;
                  bs.reserve(3);
                  for (int k = 0; k < 3; ++k)
                    bs.push_back([k](const Tensors& o) { return Tensors{o[0] * (k + 1.0)}; });
                  return switch_(xs[1], bs, Tensors{xs[0]});
                },
                {f32({3}), of(DType::i32, {}, -1, 4)}});
  cs.push_back({{"while"},
                [](const Tensors& xs) {
                  return while_loop(
                      [](const Tensors& c) { return Tensors{lt(c[0].sum(), scalar_tensor(10.0))}; },
                      [](const Tensors& c) { return Tensors{c[0] * 2.0}; }, Tensors{xs[0]});
                },
                {f32({2}, 0.5, 2)}});
  // An unbatched predicate (a counter) with a batched carry; a captured batched factor.
  cs.push_back({{"while"},
                [](const Tensors& xs) {
                  Tensor k = xs[1];
                  return while_loop(
                      [](const Tensors& c) { return Tensors{lt(c[0], scalar_tensor(3.0))}; },
                      [k](const Tensors& c) {
                        return Tensors{c[0] + 1.0, c[1] * k + 1.0};
                      },
                      Tensors{xs[0], xs[2]});
                },
                {fixed(f32({}, 0, 1)), f32({2}), f32({2})}});
  // A batched predicate with an unbatched carry that changes and one that passes through.
  cs.push_back({{"while"},
                [](const Tensors& xs) {
                  Tensor w = xs[2];
                  return while_loop(
                      [](const Tensors& c) { return Tensors{lt(c[0].sum(), scalar_tensor(6.0))}; },
                      [w](const Tensors& c) {
                        return Tensors{c[0] + w, c[1] + 1.0, c[2]};
                      },
                      Tensors{xs[0], xs[1], xs[3]});
                },
                {f32({2}, -2, 1), fixed(f32({})), fixed(f32({2}, 0.5, 1)), fixed(f32({3}))}});
  // Unbatched xs with a batched carry, reversed; batched xs with an unbatched carry.
  cs.push_back({{"scan"},
                [](const Tensors& xs) {
                  auto [c, ys] = scan(
                      [](const Tensors& c, const Tensors& x) {
                        Tensor n = c[0] * 0.5 + x[0];
                        return std::pair{Tensors{n}, Tensors{n.sum(), x[0] * 2.0}};
                      },
                      Tensors{xs[0]}, Tensors{xs[1]}, true);
                  return Tensors{c[0], ys[0], ys[1]};
                },
                {f32({2}), fixed(f32({4, 2}))}});
  cs.push_back({{"scan"},
                [](const Tensors& xs) {
                  auto [c, ys] = scan(
                      [](const Tensors& c, const Tensors& x) {
                        return std::pair{Tensors{c[0] + 1.0}, Tensors{x[0] * c[0]}};
                      },
                      Tensors{xs[0]}, Tensors{xs[1]});
                  return Tensors{c[0], ys[0]};
                },
                {fixed(f32({})), f32({3, 2})}});
  // cond on an unbatched predicate with batched operands: one branch runs.
  cs.push_back({{"cond"},
                [](const Tensors& xs) {
                  return cond(
                      gt(xs[1], scalar_tensor(0.0)),
                      [](const Tensors& o) {
                        return Tensors{o[0] * 2.0, o[1]};
                      },
                      [](const Tensors& o) {
                        return Tensors{o[0].exp(), o[1] + o[0].sum()};
                      },
                      Tensors{xs[0], xs[1]});
                },
                {f32({3}), fixed(f32({}))}});
  cs.push_back({{"scan"},
                [](const Tensors& xs) {
                  auto [c, ys] = scan(
                      [](const Tensor& c, const Tensor& x) {
                        Tensor n = c * x + 1.0;
                        return std::pair{n, n.sum()};
                      },
                      xs[0], xs[1]);
                  return Tensors{c, ys};
                },
                {f32({2}), f32({4, 2})}});
}

}  // namespace

std::vector<OpCase> op_cases() {
  std::vector<OpCase> cs;
  elementwise_cases(cs);
  layout_cases(cs);
  reduce_cases(cs);
  indexing_cases(cs);
  misc_cases(cs);
  control_cases(cs);
  return cs;
}

}  // namespace lazax::vmap_test
