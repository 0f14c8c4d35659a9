// TEMPORARY weak stubs so the tree links while kernels are being written; delete when every
// kernel exists.
#include "kernels.h"
#include "lazax/core/error.h"
namespace lazax::interp {
__attribute__((weak)) std::vector<Literal> kernel_constant(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for constant"); }
__attribute__((weak)) std::vector<Literal> kernel_iota(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for iota"); }
__attribute__((weak)) std::vector<Literal> kernel_add(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for add"); }
__attribute__((weak)) std::vector<Literal> kernel_sub(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for sub"); }
__attribute__((weak)) std::vector<Literal> kernel_mul(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for mul"); }
__attribute__((weak)) std::vector<Literal> kernel_div(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for div"); }
__attribute__((weak)) std::vector<Literal> kernel_neg(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for neg"); }
__attribute__((weak)) std::vector<Literal> kernel_abs(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for abs"); }
__attribute__((weak)) std::vector<Literal> kernel_sign(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for sign"); }
__attribute__((weak)) std::vector<Literal> kernel_exp(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for exp"); }
__attribute__((weak)) std::vector<Literal> kernel_log(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for log"); }
__attribute__((weak)) std::vector<Literal> kernel_log1p(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for log1p"); }
__attribute__((weak)) std::vector<Literal> kernel_expm1(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for expm1"); }
__attribute__((weak)) std::vector<Literal> kernel_tanh(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for tanh"); }
__attribute__((weak)) std::vector<Literal> kernel_logistic(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for logistic"); }
__attribute__((weak)) std::vector<Literal> kernel_sqrt(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for sqrt"); }
__attribute__((weak)) std::vector<Literal> kernel_rsqrt(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for rsqrt"); }
__attribute__((weak)) std::vector<Literal> kernel_pow(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for pow"); }
__attribute__((weak)) std::vector<Literal> kernel_max(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for max"); }
__attribute__((weak)) std::vector<Literal> kernel_min(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for min"); }
__attribute__((weak)) std::vector<Literal> kernel_sin(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for sin"); }
__attribute__((weak)) std::vector<Literal> kernel_cos(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for cos"); }
__attribute__((weak)) std::vector<Literal> kernel_erf(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for erf"); }
__attribute__((weak)) std::vector<Literal> kernel_floor(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for floor"); }
__attribute__((weak)) std::vector<Literal> kernel_round(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for round"); }
__attribute__((weak)) std::vector<Literal> kernel_compare(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for compare"); }
__attribute__((weak)) std::vector<Literal> kernel_select(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for select"); }
__attribute__((weak)) std::vector<Literal> kernel_convert(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for convert"); }
__attribute__((weak)) std::vector<Literal> kernel_broadcast_in_dim(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for broadcast_in_dim"); }
__attribute__((weak)) std::vector<Literal> kernel_reshape(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for reshape"); }
__attribute__((weak)) std::vector<Literal> kernel_transpose(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for transpose"); }
__attribute__((weak)) std::vector<Literal> kernel_slice(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for slice"); }
__attribute__((weak)) std::vector<Literal> kernel_dynamic_slice(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for dynamic_slice"); }
__attribute__((weak)) std::vector<Literal> kernel_dynamic_update_slice(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for dynamic_update_slice"); }
__attribute__((weak)) std::vector<Literal> kernel_concatenate(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for concatenate"); }
__attribute__((weak)) std::vector<Literal> kernel_pad(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for pad"); }
__attribute__((weak)) std::vector<Literal> kernel_reduce_sum(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for reduce_sum"); }
__attribute__((weak)) std::vector<Literal> kernel_reduce_max(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for reduce_max"); }
__attribute__((weak)) std::vector<Literal> kernel_reduce_min(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for reduce_min"); }
__attribute__((weak)) std::vector<Literal> kernel_reduce_prod(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for reduce_prod"); }
__attribute__((weak)) std::vector<Literal> kernel_argmax(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for argmax"); }
__attribute__((weak)) std::vector<Literal> kernel_cumsum(const Node&, std::span<const Literal>) { throw UnimplementedError("[interpret] no kernel for cumsum"); }
}
