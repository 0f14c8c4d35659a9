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

// Flags of an op row: per-op facts, each read where it matters (the reader named after it).
enum OpFlags : uint32_t {
  // Parameter: no text form of its own, so the parser does not know its name (op_from_name).
  kInternal = 1u << 0,
  // Same-shape operands, one such result. function_ad recomputes it when made from no input.
  kElementwise = 1u << 1,
  // Moves data without arithmetic. function_ad recomputes it when made from no input.
  kLayout = 1u << 2,
  // Rearranges or retypes its operand: function_ad recomputes it; with kLayout, record folds it.
  kView = 1u << 3,
  // No transcendental work: function_ad recomputes it from values the backward has, not saved.
  kCheapToRecompute = 1u << 4,
  // Carries sub-functions: Function::callees, the verifier, SharedAttrs (which never interns it).
  kHasBodies = 1u << 5,
  // Its VJP and JVP rules never read its outputs, so the tape saves none (src/autodiff/tape.cc).
  kRulesSkipOutputs = 1u << 6,
  // A collective (all_reduce...; axis_index reads the rank): every rank must run the same ones in
  // the same order, so the passes never fold, merge or move one (fold_constants, cse), and
  // function_ad never recomputes one.
  kCollective = 1u << 7,
  // Its batching rule is vmap's fallback, the op once per example (autodiff/batching.h), for an
  // op whose rule would be wasteful; no row has it now (docs/VMAP.md, tests/vmap/vmap_ops_test.cc
  // keep the list).
  kBatchByLoop = 1u << 8,
};

// X(name, AttrStruct, arity, flags, shape_rule). A trailing underscore (while_) is dropped
// from the text name.
#define LAZAX_OPS(X)                                                                            \
  X(parameter, ParameterAttrs, 0, kInternal, parameter)                                         \
  X(constant, ConstantAttrs, 0, 0, constant)                                                    \
  X(iota, IotaAttrs, 0, 0, iota)                                                                \
  X(add, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, binary_numeric)      \
  X(sub, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, binary_numeric)      \
  X(mul, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, binary_numeric)      \
  X(div, NoAttrs, 2, kElementwise | kCheapToRecompute, binary_numeric)                          \
  X(neg, NoAttrs, 1, kElementwise | kCheapToRecompute, unary_numeric)                           \
  X(abs, NoAttrs, 1, kElementwise | kCheapToRecompute, unary_numeric)                           \
  X(relu, NoAttrs, 1, kElementwise | kCheapToRecompute | kRulesSkipOutputs, unary_numeric)      \
  X(sign, NoAttrs, 1, kElementwise, unary_numeric)                                              \
  X(exp, NoAttrs, 1, kElementwise, unary_float)                                                 \
  X(log, NoAttrs, 1, kElementwise, unary_float)                                                 \
  X(log1p, NoAttrs, 1, kElementwise, unary_float)                                               \
  X(expm1, NoAttrs, 1, kElementwise, unary_float)                                               \
  X(tanh, NoAttrs, 1, kElementwise, unary_float)                                                \
  X(logistic, NoAttrs, 1, kElementwise, unary_float)                                            \
  X(sqrt, NoAttrs, 1, kElementwise, unary_float)                                                \
  X(rsqrt, NoAttrs, 1, kElementwise, unary_float)                                               \
  X(pow, NoAttrs, 2, kElementwise, binary_float)                                                \
  X(atan2, NoAttrs, 2, kElementwise, binary_float)                                              \
  X(max, NoAttrs, 2, kElementwise | kCheapToRecompute, binary_numeric)                          \
  X(min, NoAttrs, 2, kElementwise | kCheapToRecompute, binary_numeric)                          \
  X(sin, NoAttrs, 1, kElementwise, unary_float)                                                 \
  X(cos, NoAttrs, 1, kElementwise, unary_float)                                                 \
  X(erf, NoAttrs, 1, kElementwise, unary_float)                                                 \
  X(floor, NoAttrs, 1, kElementwise, unary_float)                                               \
  X(round, NoAttrs, 1, kElementwise, unary_float)                                               \
  X(rem, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, binary_numeric)      \
  X(ceil, NoAttrs, 1, kElementwise | kRulesSkipOutputs, unary_float)                            \
  X(is_finite, NoAttrs, 1, kElementwise | kCheapToRecompute | kRulesSkipOutputs, is_finite)     \
  X(erf_inv, NoAttrs, 1, kElementwise, unary_float)                                             \
  X(exp2, NoAttrs, 1, kElementwise, unary_float)                                                \
  X(tan, NoAttrs, 1, kElementwise, unary_float)                                                 \
  X(clamp, NoAttrs, 3, kElementwise | kCheapToRecompute | kRulesSkipOutputs, clamp)             \
  X(and_, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, bitwise)            \
  X(or_, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, bitwise)             \
  X(xor_, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, bitwise)            \
  X(not_, NoAttrs, 1, kElementwise | kCheapToRecompute | kRulesSkipOutputs, bitwise)            \
  X(shift_left, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs, bitwise)      \
  X(shift_right_logical, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs,      \
    bitwise)                                                                                    \
  X(shift_right_arithmetic, NoAttrs, 2, kElementwise | kCheapToRecompute | kRulesSkipOutputs,   \
    bitwise)                                                                                    \
  X(compare, CompareAttrs, 2, kElementwise | kCheapToRecompute, compare)                        \
  X(select, NoAttrs, 3, kElementwise | kCheapToRecompute, select)                               \
  X(convert, ConvertAttrs, 1, kElementwise | kView | kCheapToRecompute, convert)                \
  X(broadcast_in_dim, BroadcastInDimAttrs, 1,                                                   \
    kLayout | kView | kCheapToRecompute | kRulesSkipOutputs, broadcast_in_dim)                  \
  X(reshape, ReshapeAttrs, 1, kLayout | kView | kCheapToRecompute | kRulesSkipOutputs, reshape) \
  X(transpose, TransposeAttrs, 1, kLayout | kView | kCheapToRecompute | kRulesSkipOutputs,      \
    transpose)                                                                                  \
  X(slice, SliceAttrs, 1, kLayout, slice)                                                       \
  X(dynamic_slice, DynamicSliceAttrs, -1, 0, dynamic_slice)                                     \
  X(dynamic_update_slice, NoAttrs, -1, 0, dynamic_update_slice)                                 \
  X(concatenate, ConcatenateAttrs, -1, kLayout, concatenate)                                    \
  X(pad, PadAttrs, 2, kLayout, pad)                                                             \
  X(reduce_sum, ReduceAttrs, 1, kRulesSkipOutputs, reduce)                                      \
  X(reduce_max, ReduceAttrs, 1, 0, reduce)                                                      \
  X(reduce_min, ReduceAttrs, 1, 0, reduce)                                                      \
  X(reduce_prod, ReduceAttrs, 1, 0, reduce)                                                     \
  X(argmax, ArgmaxAttrs, 1, 0, argmax)                                                          \
  X(dot_general, DotGeneralAttrs, 2, kRulesSkipOutputs, dot_general)                            \
  X(gather, GatherAttrs, 2, 0, gather)                                                          \
  X(scatter_add, ScatterAttrs, 3, 0, scatter_add)                                               \
  X(cumsum, CumsumAttrs, 1, 0, cumsum)                                                          \
  X(cumprod, CumsumAttrs, 1, 0, cumsum)                                                         \
  X(cummax, CumsumAttrs, 1, 0, cummax)                                                          \
  X(cummin, CumsumAttrs, 1, 0, cummax)                                                          \
  X(argmin, ArgmaxAttrs, 1, 0, argmax)                                                          \
  X(rev, RevAttrs, 1, kLayout | kRulesSkipOutputs, rev)                                         \
  X(sort, SortAttrs, 1, 0, sort)                                                                \
  X(reduce_and, ReduceAttrs, 1, kRulesSkipOutputs, reduce_bool)                                 \
  X(reduce_or, ReduceAttrs, 1, kRulesSkipOutputs, reduce_bool)                                  \
  X(random_bits, RandomBitsAttrs, 1, 0, random_bits)                                            \
  X(call, CallAttrs, -1, kHasBodies, call)                                                      \
  X(cond, CondAttrs, -1, kHasBodies, cond)                                                      \
  X(while_, WhileAttrs, -1, kHasBodies, while_loop)                                             \
  X(scan, ScanAttrs, -1, kHasBodies, scan)                                                      \
  X(checkpoint_name, CheckpointNameAttrs, 1, 0, identity)                                       \
  X(optimization_barrier, NoAttrs, -1, 0, identity)                                             \
  X(copy_to_memory_kind, MemoryKindAttrs, 1, 0, identity)                                       \
  X(all_reduce, AllReduceAttrs, 1, kCollective, all_reduce)                                     \
  X(all_gather, AllGatherAttrs, 1, kCollective | kRulesSkipOutputs, all_gather)                 \
  X(reduce_scatter, ReduceScatterAttrs, 1, kCollective | kRulesSkipOutputs, reduce_scatter)     \
  X(all_to_all, AllToAllAttrs, 1, kCollective | kRulesSkipOutputs, all_to_all)                  \
  X(collective_broadcast, CollectiveBroadcastAttrs, 1, kCollective | kRulesSkipOutputs,         \
    collective_broadcast)                                                                       \
  X(axis_index, AxisIndexAttrs, 0, kCollective | kRulesSkipOutputs, axis_index)

