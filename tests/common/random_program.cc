#include "random_program.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>

#include "lazax/ir/builder.h"

namespace lazax::testing {
namespace {

class Gen {
 public:
  Gen(uint64_t seed, const RandomProgramOptions& o, const std::string& name)
      : rng_(seed), o_(o), b_(name) {}

  FunctionPtr program() {
    for (int i = 0; i < o_.num_params; ++i) pool_.push_back(b_.param(random_type(i == 0)));
    if (bf16_mode()) {  // the f32 parameters converted to bf16 at the start (autocast's cast)
      for (int i = 0; i < o_.num_params; ++i)
        if (type(pool_[static_cast<size_t>(i)]).dtype == DType::f32)
          add(OpCode::convert, {pool_[static_cast<size_t>(i)]}, ConvertAttrs{DType::bf16});
    }
    for (int i = 0; i < o_.num_steps; ++i) step();
    return finish();
  }
  // A callee: parameters of the given types, a few steps, results among its values (of the
  // types `results` when not empty: a value of the pool, else a constant).
  FunctionPtr callee(const std::vector<TensorType>& params,
                     const std::vector<TensorType>& results = {}) {
    for (const TensorType& t : params) pool_.push_back(b_.param(t));
    for (int i = 0; i < o_.num_steps; ++i) step();
    if (results.empty()) return finish();
    std::vector<ValueRef> out;
    out.reserve(results.size());
    for (const TensorType& t : results) {
      auto v = choose([&](ValueRef x) { return type(x) == t; });
      out.push_back(v ? *v : constant(t));
    }
    return b_.build(out);
  }

 private:
  int64_t pick(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }
  const TensorType& type(ValueRef v) const { return b_.type(v); }
  bool bf16_mode() const { return o_.float_dtype == DType::bf16; }
  // Of the floating dtype the arithmetic runs in (f32, or bf16 in the bf16 mode).
  bool is_float(ValueRef v) const { return type(v).dtype == o_.float_dtype; }
  // Whether arithmetic may take v: not a bool, nor an f32 value in the bf16 mode (those only move
  // through layout ops and converts, so that all float arithmetic is in bf16).
  bool computes(ValueRef v) const {
    const DType d = type(v).dtype;
    return d != DType::boolean && (d != DType::f32 || !bf16_mode());
  }

  TensorType random_type(bool floating) {
    TensorType t;
    t.dtype = (!floating && o_.integers && coin(0.25)) ? DType::i32 : o_.float_dtype;
    // the bf16 mode: a third of the float parameters are f32 (program() converts them to bf16)
    if (t.dtype == DType::bf16 && coin(1.0 / 3)) t.dtype = DType::f32;
    int64_t rank = pick(0, o_.max_rank);
    for (int64_t d = 0; d < rank; ++d) t.shape.dims().push_back(pick(1, o_.max_dim));
    return t;
  }

  // A value of the pool, recent ones preferred (deep chains), matching `ok`; nullopt if none.
  template <class Ok>
  std::optional<ValueRef> choose(Ok ok) {
    std::vector<ValueRef> fit;
    for (ValueRef v : pool_)
      if (ok(v)) fit.push_back(v);
    if (fit.empty()) return std::nullopt;
    size_t n = fit.size();
    if (n > 4 && coin(0.6))
      return fit[static_cast<size_t>(
          pick(static_cast<int64_t>(n) - 4, static_cast<int64_t>(n) - 1))];
    return fit[static_cast<size_t>(pick(0, static_cast<int64_t>(n) - 1))];
  }
  ValueRef any() {
    if (pool_.empty()) pool_.push_back(constant({o_.float_dtype, Shape{}}));
    return choose([](ValueRef) { return true; }).value_or(pool_.back());
  }
  ValueRef numeric() {
    auto v = choose([&](ValueRef x) { return computes(x); });
    return v ? *v : constant({o_.float_dtype, Shape{}});
  }
  ValueRef floating() {
    auto v = choose([&](ValueRef x) { return is_float(x); });
    return v ? *v : constant({o_.float_dtype, Shape{}});
  }

