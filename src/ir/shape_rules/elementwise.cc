// Shape rules of leaves (parameter, constant, iota) and elementwise ops. As in lax, elementwise
// operands must have identical shapes and dtypes: there is no implicit broadcasting or promotion.
#include "common.h"

namespace lazax::shape_rules {
using namespace detail;

namespace {

// Same shape, then same dtype; the shape message comes first because it is the usual mistake.
void check_same_type(OpCode op, const TensorType& a, const TensorType& b, const char* names) {
  if (a.shape != b.shape) {
    shape_fail(op, std::string(names) + " must have the same shape, got " + a.str() + " and " +
                       b.str() + "; broadcast with broadcast_in_dim first");
  }
  if (a.dtype != b.dtype) {
    dtype_fail(op, std::string(names) + " must have the same dtype, got " + a.str() + " and " +
                       b.str() + "; convert one with convert first");
  }
}

void require_non_bool(OpCode op, const TensorType& t) {
  if (t.dtype == DType::boolean) {
    dtype_fail(op, "does not accept bool operands, got " + t.str() +
                       "; convert to an integer or floating dtype first");
  }
}

void require_floating(OpCode op, const TensorType& t) {
  if (!is_floating(t.dtype)) {
    dtype_fail(op, "needs a floating operand (f32, f64, f16, bf16), got " + t.str() +
                       "; convert it with convert first");
  }
}

}  // namespace

void parameter(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) {
  throw ValueError(tag(op) +
                   "has no shape rule: its type is given when it is added; use Builder::param");
}

void constant(OpCode op, std::span<const TensorType>, const Attrs& attrs,
              std::vector<TensorType>& out) {
  const auto& a = std::get<ConstantAttrs>(attrs);
  int64_t n = checked_numel(op, a.value.type.shape, "literal shape");
  if (a.value.buffer.bytes() <
      static_cast<size_t>(checked_mul(op, n, static_cast<int64_t>(dtype_size(a.value.dtype()))))) {
    throw ValueError(tag(op) + "literal of type " + a.value.type.str() + " holds only " +
                     num(static_cast<int64_t>(a.value.buffer.bytes())) +
                     " bytes; make it with Literal::zeros or Literal::from_vector");
  }
  out = {a.value.type};
}

void iota(OpCode op, std::span<const TensorType>, const Attrs& attrs,
          std::vector<TensorType>& out) {
  const auto& a = std::get<IotaAttrs>(attrs);
  TensorType t{a.dtype, a.shape};
  if (a.dtype == DType::boolean) {
    dtype_fail(op, "dtype must be numeric, got " + t.str() + "; make an integer iota and compare");
  }
  checked_numel(op, a.shape, "shape");
  if (a.dimension < 0 || a.dimension >= static_cast<int64_t>(a.shape.rank())) {
    shape_fail(op, "dimension " + num(a.dimension) + " is out of range for " + t.str() +
                       "; use a dimension in [0, rank)");
  }
  out = {t};
}

void binary_numeric(OpCode op, std::span<const TensorType> in, const Attrs&,
                    std::vector<TensorType>& out) {
  check_same_type(op, in[0], in[1], "operands");
  if (op != OpCode::max && op != OpCode::min) require_non_bool(op, in[0]);
  out = {in[0]};
}

void binary_float(OpCode op, std::span<const TensorType> in, const Attrs&,
                  std::vector<TensorType>& out) {
  check_same_type(op, in[0], in[1], "operands");
  require_floating(op, in[0]);
  out = {in[0]};
}

void unary_numeric(OpCode op, std::span<const TensorType> in, const Attrs&,
                   std::vector<TensorType>& out) {
  require_non_bool(op, in[0]);
  out = {in[0]};
}

void unary_float(OpCode op, std::span<const TensorType> in, const Attrs&,
                 std::vector<TensorType>& out) {
  require_floating(op, in[0]);
  out = {in[0]};
}

void compare(OpCode op, std::span<const TensorType> in, const Attrs&,
             std::vector<TensorType>& out) {
  check_same_type(op, in[0], in[1], "operands");
  out = {TensorType{DType::boolean, in[0].shape}};
}

void is_finite(OpCode op, std::span<const TensorType> in, const Attrs&,
               std::vector<TensorType>& out) {
  require_floating(op, in[0]);
  out = {TensorType{DType::boolean, in[0].shape}};
}

// clamp(min, x, max), as lax.clamp: min and max have x's dtype and are scalars or of x's shape.
void clamp(OpCode op, std::span<const TensorType> in, const Attrs&, std::vector<TensorType>& out) {
  const TensorType& x = in[1];
  for (size_t k : {size_t{0}, size_t{2}}) {
    const TensorType& b = in[k];
    const char* which = k == 0 ? "min " : "max ";
    if (b.dtype != x.dtype) {
      dtype_fail(op, which + b.str() + " must have the dtype of x " + x.str() +
                         "; convert it with convert first");
    }
    if (b.shape.rank() != 0 && b.shape != x.shape) {
      shape_fail(op, which + b.str() + " must be a scalar or have the shape of x " + x.str() +
                         "; broadcast it with broadcast_in_dim");
    }
  }
  out = {x};
}

// and, or, xor, not: integer or bool operands; the shifts: integer operands only.
void bitwise(OpCode op, std::span<const TensorType> in, const Attrs&,
             std::vector<TensorType>& out) {
  if (in.size() == 2) check_same_type(op, in[0], in[1], "operands");
  const bool shift = op == OpCode::shift_left || op == OpCode::shift_right_logical ||
                     op == OpCode::shift_right_arithmetic;
  DType t = in[0].dtype;
  if (is_floating(t) || (shift && t == DType::boolean)) {
    dtype_fail(op, std::string("needs ") + (shift ? "integer" : "integer or bool") +
                       " operands (i8, i32, i64, u8, u32" + (shift ? "" : ", bool") + "), got " +
                       types_str(in) + "; convert with convert first");
  }
  out = {in[0]};
}

void select(OpCode op, std::span<const TensorType> in, const Attrs&, std::vector<TensorType>& out) {
  const TensorType& pred = in[0];
  check_same_type(op, in[1], in[2], "on_true and on_false");
  if (pred.dtype != DType::boolean) {
    dtype_fail(op, "predicate must be bool, got " + pred.str() + " (branches " + in[1].str() +
                       "); make it with compare");
  }
  if (pred.shape.rank() != 0 && pred.shape != in[1].shape) {
    shape_fail(op, "predicate must be a bool scalar or have the branches' shape, got " +
                       pred.str() + " for branches " + in[1].str() +
                       "; broadcast it with broadcast_in_dim");
  }
  out = {in[1]};
}

void convert(OpCode, std::span<const TensorType> in, const Attrs& attrs,
             std::vector<TensorType>& out) {
  out = {TensorType{std::get<ConvertAttrs>(attrs).dtype, in[0].shape}};
}

void identity(OpCode, std::span<const TensorType> in, const Attrs&, std::vector<TensorType>& out) {
  out.assign(in.begin(), in.end());
}

}  // namespace lazax::shape_rules
