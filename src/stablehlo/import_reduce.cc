// The importer's row for a reduce of two operands: JAX's argmax/argmin, a reduce over (x, an
// iota along the reduced dimension) whose body keeps the accumulator when it is greater (less)
// or NaN, and its index also on a tie with a lower index (jax's _compute_argminmax, as it
// prints). XLA calls the body as (accumulator, element), so that is the first extreme and the
// first NaN: lazax's argmax/argmin, with reduce_max/min for the values. Any other reduce of two
// operands is rejected, saying what it is not.
#include <cmath>
#include <string>
#include <unordered_map>

#include "import_ops.h"

namespace lazax::stablehlo {
namespace {

// The ops of a region by the name they define, and the shapes JAX's comparator is made of.
struct Body {
  std::unordered_map<std::string, const OpSyntax*> defs;
  explicit Body(const FuncSyntax& r) {
    for (const OpSyntax& o : r.ops)
      if (o.num_results == 1 && o.result_names.empty()) defs[o.result] = &o;
  }
  // The op that defines u, when it is `name` with n operands and no regions.
  const OpSyntax* def(const Use& u, const std::string& name, size_t n) const {
    auto it = defs.find(u.name);
    if (u.index != 0 || it == defs.end()) return nullptr;
    const OpSyntax* o = it->second;
    return o->name == name && o->operands.size() == n && o->regions.empty() ? o : nullptr;
  }
  static bool is(const Use& u, const std::string& value) { return u.index == 0 && u.name == value; }
  bool cmp(const Use& u, const char* dir, const std::string& x, const std::string& y) const {
    const OpSyntax* o = def(u, "stablehlo.compare", 2);
    if (!o) return false;
    auto d = o->attrs.find("comparison_direction");
    return d != o->attrs.end() && d->second.word.find(dir) != std::string::npos &&
           is(o->operands[0], x) && is(o->operands[1], y);
  }
  // u = name(p, q) or name(q, p).
  template <class P, class Q>
  bool either(const Use& u, const char* name, P p, Q q) const {
    const OpSyntax* o = def(u, name, 2);
    if (!o) return false;
    const Use &l = o->operands[0], &r = o->operands[1];
    return (p(l) && q(r)) || (p(r) && q(l));
  }
};

// Whether the body is JAX's comparator: argmin (true), argmax (false), or neither.
std::optional<bool> comparator(const FuncSyntax& r, bool integer) {
  if (r.params.size() != 4 || r.ops.empty() || r.ops.back().operands.size() != 2)
    return std::nullopt;
  const std::string &a = r.params[0], &ai = r.params[1], &b = r.params[2], &bi = r.params[3];
  Body body(r);
  const OpSyntax* value = body.def(r.ops.back().operands[0], "stablehlo.select", 3);
  const OpSyntax* index = body.def(r.ops.back().operands[1], "stablehlo.select", 3);
  if (!value || !index || !Body::is(value->operands[1], a) || !Body::is(value->operands[2], b) ||
      !Body::is(index->operands[1], ai) || !Body::is(index->operands[2], bi))
    return std::nullopt;
  for (const char* dir : {"GT", "LT"}) {
    // Keep the accumulator: it is beyond the element, or NaN (an integer needs no NaN test).
    auto keep = [&](const Use& u) {
      return body.either(
                 u, "stablehlo.or", [&](const Use& x) { return body.cmp(x, dir, a, b); },
                 [&](const Use& x) { return body.cmp(x, "NE", a, a); }) ||
             (integer && body.cmp(u, dir, a, b));
    };
    auto tie = [&](const Use& u) {
      return body.either(
          u, "stablehlo.and", [&](const Use& x) { return body.cmp(x, "EQ", a, b); },
          [&](const Use& x) { return body.cmp(x, "LT", ai, bi); });
    };
    if (keep(value->operands[0]) && body.either(index->operands[0], "stablehlo.or", keep, tie))
      return std::string(dir) == "LT";
  }
  return std::nullopt;
}

// The value reduce_max (min) starts from: -inf (+inf), or the dtype's lowest (highest).
double identity(DType t, bool is_min) {
  switch (t) {
    case DType::i8:
      return is_min ? 127.0 : -128.0;
    case DType::i32:
      return is_min ? 2147483647.0 : -2147483648.0;
    case DType::i64:
      return is_min ? 0x1p63 : -0x1p63;  // as Literal::at reads them (a double)
    case DType::u8:
      return is_min ? 255.0 : 0.0;
    case DType::u32:
      return is_min ? 4294967295.0 : 0.0;
    default:
      return is_min ? INFINITY : -INFINITY;
  }
}

bool constant_is(Builder& b, ValueRef v, double want) {
  const Node& n = b.node(v.node);
  if (n.op != OpCode::constant) return false;
  const Literal& l = n.attr<ConstantAttrs>().value;
  return l.numel() == 1 && l.at(0) == want;
}

}  // namespace

std::vector<ValueRef> reduce_pair(Builder& b, const OpSyntax& o, std::vector<ValueRef>& in) {
  auto refuse = [&](const std::string& why) {
    fail(o.pos,
         "a reduce of two operands is imported only as JAX's argmax/argmin (the values, "
         "their iota, the comparator JAX prints): " +
             why);
  };
  auto d = o.attrs.find("dimensions");
  if (d == o.attrs.end() || d->second.ints.size() != 1) refuse("argmax reduces one dimension");
  int64_t axis = d->second.ints[0];
  const TensorType& x = b.type(in[0]);
  bool integer = is_integer(x.dtype);
  if (!integer && !is_floating(x.dtype)) refuse("the values are " + x.str());
  std::optional<bool> is_min = comparator(o.regions[0], integer);
  if (!is_min) refuse("the body is not that comparator");
  const Node& iota = b.node(in[1].node);
  const TensorType& it = b.type(in[1]);
  if (iota.op != OpCode::iota || iota.attr<IotaAttrs>().dimension != axis ||
      !(it.shape == x.shape) || (it.dtype != DType::i32 && it.dtype != DType::i64))
    refuse("the second operand is not an i32/i64 iota along the reduced dimension");
  if (!constant_is(b, in[2], identity(x.dtype, *is_min)) || !constant_is(b, in[3], 0))
    refuse(std::string("the inits are not ") + (*is_min ? "+inf" : "-inf") +
           " (the dtype's extreme for integers) and 0");
  ValueRef index =
      b.add(*is_min ? OpCode::argmin : OpCode::argmax, {in[0]}, ArgmaxAttrs{axis, it.dtype});
  ValueRef value =
      b.add(*is_min ? OpCode::reduce_min : OpCode::reduce_max, {in[0]}, ReduceAttrs{{axis}});
  return {value, index};
}

}  // namespace lazax::stablehlo