  ValueRef add(OpCode op, std::vector<ValueRef> ops, Attrs attrs = NoAttrs{}) {
    ValueRef v = b_.add(op, std::move(ops), std::move(attrs));
    pool_.push_back(v);
    return v;
  }
  ValueRef scalar_splat(const TensorType& t, double x) {
    ValueRef c = b_.constant(Literal::scalar_of(t.dtype, x));
    if (t.shape.rank() == 0) return c;
    return b_.add(OpCode::broadcast_in_dim, {c}, BroadcastInDimAttrs{t.shape, {}});
  }
  // A constant of type t: random values, or all 0 / all 1 (which simplify removes).
  ValueRef constant(const TensorType& t) {
    int64_t kind = pick(0, 3);
    if (kind == 0) return scalar_splat(t, 0);
    if (kind == 1) return scalar_splat(t, 1);
    Literal l = Literal::zeros(t);
    for (int64_t i = 0; i < l.numel(); ++i) {
      if (t.dtype == DType::f32) {
        l.data<float>()[i] = static_cast<float>(pick(-8, 8)) / 4;
      } else if (t.dtype == DType::bf16) {
        l.data<bf16>()[i] = bf16(static_cast<float>(pick(-8, 8)) / 4);
      } else if (t.dtype == DType::i32) {
        l.data<int32_t>()[i] = static_cast<int32_t>(pick(-3, 3));
      } else {
        l.data<bool>()[i] = coin(0.5);
      }
    }
    return b_.constant(l);
  }
  ValueRef partner(ValueRef x) {  // a value of x's type
    auto v = coin(0.6) ? choose([&](ValueRef y) { return type(y) == type(x); }) : std::nullopt;
    return v ? *v : constant(type(x));
  }

