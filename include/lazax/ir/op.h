// The op table: one row per primitive. A row gives the op's text name, its attribute struct,
// its arity (-1: variadic), its flags and its shape rule. The VJP/JVP rules (autodiff) and the
// interpreter kernels are found by the same OpCode.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "lazax/core/shape.h"
#include "lazax/ir/attrs.h"

namespace lazax {

// X(name, AttrStruct, arity, flags, shape_rule). A trailing underscore (while_) is dropped
// from the text name.
#define LAZAX_OPS(X)                                                                   \
  X(parameter, ParameterAttrs, 0, kInternal, parameter)                                \
  X(constant, ConstantAttrs, 0, 0, constant)                                           \
  X(iota, IotaAttrs, 0, 0, iota)                                                       \
  X(add, NoAttrs, 2, kElementwise | kRulesSkipOutputs, binary_numeric)                 \
  X(sub, NoAttrs, 2, kElementwise | kRulesSkipOutputs, binary_numeric)                 \
  X(mul, NoAttrs, 2, kElementwise | kRulesSkipOutputs, binary_numeric)                 \
  X(div, NoAttrs, 2, kElementwise, binary_numeric)                                     \
  X(neg, NoAttrs, 1, kElementwise, unary_numeric)                                      \
  X(abs, NoAttrs, 1, kElementwise, unary_numeric)                                      \
  X(sign, NoAttrs, 1, kElementwise, unary_numeric)                                     \
  X(exp, NoAttrs, 1, kElementwise, unary_float)                                        \
  X(log, NoAttrs, 1, kElementwise, unary_float)                                        \
  X(log1p, NoAttrs, 1, kElementwise, unary_float)                                      \
  X(expm1, NoAttrs, 1, kElementwise, unary_float)                                      \
  X(tanh, NoAttrs, 1, kElementwise, unary_float)                                       \
  X(logistic, NoAttrs, 1, kElementwise, unary_float)                                   \
  X(sqrt, NoAttrs, 1, kElementwise, unary_float)                                       \
  X(rsqrt, NoAttrs, 1, kElementwise, unary_float)                                      \
  X(pow, NoAttrs, 2, kElementwise, binary_float)                                       \
  X(max, NoAttrs, 2, kElementwise, binary_numeric)                                     \
  X(min, NoAttrs, 2, kElementwise, binary_numeric)                                     \
  X(sin, NoAttrs, 1, kElementwise, unary_float)                                        \
  X(cos, NoAttrs, 1, kElementwise, unary_float)                                        \
  X(erf, NoAttrs, 1, kElementwise, unary_float)                                        \
  X(floor, NoAttrs, 1, kElementwise, unary_float)                                      \
  X(round, NoAttrs, 1, kElementwise, unary_float)                                      \
  X(compare, CompareAttrs, 2, kElementwise, compare)                                   \
  X(select, NoAttrs, 3, kElementwise, select)                                          \
  X(convert, ConvertAttrs, 1, kElementwise, convert)                                   \
  X(broadcast_in_dim, BroadcastInDimAttrs, 1, kLayout | kRulesSkipOutputs, broadcast_in_dim) \
  X(reshape, ReshapeAttrs, 1, kLayout | kRulesSkipOutputs, reshape)                    \
  X(transpose, TransposeAttrs, 1, kLayout | kRulesSkipOutputs, transpose)              \
  X(slice, SliceAttrs, 1, kLayout, slice)                                              \
  X(dynamic_slice, DynamicSliceAttrs, -1, 0, dynamic_slice)                            \
  X(dynamic_update_slice, NoAttrs, -1, 0, dynamic_update_slice)                        \
  X(concatenate, ConcatenateAttrs, -1, kLayout, concatenate)                           \
  X(pad, PadAttrs, 2, kLayout, pad)                                                    \
  X(reduce_sum, ReduceAttrs, 1, kReduction | kRulesSkipOutputs, reduce)                \
  X(reduce_max, ReduceAttrs, 1, kReduction, reduce)                                    \
  X(reduce_min, ReduceAttrs, 1, kReduction, reduce)                                    \
  X(reduce_prod, ReduceAttrs, 1, kReduction, reduce)                                   \
  X(argmax, ArgmaxAttrs, 1, kReduction, argmax)                                        \
  X(dot_general, DotGeneralAttrs, 2, kExpensive | kRulesSkipOutputs, dot_general)      \
  X(gather, GatherAttrs, 2, 0, gather)                                                 \
  X(scatter_add, ScatterAttrs, 3, 0, scatter_add)                                      \
  X(cumsum, CumsumAttrs, 1, 0, cumsum)                                                 \
  X(random_bits, RandomBitsAttrs, 1, kRandom, random_bits)                             \
  X(call, CallAttrs, -1, kHasBodies, call)                                             \
  X(cond, CondAttrs, -1, kHasBodies, cond)                                             \
  X(while_, WhileAttrs, -1, kHasBodies, while_loop)                                     \
  X(scan, ScanAttrs, -1, kHasBodies, scan)                                             \
  X(checkpoint_name, CheckpointNameAttrs, 1, 0, identity)                              \
  X(optimization_barrier, NoAttrs, -1, 0, identity)                                    \
  X(copy_to_memory_kind, MemoryKindAttrs, 1, 0, identity)

enum class OpCode : uint8_t {
#define LAZAX_OP_ENUM(name, attrs, arity, flags, rule) name,
  LAZAX_OPS(LAZAX_OP_ENUM)
#undef LAZAX_OP_ENUM
};
inline constexpr int kNumOps = 0
#define LAZAX_OP_COUNT(name, attrs, arity, flags, rule) +1
    LAZAX_OPS(LAZAX_OP_COUNT)
#undef LAZAX_OP_COUNT
    ;

// Flags of an op row.
enum OpFlags : uint32_t {
  kInternal = 1u << 0,     // not written as a node in the text form (parameter)
  kElementwise = 1u << 1,  // same-shape operands, one result of that shape
  kLayout = 1u << 2,       // moves data without arithmetic
  kReduction = 1u << 3,
  kExpensive = 1u << 4,    // never recomputed by remat (matmul)
  kRandom = 1u << 5,       // never recomputed, never folded or CSE'd
  kHasBodies = 1u << 6,    // carries sub-functions
  // Its VJP and JVP rules (autodiff/rules) never read its outputs, so the tape saves none
  // (api/autograd_tape.cc record_grad): most ops of a model, each of which would otherwise keep
  // its output alive as a saved value from the forward to the backward.
  kRulesSkipOutputs = 1u << 7,
};

// Computes the output types from the operand types and attributes; throws ShapeError (or
// DTypeError) with a message naming the op and the shapes when the operands do not fit.
using ShapeRule = void (*)(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                           std::vector<TensorType>& out);

struct OpInfo {
  std::string_view name;
  int arity;  // -1: variadic
  uint32_t flags;
  ShapeRule shape_rule;
  size_t attrs_index;  // index of the op's attribute struct in the Attrs variant
};

const OpInfo& op_info(OpCode op);
inline std::string_view op_name(OpCode op) { return op_info(op).name; }
std::optional<OpCode> op_from_name(std::string_view name);
inline bool has_flag(OpCode op, OpFlags f) { return (op_info(op).flags & f) != 0; }

// Default-constructed attributes of the op's struct.
Attrs default_attrs(OpCode op);

// Runs the op's shape rule, first checking arity and attribute struct.
std::vector<TensorType> infer_types(OpCode op, std::span<const TensorType> in, const Attrs& attrs);
// The same into `out` (cleared first), so that a caller recording many nodes reuses one vector.
void infer_types(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out);

}  // namespace lazax
