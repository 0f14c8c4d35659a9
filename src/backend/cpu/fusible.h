// Which primitives the fused kernels run, derived from the op table: `fused_form` has one case
// per row of LAZAX_OPS and no default, so a primitive added to the table without a case here
// fails the build (-Wswitch, an error under -Werror), and the static_assert below fails it when
// an elementwise primitive has neither a fused op nor a stated reason to run the interpreter's
// kernel. tests/backend/cpu_fusible_test.cc runs every fused form through the cpu backend and
// checks that none falls back; it prints the forms that do (docs/PERFORMANCE.md lists them).
#pragma once
#include "fused_code.h"
#include "lazax/ir/op.h"

namespace lazax::cpu {

struct FusedForm {
  FOp op = FOp::none;  // none: not fused (`compare` picks its op by direction: FOp::lt)
  // For an elementwise primitive without a fused op: why it runs the interpreter's kernel.
  const char* fallback = nullptr;
};

// clang-format off
constexpr FusedForm fused_form(OpCode op) {
  constexpr const char* kIntegers = "integer and bool operands only; fused kernels compute in f32";
  switch (op) {
    // Elementwise, each an op of the register program (in f32; other dtypes run the
    // interpreter's kernel, see fused_member_types in fused.cc).
    case OpCode::add: return {FOp::add};
    case OpCode::sub: return {FOp::sub};
    case OpCode::mul: return {FOp::mul};
    case OpCode::div: return {FOp::div};
    case OpCode::max: return {FOp::max};
    case OpCode::min: return {FOp::min};
    case OpCode::neg: return {FOp::neg};
    case OpCode::abs: return {FOp::abs};
    case OpCode::relu: return {FOp::relu};
    case OpCode::sign: return {FOp::sign};
    case OpCode::exp: return {FOp::exp};
    case OpCode::log: return {FOp::log};
    case OpCode::log1p: return {FOp::log1p};
    case OpCode::expm1: return {FOp::expm1};
    case OpCode::tanh: return {FOp::tanh};
    case OpCode::logistic: return {FOp::logistic};
    case OpCode::sqrt: return {FOp::sqrt};
    case OpCode::rsqrt: return {FOp::rsqrt};
    case OpCode::pow: return {FOp::pow};
    case OpCode::atan2: return {FOp::atan2};
    case OpCode::sin: return {FOp::sin};
    case OpCode::cos: return {FOp::cos};
    case OpCode::erf: return {FOp::erf};
    case OpCode::floor: return {FOp::floor};
    case OpCode::round: return {FOp::round};
    case OpCode::rem: return {FOp::rem};
    case OpCode::ceil: return {FOp::ceil};
    case OpCode::is_finite: return {FOp::is_finite};
    case OpCode::erf_inv: return {FOp::erf_inv};
    case OpCode::exp2: return {FOp::exp2};
    case OpCode::tan: return {FOp::tan};
    case OpCode::clamp: return {FOp::clamp};
    case OpCode::compare: return {FOp::lt};
    case OpCode::select: return {FOp::select};
    case OpCode::convert: return {FOp::convert};  // between f32 and bool
    case OpCode::and_:
    case OpCode::or_:
    case OpCode::xor_:
    case OpCode::not_:
    case OpCode::shift_left:
    case OpCode::shift_right_logical:
    case OpCode::shift_right_arithmetic:
      return {FOp::none, kIntegers};
    // Rowwise: reductions over the last axis, inside a group (lone ones run run_reduce).
    case OpCode::reduce_sum: return {FOp::reduce_sum};
    case OpCode::reduce_max: return {FOp::reduce_max};
    case OpCode::reduce_min: return {FOp::reduce_min};
    // A broadcast joins a group as a scalar, a value per row or a bias (fused.cc).
    case OpCode::broadcast_in_dim: return {FOp::scalar};
    // The rest have kernels of their own (gemm, layout, indexing, reduce, control) or run the
    // interpreter's: not fused.
    case OpCode::parameter:
    case OpCode::constant:
    case OpCode::iota:
    case OpCode::reshape:
    case OpCode::transpose:
    case OpCode::slice:
    case OpCode::dynamic_slice:
    case OpCode::dynamic_update_slice:
    case OpCode::concatenate:
    case OpCode::pad:
    case OpCode::reduce_prod:
    case OpCode::argmax:
    case OpCode::dot_general:
    case OpCode::gather:
    case OpCode::scatter_add:
    case OpCode::cumsum:
    case OpCode::cumprod:
    case OpCode::cummax:
    case OpCode::cummin:
    case OpCode::argmin:
    case OpCode::rev:
    case OpCode::sort:
    case OpCode::reduce_and:
    case OpCode::reduce_or:
    case OpCode::random_bits:
    case OpCode::call:
    case OpCode::cond:
    case OpCode::while_:
    case OpCode::scan:
    case OpCode::checkpoint_name:
    case OpCode::optimization_barrier:
    case OpCode::copy_to_memory_kind:
    case OpCode::all_reduce:
    case OpCode::all_gather:
    case OpCode::reduce_scatter:
    case OpCode::all_to_all:
    case OpCode::collective_broadcast:
    case OpCode::axis_index:
      return {};
  }
  return {};
}
// clang-format on

// Every elementwise primitive of the table is fused or says why not.
constexpr bool every_elementwise_op_has_a_fused_form() {
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpCode>(i);
    const FusedForm f = fused_form(op);
    if (has_flag(op, kElementwise) && f.op == FOp::none && f.fallback == nullptr) return false;
  }
  return true;
}
static_assert(every_elementwise_op_has_a_fused_form(),
              "an elementwise primitive needs a fused op (fused_code.h) or a fallback reason");

}  // namespace lazax::cpu