  void unary() {
    ValueRef x = floating();
    static constexpr OpCode kTotal[] = {OpCode::neg,  OpCode::abs,      OpCode::relu,  OpCode::sign,
                                        OpCode::tanh, OpCode::logistic, OpCode::sin,   OpCode::cos,
                                        OpCode::erf,  OpCode::floor,    OpCode::round, OpCode::ceil,
                                        OpCode::tan};
    switch (pick(0, 5)) {
      case 0:  // exp, exp2 or erf_inv of a bounded value
      {
        static constexpr OpCode kBounded[] = {OpCode::exp, OpCode::exp2, OpCode::erf_inv};
        const OpCode op = kBounded[pick(0, 2)];
        ValueRef t = add(OpCode::tanh, {x});
        // erf_inv away from +-1, where a last-bit difference in tanh (the fused kernel's SIMD
        // tanh is within 4 ulp of libm's) would be the difference between finite and inf
        if (op == OpCode::erf_inv) t = add(OpCode::mul, {t, scalar_splat(type(t), 0.5)});
        add(op, {t});
        return;
      }
      case 5:  // is_finite, as a float again
        add(OpCode::convert, {add(OpCode::is_finite, {x})}, ConvertAttrs{o_.float_dtype});
        return;
      case 1:  // log, sqrt, rsqrt, log1p of |x| + 1
      {
        ValueRef a = add(OpCode::add, {add(OpCode::abs, {x}), scalar_splat(type(x), 1)});
        static constexpr OpCode kPos[] = {OpCode::log, OpCode::sqrt, OpCode::rsqrt, OpCode::log1p,
                                          OpCode::expm1};
        add(kPos[pick(0, 4)], {a});
        return;
      }
      default:
        add(kTotal[pick(0, 12)], {x});
    }
  }
  void binary() {
    ValueRef x = numeric();
    ValueRef y = partner(x);
    if (coin(0.4)) std::swap(x, y);  // constants on either side
    bool f = is_float(x);
    switch (pick(0, 9)) {
      case 0:
        add(OpCode::add, {x, y});
        return;
      case 1:
        add(OpCode::sub, {x, y});
        return;
      case 2:
        add(OpCode::mul, {x, y});
        return;
      case 3:
        add(OpCode::max, {x, y});
        return;
      case 4:
        add(OpCode::min, {x, y});
        return;
      case 5:  // x / (|y| + 1): integer division too
        add(OpCode::div,
            {x, b_.add(OpCode::add, {b_.add(OpCode::abs, {y}), scalar_splat(type(y), 1)})});
        return;
      case 6:
        if (!f) {  // the bitwise ops and shifts of i32
          static constexpr OpCode kBits[] = {OpCode::and_,
                                             OpCode::or_,
                                             OpCode::xor_,
                                             OpCode::shift_left,
                                             OpCode::shift_right_logical,
                                             OpCode::shift_right_arithmetic};
          add(kBits[pick(0, 5)], {x, y});
          return;
        }
        add(OpCode::atan2, {x, y});
        return;
      case 7:  // rem, by |y| + 1 for integers (and 0 for floats: NaN)
        add(OpCode::rem,
            {x, f ? y : b_.add(OpCode::add, {b_.add(OpCode::abs, {y}), scalar_splat(type(y), 1)})});
        return;
      case 8:  // clamp with scalar or full bounds
      {
        ValueRef lo = coin(0.5) ? y : constant(TensorType{type(x).dtype, Shape{}});
        add(OpCode::clamp, {lo, x, partner(x)});
        return;
      }
      case 9:
        if (!f) {
          add(OpCode::not_, {x});
          return;
        }
        [[fallthrough]];
      default:  // (|x| + 1) ** y
        add(OpCode::pow,
            {b_.add(OpCode::add, {b_.add(OpCode::abs, {x}), scalar_splat(type(x), 1)}), y});
    }
  }
  void compare_select() {
    ValueRef x = numeric();
    ValueRef y = partner(x);
    auto dir = static_cast<CompareDir>(pick(0, 5));
    ValueRef c = add(OpCode::compare, {x, y}, CompareAttrs{dir});
    if (coin(0.7)) {
      add(OpCode::select, {c, coin(0.5) ? x : y, coin(0.5) ? y : x});
    } else {
      add(OpCode::convert, {c}, ConvertAttrs{o_.float_dtype});
    }
  }
  void convert() {
    ValueRef x = any();
    if (bf16_mode()) return convert_bf16_mode(x);
    DType to = coin(0.2) ? type(x).dtype : (is_float(x) ? DType::i32 : DType::f32);
    if (to == DType::i32 && !o_.integers) to = DType::f32;
    add(OpCode::convert, {x}, ConvertAttrs{to});
  }
  // bf16 <-> f32 (f32 -> bf16 rounds to nearest even), a float <-> i32 or from bool, or an
  // identity; a bf16 -> f32 convert is often converted back at once (autocast's round trip).
  void convert_bf16_mode(ValueRef x) {
    const DType from = type(x).dtype;
    DType to = from;  // an identity, a fifth of the time
    if (!coin(0.2)) {
      if (from == DType::bf16) {
        to = o_.integers && coin(0.4) ? DType::i32 : DType::f32;
      } else if (from == DType::f32) {
        to = o_.integers && coin(0.2) ? DType::i32 : DType::bf16;
      } else {
        to = coin(0.25) ? DType::f32 : DType::bf16;
      }
    }
    ValueRef y = add(OpCode::convert, {x}, ConvertAttrs{to});
    if (from == DType::bf16 && to == DType::f32 && coin(0.5))
      add(OpCode::convert, {y}, ConvertAttrs{DType::bf16});
  }
  void broadcast() {
    ValueRef x = any();
    const Shape& s = type(x).shape;
    auto r = static_cast<int64_t>(s.rank());
    if (r >= o_.max_rank || coin(0.15)) {  // expand size-1 dims, or an identity broadcast
      Shape to = s;
      for (size_t d = 0; d < to.rank(); ++d)
        if (to[d] == 1 && coin(0.5)) to[d] = pick(1, o_.max_dim);
      IntList dims;
      for (int64_t d = 0; d < r; ++d) dims.push_back(d);
      add(OpCode::broadcast_in_dim, {x}, BroadcastInDimAttrs{to, dims});
      return;
    }
    int64_t at = pick(0, r);
    Shape to;
    IntList dims;
    for (int64_t d = 0; d <= r; ++d) {
      if (d == at) to.dims().push_back(pick(1, o_.max_dim));
      if (d < r) {
        dims.push_back(static_cast<int64_t>(to.rank()));
        to.dims().push_back(s[static_cast<size_t>(d)]);
      }
    }
    add(OpCode::broadcast_in_dim, {x}, BroadcastInDimAttrs{to, dims});
  }
  void reshape() {
    ValueRef x = any();
    const Shape& s = type(x).shape;
    Shape to;
    int64_t kind = pick(0, 2);
    if (kind == 0) {
      to = Shape{s.numel()};
    } else if (kind == 1) {
      for (size_t d = s.rank(); d-- > 0;) to.dims().push_back(s[d]);
    } else {  // split the element count into two factors
      int64_t n = s.numel(), a = 1;
      for (int64_t k = 2; k <= n; ++k)
        if (n % k == 0 && coin(0.5)) a = k;
      to = Shape{a, n / std::max<int64_t>(a, 1)};
      if (n == 0) to = Shape{0};
    }
    add(OpCode::reshape, {x}, ReshapeAttrs{to});
  }
  void transpose() {
    ValueRef x = any();
    IntList p;
    for (size_t d = 0; d < type(x).shape.rank(); ++d) p.push_back(static_cast<int64_t>(d));
    std::shuffle(p.begin(), p.end(), rng_);
    ValueRef t = add(OpCode::transpose, {x}, TransposeAttrs{p});
    if (coin(0.3)) {  // and back (simplify's transpose of a transpose)
      IntList inv(p.size(), 0);
      for (size_t i = 0; i < p.size(); ++i)
        inv[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
      add(OpCode::transpose, {t}, TransposeAttrs{inv});
    }
  }
  void reduce() {
    auto x = choose([&](ValueRef v) { return type(v).shape.rank() > 0 && computes(v); });
    if (!x) return unary();
    if (is_float(*x) && type(*x).shape.rank() >= 2 && coin(0.4)) return row_pattern(*x);
    IntList axes;
    for (size_t d = 0; d < type(*x).shape.rank(); ++d)
      if (coin(0.5)) axes.push_back(static_cast<int64_t>(d));
    if (axes.empty() && coin(0.8)) axes.push_back(0);  // (no axes: an identity)
    static constexpr OpCode kOps[] = {OpCode::reduce_sum, OpCode::reduce_max, OpCode::reduce_min};
    add(kOps[pick(0, 2)], {*x}, ReduceAttrs{axes});
  }
  // A reduction over the last axis, an op on its per-row values, and the result broadcast back
  // over the rows and combined with x (softmax, RMS norm): the cpu backend's rowwise fusion.
  void row_pattern(ValueRef x) {
    const Shape& s = type(x).shape;
    const auto last = static_cast<int64_t>(s.rank()) - 1;
    static constexpr OpCode kOps[] = {OpCode::reduce_sum, OpCode::reduce_max, OpCode::reduce_min};
    ValueRef r = add(kOps[pick(0, 2)], {x}, ReduceAttrs{{last}});
    const TensorType rt = type(r);
    if (coin(0.5)) r = add(OpCode::add, {add(OpCode::abs, {r}), scalar_splat(rt, 1)});
    if (coin(0.5)) r = add(coin(0.5) ? OpCode::rsqrt : OpCode::log, {r});
    IntList dims;
    for (int64_t d = 0; d < last; ++d) dims.push_back(d);
    ValueRef b = add(OpCode::broadcast_in_dim, {r}, BroadcastInDimAttrs{s, dims});
    static constexpr OpCode kCombine[] = {OpCode::sub, OpCode::mul, OpCode::add, OpCode::div};
    const OpCode op = kCombine[pick(0, 3)];
    if (op == OpCode::div) {
      add(op, {x, add(OpCode::add, {add(OpCode::abs, {b}), scalar_splat(type(b), 1)})});
    } else if (coin(0.5)) {
      add(op, {x, b});
    } else {
      add(op, {b, x});
    }
  }
  void dot() {
    auto x = choose([&](ValueRef v) { return is_float(v) && type(v).shape.rank() > 0; });
    if (!x) return binary();
    if (coin(0.3) && type(*x).shape.rank() > 1) {  // a transposed lhs (simplify may fold it)
      IntList p;
      for (size_t d = 0; d < type(*x).shape.rank(); ++d) p.push_back(static_cast<int64_t>(d));
      std::shuffle(p.begin(), p.end(), rng_);
      x = b_.add(OpCode::transpose, {*x}, TransposeAttrs{p});
    }
    const Shape& xs = type(*x).shape;
    auto c = static_cast<int64_t>(pick(0, static_cast<int64_t>(xs.rank()) - 1));
    int64_t k = xs[static_cast<size_t>(c)];
    int64_t free_x = static_cast<int64_t>(xs.rank()) - 1;
    auto y = choose([&](ValueRef v) {
      const Shape& s = type(v).shape;
      if (!is_float(v) || free_x + static_cast<int64_t>(s.rank()) - 1 > o_.max_rank) return false;
      return std::find(s.begin(), s.end(), k) != s.end();
    });
    ValueRef yv;
    int64_t cy = 0;
    if (y && coin(0.7)) {
      yv = *y;
      const Shape& s = type(yv).shape;
      cy = std::find(s.begin(), s.end(), k) - s.begin();
    } else {  // a [k, m] operand, sometimes as the transpose of an [m, k] constant
      int64_t m = pick(1, o_.max_dim);
      if (coin(0.5)) {
        yv = b_.add(OpCode::transpose, {constant({o_.float_dtype, Shape{m, k}})},
                    TransposeAttrs{{1, 0}});
      } else {
        yv = constant({o_.float_dtype, Shape{k, m}});
      }
    }
    if (free_x + static_cast<int64_t>(type(yv).shape.rank()) - 1 > o_.max_rank + 1) return binary();
    const DotGeneralAttrs dims{{}, {}, {c}, {cy}};
    if (bf16_mode() && coin(0.3)) {  // its only use a convert to f32: the cpu backend folds it
      add(OpCode::convert, {b_.add(OpCode::dot_general, {*x, yv}, dims)}, ConvertAttrs{DType::f32});
      return;
    }
    add(OpCode::dot_general, {*x, yv}, dims);
  }
  void slice() {
    auto x = choose([&](ValueRef v) { return type(v).shape.rank() > 0; });
    if (!x) return unary();
    SliceAttrs a;
    bool strided = coin(0.3);
    bool whole = coin(0.15);
    for (int64_t d : type(*x).shape) {
      if (whole) {
        a.start_indices.push_back(0);
        a.limit_indices.push_back(d);
        continue;
      }
      int64_t start = pick(0, std::max<int64_t>(d - 1, 0));
      a.start_indices.push_back(start);
      a.limit_indices.push_back(pick(std::min(start + 1, d), d));
      if (strided) a.strides.push_back(pick(1, 2));
    }
    add(OpCode::slice, {*x}, a);
  }
  // Edges of 0-2 (sometimes -1, a crop), interior padding sometimes; the value a scalar of x's
  // dtype.
  void pad() {
    auto x = choose([&](ValueRef v) { return type(v).shape.rank() > 0; });
    if (!x) return unary();
    const TensorType& t = type(*x);
    PadAttrs a;
    bool interior = coin(0.25);
    for (int64_t d : t.shape) {
      a.edge_padding_low.push_back(d >= 2 && coin(0.15) ? -1 : pick(0, 2));
      a.edge_padding_high.push_back(pick(0, 2));
      a.interior_padding.push_back(interior ? pick(0, 1) : 0);
    }
    ValueRef v = b_.constant(Literal::scalar_of(t.dtype, static_cast<double>(pick(-2, 2))));
    add(OpCode::pad, {*x, v}, a);
  }
  void concatenate() {
    auto x = choose([&](ValueRef v) { return type(v).shape.rank() > 0; });
    if (!x) return unary();
    const TensorType& t = type(*x);
    auto dim = static_cast<int64_t>(pick(0, static_cast<int64_t>(t.shape.rank()) - 1));
    auto y = choose([&](ValueRef v) {
      const TensorType& u = type(v);
      if (u.dtype != t.dtype || u.shape.rank() != t.shape.rank()) return false;
      for (size_t d = 0; d < u.shape.rank(); ++d)
        if (static_cast<int64_t>(d) != dim && u.shape[d] != t.shape[d]) return false;
      return true;
    });
    add(OpCode::concatenate, {*x, y.value_or(*x)}, ConcatenateAttrs{dim});
  }
  void iota() {
    Shape s;
    for (int64_t r = pick(1, o_.max_rank); r > 0; --r) s.dims().push_back(pick(1, o_.max_dim));
    add(OpCode::iota, {},
        IotaAttrs{o_.integers && coin(0.5) ? DType::i32 : o_.float_dtype, s,
                  pick(0, static_cast<int64_t>(s.rank()) - 1)});
  }
  void repeat() {  // the same node again (CSE merges it)
    auto v = choose([&](ValueRef x) {
      const Node& n = b_.node(x.node);
      return n.op != OpCode::parameter && n.outputs.size() == 1 && !has_flag(n.op, kHasBodies);
    });
    if (!v) return unary();
    Node n = b_.node(v->node);
    pool_.push_back(b_.add_node(n)[0]);
  }
  // A small random sub-function (no control flow in it; calls when `calls`).
  FunctionPtr sub_function(const std::string& name, const std::vector<TensorType>& params,
                           const std::vector<TensorType>& results, bool calls) {
    RandomProgramOptions sub = o_;
    sub.calls = calls;
    sub.control_flow = false;
    sub.num_steps = static_cast<int>(pick(1, 4));
    sub.max_results = 2;
    return Gen(rng_(), sub, name + std::to_string(b_.num_nodes())).callee(params, results);
  }
  std::vector<ValueRef> some_values(std::vector<TensorType>& types) {
    std::vector<ValueRef> args = {any()};
    if (coin(0.5)) args.push_back(any());
    for (ValueRef a : args) types.push_back(type(a));
    return args;
  }
  void push(const std::vector<ValueRef>& outs) {
    pool_.insert(pool_.end(), outs.begin(), outs.end());
  }

  void call() {
    std::vector<TensorType> types;
    std::vector<ValueRef> args = some_values(types);
    FunctionPtr g = sub_function("callee", types, {}, false);
    push(b_.add_multi(OpCode::call, args, CallAttrs{g}));
  }
  // cond on the sign of a sum, two random branches of one signature.
  void cond() {
    ValueRef s = floating();
    IntList axes;
    for (size_t d = 0; d < type(s).shape.rank(); ++d) axes.push_back(static_cast<int64_t>(d));
    if (!axes.empty()) s = b_.add(OpCode::reduce_sum, {s}, ReduceAttrs{axes});
    ValueRef zero = b_.constant(Literal::scalar_of(type(s).dtype, 0));
    ValueRef index = b_.add(OpCode::compare, {s, zero}, CompareAttrs{CompareDir::lt});
    std::vector<TensorType> types;
    std::vector<ValueRef> args = some_values(types);
    FunctionPtr g0 = sub_function("branch", types, {}, true);
    FunctionPtr g1 = sub_function("branch", types, g0->result_types(), true);
    args.insert(args.begin(), index);
    push(b_.add_multi(OpCode::cond, args, CondAttrs{{g0, g1}}));
  }
  // scan over the leading dim of a value, one carry.
  void scan() {
    auto xs = choose([&](ValueRef v) { return type(v).shape.rank() > 0; });
    if (!xs) return call();
    ValueRef c = any();
    TensorType x = type(*xs);
    int64_t length = x.shape[0];
    x.shape = Shape(Dims(x.shape.begin() + 1, x.shape.end()));
    TensorType y = coin(0.5) ? x : type(c);
    FunctionPtr body = sub_function("scan_body", {type(c), x}, {type(c), y}, true);
    push(b_.add_multi(OpCode::scan, {c, *xs}, ScanAttrs{body, length, 1, coin(0.5)}));
  }
  // while i < n: (i + 1, g(v)), g a random callee (called in the body).
  void while_loop() {
    ValueRef v = any();
    TensorType i32{DType::i32, Shape{}};
    Builder cb("while_cond" + std::to_string(b_.num_nodes()));
    ValueRef i = cb.param(i32);
    cb.param(type(v));
    ValueRef n = cb.constant(Literal::scalar<int32_t>(static_cast<int32_t>(pick(0, 3))));
    FunctionPtr condf = cb.build({cb.add(OpCode::compare, {i, n}, CompareAttrs{CompareDir::lt})});
    FunctionPtr g = sub_function("while_step", {type(v)}, {type(v)}, false);
    Builder bb("while_body" + std::to_string(b_.num_nodes()));
    ValueRef bi = bb.param(i32);
    ValueRef bv = bb.param(type(v));
    ValueRef next = bb.add(OpCode::call, {bv}, CallAttrs{g});
    ValueRef one = bb.constant(Literal::scalar<int32_t>(1));
    FunctionPtr body = bb.build({bb.add(OpCode::add, {bi, one}), next});
    ValueRef zero = b_.constant(Literal::scalar<int32_t>(0));
    push(b_.add_multi(OpCode::while_, {zero, v}, WhileAttrs{condf, body}));
  }
  void barrier() {
    std::vector<ValueRef> args = {any()};
    if (coin(0.5)) args.push_back(any());
    for (ValueRef v : b_.add_multi(OpCode::optimization_barrier, args)) pool_.push_back(v);
  }

  void step() {
    switch (pick(0, 17)) {
      case 0:
      case 1:
        unary();
        return;
      case 2:
      case 3:
        binary();
        return;
      case 4:
        compare_select();
        return;
      case 5:
        convert();
        return;
      case 6:
        broadcast();
        return;
      case 7:
        reshape();
        return;
      case 8:
        transpose();
        return;
      case 9:
        reduce();
        return;
      case 10:
        dot();
        return;
      case 11:
        if (coin(0.3)) return pad();
        slice();
        return;
      case 12:
        concatenate();
        return;
      case 13:
        iota();
        return;
      case 14:
        repeat();
        return;
      case 15:
        if (o_.calls) return call();
        return binary();
      case 16:
        if (!o_.control_flow) return unary();
        switch (pick(0, 2)) {
          case 0:
            return cond();
          case 1:
            return scan();
          default:
            return while_loop();
        }
      default:
        if (o_.barriers) return barrier();
        return unary();
    }
  }

  FunctionPtr finish() {
    std::vector<ValueRef> results = {any()};
    results[0] = pool_.back();
    int64_t extra = pick(0, o_.max_results - 1);
    for (int64_t i = 0; i < extra; ++i) results.push_back(any());
    return b_.build(results);
  }

  std::mt19937_64 rng_;
  RandomProgramOptions o_;
  Builder b_;
  std::vector<ValueRef> pool_;
};

}  // namespace

FunctionPtr random_program(uint64_t seed, const RandomProgramOptions& options) {
  return Gen(seed, options, "main").program();
}

std::vector<Literal> random_arguments(const Function& f, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5eedull);
  std::vector<Literal> args;
  for (int i = 0; i < f.num_params(); ++i) {
    Literal l = Literal::zeros(f.param_type(i));
    for (int64_t k = 0; k < l.numel(); ++k) {
      switch (l.dtype()) {
        case DType::f32:
          l.data<float>()[k] = std::uniform_real_distribution<float>(-2, 2)(rng);
          break;
        case DType::bf16:
          l.data<bf16>()[k] = bf16(std::uniform_real_distribution<float>(-2, 2)(rng));
          break;
        case DType::i32:
          l.data<int32_t>()[k] =
              static_cast<int32_t>(std::uniform_int_distribution<int>(-5, 5)(rng));
          break;
        case DType::boolean:
          l.data<bool>()[k] = (rng() & 1) != 0;
          break;
        case DType::i64:
          l.data<int64_t>()[k] = std::uniform_int_distribution<int64_t>(-5, 5)(rng);
          break;
        default:  // f64, f16, u8: zeros
          break;
      }
    }
    args.push_back(std::move(l));
  }
  return args;
}

VmapArguments random_vmap_arguments(const Function& f, uint64_t seed, int64_t size) {
  std::mt19937_64 rng(seed ^ 0x7a4dull);
  VmapArguments v;
  bool any = false;
  for (int i = 0; i < f.num_params(); ++i) {
    const auto rank = static_cast<int64_t>(f.param_type(i).shape.rank());
    // A third of the parameters unbatched; the last one batched if none is yet.
    const bool last = i + 1 == f.num_params();
    if (rng() % 3 == 0 && !(last && !any)) {
      v.in_axes.emplace_back(std::nullopt);
      continue;
    }
    any = true;
    auto axis = static_cast<int64_t>(rng() % static_cast<uint64_t>(rank + 1));
    v.in_axes.emplace_back(rng() % 2 ? axis : axis - rank - 1);
  }
  for (int64_t b = 0; b < size; ++b) {
    v.examples.push_back(random_arguments(f, seed * 1000 + static_cast<uint64_t>(b)));
    for (size_t i = 0; i < v.in_axes.size(); ++i)
      if (!v.in_axes[i]) v.examples.back()[i] = v.examples[0][i].clone();
  }
  return v;
}

}  // namespace lazax::testing