enum class OpCode : uint8_t {
#define LAZAX_OP_ENUM(name, attrs, arity, flags, rule) name,
  LAZAX_OPS(LAZAX_OP_ENUM)
#undef LAZAX_OP_ENUM
};
inline constexpr int kNumOps = 0
// NOLINTNEXTLINE(bugprone-macro-parentheses): a term of the sum above, not an expression
#define LAZAX_OP_COUNT(name, attrs, arity, flags, rule) +1
    LAZAX_OPS(LAZAX_OP_COUNT)
#undef LAZAX_OP_COUNT
    ;

// The flags column, by OpCode (inline: recording reads it for every op).
inline constexpr uint32_t kOpFlags[kNumOps] = {
#define LAZAX_OP_FLAGS(name, attrs, arity, flags, rule) flags,
    LAZAX_OPS(LAZAX_OP_FLAGS)
#undef LAZAX_OP_FLAGS
};
constexpr bool has_flag(OpCode op, OpFlags f) {
  return (kOpFlags[static_cast<size_t>(op)] & f) != 0;
}

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
// Whether `a` are the attributes of an op flagged kHasBodies (they hold sub-functions).
bool has_bodies(const Attrs& a);

// Default-constructed attributes of the op's struct.
Attrs default_attrs(OpCode op);

// Runs the op's shape rule, first checking arity and attribute struct.
std::vector<TensorType> infer_types(OpCode op, std::span<const TensorType> in, const Attrs& attrs);
// The same into `out` (cleared first), so that a caller recording many nodes reuses one vector.
void infer_types(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out);

}  // namespace lazax
