// Differential tests of the cpu backend: each program runs on "cpu" and on "reference" (the
// reference interpreter, the oracle) with the same random inputs, and the results must agree
// within the dtype's tolerance. Every op of the op table appears in at least one program.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bf16_contract.h"
#include "lazax/backend/backend.h"
#include "lazax/ir/printer.h"

using namespace lazax;

namespace {

struct Case {
  const char* name;
  const char* text;
};

// One-op (or few-op) programs, one or more per primitive.
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"collectives_one_rank",
       "func @main(%a: f32[4,6]) -> (f32[4,6], f32[4,6], f32[4,6], f32[4,6], i32[]) {\n"
       "  %0 = all_reduce(%a) {reduce=sum, group_size=1} : f32[4,6]\n"
       "  %1 = all_gather(%0) {axis=1, group_size=1} : f32[4,6]\n"
       "  %2 = reduce_scatter(%1) {reduce=mean, axis=1, group_size=1} : f32[4,6]\n"
       "  %3 = all_to_all(%2) {split_axis=1, concat_axis=0, group_size=1} : f32[4,6]\n"
       "  %4 = collective_broadcast(%3) {root=0, group_size=1} : f32[4,6]\n"
       "  %5 = axis_index() {group_size=1} : i32[]\n"
       "  return %1, %2, %3, %4, %5\n}"},
      {"constant",
       "func @main() -> (f32[2]) {\n  %0 = constant() {value=f32[2] [1, 2]} : f32[2]\n"
       "  return %0\n}"},
      {"iota",
       "func @main() -> (i32[2,3]) {\n  %0 = iota() {dtype=i32, shape=[2,3], dimension=1}"
       " : i32[2,3]\n  return %0\n}"},
      {"binary_f32",
       "func @main(%a: f32[4,5], %b: f32[4,5]) -> (f32[4,5], f32[4,5], f32[4,5], f32[4,5], "
       "f32[4,5], f32[4,5], f32[4,5], f32[4,5]) {\n"
       "  %0 = add(%a, %b) : f32[4,5]\n  %1 = sub(%a, %b) : f32[4,5]\n"
       "  %2 = mul(%a, %b) : f32[4,5]\n  %3 = div(%a, %b) : f32[4,5]\n"
       "  %4 = max(%a, %b) : f32[4,5]\n  %5 = min(%a, %b) : f32[4,5]\n"
       "  %6 = pow(%a, %b) : f32[4,5]\n  %7 = atan2(%a, %b) : f32[4,5]\n"
       "  return %0, %1, %2, %3, %4, %5, %6, %7\n}"},
      {"binary_i32",
       "func @main(%a: i32[7], %b: i32[7]) -> (i32[7], i32[7], i32[7], i32[7]) {\n"
       "  %0 = add(%a, %b) : i32[7]\n  %1 = mul(%a, %b) : i32[7]\n"
       "  %2 = div(%a, %b) : i32[7]\n  %3 = max(%a, %b) : i32[7]\n  return %0, %1, %2, %3\n}"},
      {"unary_f32",
       "func @main(%a: f32[3,4]) -> (f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], "
       "f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4], "
       "f32[3,4], f32[3,4], f32[3,4]) {\n"
       "  %0 = neg(%a) : f32[3,4]\n  %1 = abs(%a) : f32[3,4]\n  %2 = sign(%a) : f32[3,4]\n"
       "  %3 = exp(%a) : f32[3,4]\n  %4 = log(%1) : f32[3,4]\n  %5 = log1p(%1) : f32[3,4]\n"
       "  %6 = expm1(%a) : f32[3,4]\n  %7 = tanh(%a) : f32[3,4]\n  %8 = logistic(%a) : f32[3,4]\n"
       "  %9 = sqrt(%1) : f32[3,4]\n  %10 = rsqrt(%1) : f32[3,4]\n  %11 = sin(%a) : f32[3,4]\n"
       "  %12 = cos(%a) : f32[3,4]\n  %13 = erf(%a) : f32[3,4]\n  %14 = floor(%a) : f32[3,4]\n"
       "  %15 = round(%a) : f32[3,4]\n  %16 = mul(%a, %a) : f32[3,4]\n"
       "  %17 = exp(%16) : f32[3,4]\n"
       "  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17\n"
       "}"},
      {"new_elementwise_f32",
       "func @main(%a: f32[3,4], %b: f32[3,4], %lo: f32[]) -> (f32[3,4], f32[3,4], bool[3,4], "
       "f32[3,4], f32[3,4], f32[3,4], f32[3,4], f32[3,4]) {\n"
       "  %0 = rem(%a, %b) : f32[3,4]\n  %1 = ceil(%a) : f32[3,4]\n"
       "  %2 = is_finite(%a) : bool[3,4]\n  %3 = logistic(%a) : f32[3,4]\n"
       "  %4 = erf_inv(%3) : f32[3,4]\n  %5 = exp2(%a) : f32[3,4]\n  %6 = tan(%a) : f32[3,4]\n"
       "  %7 = clamp(%lo, %a, %b) : f32[3,4]\n"
       "  return %0, %1, %2, %3, %4, %5, %6, %7\n}"},
      {"bitwise_i32",
       "func @main(%a: i32[7], %b: i32[7]) -> (i32[7], i32[7], i32[7], i32[7], i32[7], i32[7], "
       "i32[7], i32[7]) {\n"
       "  %0 = and(%a, %b) : i32[7]\n  %1 = or(%a, %b) : i32[7]\n  %2 = xor(%a, %b) : i32[7]\n"
       "  %3 = not(%a) : i32[7]\n  %4 = shift_left(%a, %b) : i32[7]\n"
       "  %5 = shift_right_logical(%a, %b) : i32[7]\n"
       "  %6 = shift_right_arithmetic(%a, %b) : i32[7]\n  %7 = rem(%a, %b) : i32[7]\n"
       "  return %0, %1, %2, %3, %4, %5, %6, %7\n}"},
      {"unary_bf16",
       "func @main(%a: bf16[9]) -> (bf16[9], bf16[9], bf16[9]) {\n"
       "  %0 = exp(%a) : bf16[9]\n  %1 = tanh(%a) : bf16[9]\n  %2 = add(%0, %1) : bf16[9]\n"
       "  return %0, %1, %2\n}"},
      {"compare_select",
       "func @main(%a: f32[6], %b: f32[6]) -> (bool[6], f32[6]) {\n"
       "  %0 = compare(%a, %b) {dir=lt} : bool[6]\n  %1 = select(%0, %a, %b) : f32[6]\n"
       "  return %0, %1\n}"},
      {"convert",
       "func @main(%a: f32[5]) -> (bf16[5], i32[5]) {\n"
       "  %0 = convert(%a) {dtype=bf16} : bf16[5]\n"
       "  %1 = convert(%a) {dtype=i32} : i32[5]\n  return %0, %1\n}"},
      {"layout",
       "func @main(%a: f32[2,3]) -> (f32[4,2,3], f32[3,2], f32[3,2], f32[2,1]) {\n"
       "  %0 = broadcast_in_dim(%a) {shape=[4,2,3], broadcast_dimensions=[1, 2]} : f32[4,2,3]\n"
       "  %1 = reshape(%a) {new_sizes=[3,2]} : f32[3,2]\n"
       "  %2 = transpose(%a) {permutation=[1, 0]} : f32[3,2]\n"
       "  %3 = slice(%a) {start_indices=[0, 1], limit_indices=[2, 3], strides=[1, 2]} : f32[2,1]\n"
       "  return %0, %1, %2, %3\n}"},
      {"concat_pad",
       "func @main(%a: f32[2,3], %b: f32[1,3], %v: f32[]) -> (f32[3,3], f32[4,6]) {\n"
       "  %0 = concatenate(%a, %b) {dimension=0} : f32[3,3]\n"
       "  %1 = pad(%a, %v) {edge_padding_low=[1, 0], edge_padding_high=[1, 1], "
       "interior_padding=[0, 1]} : f32[4,6]\n  return %0, %1\n}"},
      {"dynamic",
       "func @main(%a: f32[5,4], %u: f32[2,2], %i: i32[], %j: i32[]) -> (f32[2,3], f32[5,4]) {\n"
       "  %0 = dynamic_slice(%a, %i, %j) {slice_sizes=[2, 3]} : f32[2,3]\n"
       "  %1 = dynamic_update_slice(%a, %u, %i, %j) : f32[5,4]\n  return %0, %1\n}"},
      {"gather_scatter",
       "func @main(%t: f32[6,4], %i: i32[3,1], %u: f32[3,4]) -> (f32[3,4], f32[6,4]) {\n"
       "  %0 = gather(%t, %i) {offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], "
       "slice_sizes=[1, 4], mode=clip} : f32[3,4]\n"
       "  %1 = scatter_add(%t, %i, %u) {update_window_dims=[1], inserted_window_dims=[0], "
       "scatter_dims_to_operand_dims=[0], mode=clip} : f32[6,4]\n  return %0, %1\n}"},
      {"row_gather_scatter",  // indexing.cc: rows picked / added; out of bounds filled, dropped
       "func @main(%t: f32[6,3,4], %i: i64[2,5,1], %u: f32[2,5,3,4], %j: u8[7,1], %v: f32[6,4], "
       "%w: f32[7,4]) -> (f32[2,5,3,4], f32[6,3,4], f32[7,4], f32[6,4], f32[6,3,4]) {\n"
       "  %0 = gather(%t, %i) {offset_dims=[2, 3], collapsed_slice_dims=[0], "
       "start_index_map=[0], slice_sizes=[1, 3, 4], mode=fill} : f32[2,5,3,4]\n"
       "  %1 = scatter_add(%t, %i, %u) {update_window_dims=[2, 3], inserted_window_dims=[0], "
       "scatter_dims_to_operand_dims=[0], mode=fill} : f32[6,3,4]\n"
       "  %2 = gather(%v, %j) {offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], "
       "slice_sizes=[1, 4], mode=clip} : f32[7,4]\n"
       "  %3 = scatter_add(%v, %j, %w) {update_window_dims=[1], inserted_window_dims=[0], "
       "scatter_dims_to_operand_dims=[0], mode=clip} : f32[6,4]\n"
       "  %4 = scatter_add(%t, %i, %u) {update_window_dims=[2, 3], inserted_window_dims=[0], "
       "scatter_dims_to_operand_dims=[0], mode=clip} : f32[6,3,4]\n"
       "  return %0, %1, %2, %3, %4\n}"},
      {"row_gather_scatter_large",  // split over threads: by index (gather), by columns (scatter)
       "func @main(%t: f32[300,520], %i: i32[200,1], %u: f32[200,520]) -> (f32[200,520], "
       "f32[300,520]) {\n"
       "  %0 = gather(%t, %i) {offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], "
       "slice_sizes=[1, 520], mode=fill} : f32[200,520]\n"
       "  %1 = scatter_add(%t, %i, %u) {update_window_dims=[1], inserted_window_dims=[0], "
       "scatter_dims_to_operand_dims=[0], mode=fill} : f32[300,520]\n  return %0, %1\n}"},
      {"reduce",
       "func @main(%a: f32[4,6]) -> (f32[4], f32[6], f32[4], f32[], i64[4], f32[4,6]) {\n"
       "  %0 = reduce_sum(%a) {axes=[1]} : f32[4]\n  %1 = reduce_max(%a) {axes=[0]} : f32[6]\n"
       "  %2 = reduce_min(%a) {axes=[1]} : f32[4]\n"
       "  %3 = reduce_prod(%a) {axes=[0, 1]} : f32[]\n"
       "  %4 = argmax(%a) {axis=1, index_dtype=i64} : i64[4]\n"
       "  %5 = cumsum(%a) {axis=1, reverse=false} : f32[4,6]\n  return %0, %1, %2, %3, %4, %5\n}"},
      {"sort_scan",
       "func @main(%a: f32[4,6], %b: bool[4,6], %c: i32[3,5]) -> (f32[4,6], f32[4,6], i64[4,6], "
       "i32[3,5], i64[3,5], i32[4], f32[4,6], f32[4,6], i64[4,6], bool[4], bool[6]) {\n"
       "  %0 = cumprod(%a) {axis=1, reverse=false} : f32[4,6]\n"
       "  %1:2 = cummax(%a) {axis=0, reverse=false} : (f32[4,6], i64[4,6])\n"
       "  %2:2 = cummin(%c) {axis=1, reverse=true} : (i32[3,5], i64[3,5])\n"
       "  %3 = argmin(%a) {axis=1, index_dtype=i32} : i32[4]\n"
       "  %4 = rev(%a) {dimensions=[0, 1]} : f32[4,6]\n"
       "  %5:2 = sort(%a) {axis=1, descending=true} : (f32[4,6], i64[4,6])\n"
       "  %6 = reduce_and(%b) {axes=[1]} : bool[4]\n"
       "  %7 = reduce_or(%b) {axes=[0]} : bool[6]\n"
       "  return %0, %1#0, %1#1, %2#0, %2#1, %3, %4, %5#0, %5#1, %6, %7\n}"},
      {"reduce_blocks",  // middle and trailing blocks of axes, rows long enough to unroll
       "func @main(%a: f32[3,50,7]) -> (f32[3,7], f32[3], f32[50,7], f32[3,50]) {\n"
       "  %0 = reduce_sum(%a) {axes=[1]} : f32[3,7]\n"
       "  %1 = reduce_max(%a) {axes=[1, 2]} : f32[3]\n"
       "  %2 = reduce_min(%a) {axes=[0]} : f32[50,7]\n"
       "  %3 = reduce_sum(%a) {axes=[2]} : f32[3,50]\n  return %0, %1, %2, %3\n}"},
      {"layout_dtypes",
       "func @main(%a: bf16[3,4,5], %b: i64[4], %c: u8[2,3]) -> (bf16[5,3,4], i64[3,4,2], "
       "u8[3,2]) {\n"
       "  %0 = transpose(%a) {permutation=[2, 0, 1]} : bf16[5,3,4]\n"
       "  %1 = broadcast_in_dim(%b) {shape=[3,4,2], broadcast_dimensions=[1]} : i64[3,4,2]\n"
       "  %2 = transpose(%c) {permutation=[1, 0]} : u8[3,2]\n  return %0, %1, %2\n}"},
      {"slice_concat_pad_copies",  // layout.cc's strided copies, several dtypes
       "func @main(%a: f32[4,5,6], %b: bf16[3,8], %c: i64[2,3], %d: i64[2,1], %e: i64[2,4], "
       "%v: f32[], %w: bf16[]) -> (f32[2,2,3], bf16[3,3], i64[2,8], f32[6,6,7], bf16[3,12], "
       "f32[4,1,6]) {\n"
       "  %0 = slice(%a) {start_indices=[1, 0, 1], limit_indices=[4, 4, 6], strides=[2, 3, 2]}"
       " : f32[2,2,3]\n"
       "  %1 = slice(%b) {start_indices=[0, 2], limit_indices=[3, 5], strides=[1, 1]}"
       " : bf16[3,3]\n"
       "  %2 = concatenate(%c, %d, %e) {dimension=1} : i64[2,8]\n"
       "  %3 = pad(%a, %v) {edge_padding_low=[2, 0, 0], edge_padding_high=[0, 1, 1], "
       "interior_padding=[0, 0, 0]} : f32[6,6,7]\n"
       "  %4 = pad(%b, %w) {edge_padding_low=[0, 3], edge_padding_high=[0, 1], "
       "interior_padding=[0, 0]} : bf16[3,12]\n"
       "  %5 = pad(%a, %v) {edge_padding_low=[0, -2, 0], edge_padding_high=[0, -2, 0], "
       "interior_padding=[0, 0, 0]} : f32[4,1,6]\n"
       "  return %0, %1, %2, %3, %4, %5\n}"},
      {"random_bits",
       "func @main(%k: i64[2]) -> (i32[5], i64[2]) {\n"
       "  %0:2 = random_bits(%k) {shape=[5], dtype=i32} : (i32[5], i64[2])\n"
       "  return %0#0, %0#1\n}"},
      {"matmul",
       "func @main(%x: f32[33,17], %w: f32[17,9]) -> (f32[33,9]) {\n"
       "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], lhs_contracting=[1], "
       "rhs_contracting=[0]} : f32[33,9]\n  return %0\n}"},
      {"matmul_t",
       "func @main(%x: f32[17,33], %w: f32[9,17]) -> (f32[33,9]) {\n"
       "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], lhs_contracting=[0], "
       "rhs_contracting=[1]} : f32[33,9]\n  return %0\n}"},
      {"matvec",
       "func @main(%x: f32[8,5], %w: f32[5]) -> (f32[8]) {\n"
       "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], lhs_contracting=[1], "
       "rhs_contracting=[0]} : f32[8]\n  return %0\n}"},
      {"batched_attention",  // [b, s, h, d] x [b, t, h, d] -> [b, h, s, t]: not mergeable
       "func @main(%q: f32[2,5,3,4], %k: f32[2,6,3,4]) -> (f32[2,3,5,6]) {\n"
       "  %0 = dot_general(%q, %k) {lhs_batch=[0, 2], rhs_batch=[0, 2], lhs_contracting=[3], "
       "rhs_contracting=[3]} : f32[2,3,5,6]\n  return %0\n}"},
      {"matmul_bf16",
       "func @main(%x: bf16[16,32], %w: bf16[32,8]) -> (bf16[16,8]) {\n"
       "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], "
       "lhs_contracting=[1], rhs_contracting=[0]} : bf16[16,8]\n  return %0\n}"},
      {"matmul_i32",
       "func @main(%x: i32[3,4], %w: i32[4,2]) -> (i32[3,2]) {\n"
       "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], "
       "lhs_contracting=[1], rhs_contracting=[0]} : i32[3,2]\n  return %0\n}"},
      {"int8_uint32",  // the interpreter's kernels and layout's 1- and 4-byte copies
       "func @main(%a: i8[6,5], %b: i8[6,5], %u: u32[6,5], %v: u32[5]) -> (i8[6,5], u32[5,6], "
       "i8[6], u32[6,5], bool[6,5], u32[6,5], i8[12,5], f32[6,5], i8[6,5]) {\n"
       "  %0 = mul(%a, %b) : i8[6,5]\n  %1 = add(%0, %a) : i8[6,5]\n"
       "  %2 = transpose(%u) {permutation=[1, 0]} : u32[5,6]\n"
       "  %3 = reduce_sum(%a) {axes=[1]} : i8[6]\n"
       "  %4 = broadcast_in_dim(%v) {shape=[6,5], broadcast_dimensions=[1]} : u32[6,5]\n"
       "  %5 = sub(%u, %4) : u32[6,5]\n  %6 = compare(%5, %u) {dir=gt} : bool[6,5]\n"
       "  %7 = shift_right_logical(%5, %u) : u32[6,5]\n"
       "  %8 = concatenate(%a, %b) {dimension=0} : i8[12,5]\n"
       "  %9 = convert(%5) {dtype=f32} : f32[6,5]\n  %10 = select(%6, %a, %1) : i8[6,5]\n"
       "  return %1, %2, %3, %5, %6, %7, %8, %9, %10\n}"},
      {"fused_chain",  // one fused kernel: scalars, broadcasts, compare/select, two outputs
       "func @main(%a: f32[64,40], %b: f32[64,40], %s: f32[], %p: bool[64,40]) -> "
       "(f32[64,40], f32[64,40], bool[64,40], f32[64]) {\n"
       "  %0 = broadcast_in_dim(%s) {shape=[64,40], broadcast_dimensions=[]} : f32[64,40]\n"
       "  %1 = mul(%a, %0) : f32[64,40]\n  %2 = add(%1, %b) : f32[64,40]\n"
       "  %3 = tanh(%2) : f32[64,40]\n  %4 = compare(%3, %a) {dir=gt} : bool[64,40]\n"
       "  %5 = select(%4, %3, %b) : f32[64,40]\n  %6 = logistic(%5) : f32[64,40]\n"
       "  %7 = exp(%6) : f32[64,40]\n  %8 = sub(%7, %0) : f32[64,40]\n"
       "  %9 = select(%p, %8, %1) : f32[64,40]\n  %10 = max(%9, %a) : f32[64,40]\n"
       "  %11 = min(%10, %b) : f32[64,40]\n  %12 = abs(%11) : f32[64,40]\n"
       "  %13 = sqrt(%12) : f32[64,40]\n  %14 = rsqrt(%12) : f32[64,40]\n"
       "  %15 = log(%14) : f32[64,40]\n  %16 = erf(%15) : f32[64,40]\n"
       "  %17 = div(%16, %13) : f32[64,40]\n  %18 = neg(%17) : f32[64,40]\n"
       "  %19 = reduce_sum(%18) {axes=[1]} : f32[64]\n"
       "  return %18, %3, %4, %19\n}"},
      {"fused_relu",  // relu inside a fused kernel (f32) and per node (i32, f16)
       "func @main(%a: f32[64,40], %b: f32[64,40], %i: i32[7], %h: f16[9]) -> "
       "(f32[64,40], f32[64,40], i32[7], f16[9]) {\n"
       "  %0 = relu(%a) : f32[64,40]\n  %1 = mul(%0, %b) : f32[64,40]\n"
       "  %2 = relu(%1) : f32[64,40]\n  %3 = relu(%i) : i32[7]\n  %4 = relu(%h) : f16[9]\n"
       "  return %0, %2, %3, %4\n}"},
      {"softmax_bias",  // row and column broadcasts read inside the fused kernels
       "func @main(%x: f32[32,64], %b: f32[64]) -> (f32[32,64]) {\n"
       "  %0 = reduce_max(%x) {axes=[1]} : f32[32]\n"
       "  %1 = broadcast_in_dim(%0) {shape=[32,64], broadcast_dimensions=[0]} : f32[32,64]\n"
       "  %2 = sub(%x, %1) : f32[32,64]\n  %3 = exp(%2) : f32[32,64]\n"
       "  %4 = reduce_sum(%3) {axes=[1]} : f32[32]\n"
       "  %5 = broadcast_in_dim(%4) {shape=[32,64], broadcast_dimensions=[0]} : f32[32,64]\n"
       "  %6 = div(%3, %5) : f32[32,64]\n"
       "  %7 = broadcast_in_dim(%b) {shape=[32,64], broadcast_dimensions=[1]} : f32[32,64]\n"
       "  %8 = add(%6, %7) : f32[32,64]\n  return %8\n}"},
      {"fused_dropout",  // registers written in place, then an input loaded after them
       "func @main(%u: f32[100,200], %p: f32[], %x: f32[100,200], %s: f32[]) -> "
       "(f32[100,200]) {\n"
       "  %0 = constant() {value=f32[] [0.99999994]} : f32[]\n"
       "  %1 = broadcast_in_dim(%0) {shape=[100,200], broadcast_dimensions=[]} : f32[100,200]\n"
       "  %2 = min(%u, %1) : f32[100,200]\n"
       "  %3 = broadcast_in_dim(%p) {shape=[100,200], broadcast_dimensions=[]} : f32[100,200]\n"
       "  %4 = compare(%2, %3) {dir=gt} : bool[100,200]\n"
       "  %5 = broadcast_in_dim(%s) {shape=[100,200], broadcast_dimensions=[]} : f32[100,200]\n"
       "  %6 = mul(%x, %5) : f32[100,200]\n  %7 = constant() {value=f32[] [0]} : f32[]\n"
       "  %8 = broadcast_in_dim(%7) {shape=[100,200], broadcast_dimensions=[]} : f32[100,200]\n"
       "  %9 = select(%4, %6, %8) : f32[100,200]\n  return %9\n}"},
      {"rowwise_partial_tiles",  // reductions over rows fused with their readers; row outputs
       "func @main(%x: f32[37,100], %k: f32[]) -> (f32[37,100], f32[37], f32[37], "
       "f32[37,100], f32[37]) {\n"
       "  %0 = reduce_max(%x) {axes=[1]} : f32[37]\n"
       "  %1 = broadcast_in_dim(%0) {shape=[37,100], broadcast_dimensions=[0]} : f32[37,100]\n"
       "  %2 = sub(%x, %1) : f32[37,100]\n  %3 = exp(%2) : f32[37,100]\n"
       "  %4 = reduce_sum(%3) {axes=[1]} : f32[37]\n  %5 = log(%4) : f32[37]\n"
       "  %6 = add(%5, %0) : f32[37]\n"
       "  %7 = broadcast_in_dim(%6) {shape=[37,100], broadcast_dimensions=[0]} : f32[37,100]\n"
       "  %8 = sub(%x, %7) : f32[37,100]\n  %9 = reduce_min(%8) {axes=[1]} : f32[37]\n"
       "  %10 = mul(%x, %x) : f32[37,100]\n  %11 = reduce_sum(%10) {axes=[1]} : f32[37]\n"
       "  %12 = broadcast_in_dim(%k) {shape=[37], broadcast_dimensions=[]} : f32[37]\n"
       "  %13 = mul(%11, %12) : f32[37]\n  %14 = rsqrt(%13) : f32[37]\n"
       "  %15 = broadcast_in_dim(%14) {shape=[37,100], broadcast_dimensions=[0]} : f32[37,100]\n"
       "  %16 = mul(%x, %15) : f32[37,100]\n  return %8, %6, %9, %16, %12\n}"},
      {"rowwise_long_rows_3d",  // one row per tile (5000 is no whole number of vectors); rank 3
       "func @main(%x: f32[3,5000], %y: f32[4,6,48], %m: f32[6,48], %r: f32[4,6]) -> "
       "(f32[3,5000], f32[4,6,48]) {\n"
       "  %0 = reduce_max(%x) {axes=[1]} : f32[3]\n"
       "  %1 = broadcast_in_dim(%0) {shape=[3,5000], broadcast_dimensions=[0]} : f32[3,5000]\n"
       "  %2 = sub(%x, %1) : f32[3,5000]\n  %3 = exp(%2) : f32[3,5000]\n"
       "  %4 = reduce_sum(%3) {axes=[1]} : f32[3]\n"
       "  %5 = broadcast_in_dim(%4) {shape=[3,5000], broadcast_dimensions=[0]} : f32[3,5000]\n"
       "  %6 = div(%3, %5) : f32[3,5000]\n"
       "  %7 = broadcast_in_dim(%m) {shape=[4,6,48], broadcast_dimensions=[1,2]} : f32[4,6,48]\n"
       "  %8 = add(%y, %7) : f32[4,6,48]\n  %9 = reduce_max(%8) {axes=[2]} : f32[4,6]\n"
       "  %10 = sub(%9, %r) : f32[4,6]\n"
       "  %11 = broadcast_in_dim(%10) {shape=[4,6,48], broadcast_dimensions=[0,1]} : "
       "f32[4,6,48]\n"
       "  %12 = mul(%8, %11) : f32[4,6,48]\n  return %6, %12\n}"},
      {"rowwise_keepdim",  // the API's keepdim form: reshape to [..., 1], row ops, broadcast
       "func @main(%x: f32[4,16,64], %s: f32[], %r: f32[4,16,1]) -> (f32[4,16,64], "
       "f32[4,16,1], f32[4,16,64]) {\n"
       "  %0 = reduce_max(%x) {axes=[2]} : f32[4,16]\n"
       "  %1 = reshape(%0) {new_sizes=[4,16,1]} : f32[4,16,1]\n"
       "  %2 = broadcast_in_dim(%1) {shape=[4,16,64], broadcast_dimensions=[0,1,2]} : "
       "f32[4,16,64]\n"
       "  %3 = sub(%x, %2) : f32[4,16,64]\n  %4 = exp(%3) : f32[4,16,64]\n"
       "  %5 = reduce_sum(%4) {axes=[2]} : f32[4,16]\n"
       "  %6 = reshape(%5) {new_sizes=[4,16,1]} : f32[4,16,1]\n"
       "  %7 = broadcast_in_dim(%s) {shape=[4,16,1], broadcast_dimensions=[]} : f32[4,16,1]\n"
       "  %8 = div(%6, %7) : f32[4,16,1]\n  %9 = add(%8, %r) : f32[4,16,1]\n"
       "  %10 = broadcast_in_dim(%9) {shape=[4,16,64], broadcast_dimensions=[0,1,2]} : "
       "f32[4,16,64]\n"
       "  %11 = div(%4, %10) : f32[4,16,64]\n"
       "  %12 = broadcast_in_dim(%r) {shape=[4,16,64], broadcast_dimensions=[0,1,2]} : "
       "f32[4,16,64]\n"
       "  %13 = mul(%11, %12) : f32[4,16,64]\n  return %13, %9, %4\n}"},
      {"call",
       "func @f(%x: f32[3]) -> (f32[3]) {\n  %0 = exp(%x) : f32[3]\n  return %0\n}\n\n"
       "func @main(%x: f32[3]) -> (f32[3]) {\n  %0 = call(%x) {callee=@f} : f32[3]\n"
       "  %1 = call(%0) {callee=@f} : f32[3]\n  return %1\n}"},
      {"cond",
       "func @a(%x: f32[3]) -> (f32[3]) {\n  %0 = neg(%x) : f32[3]\n  return %0\n}\n\n"
       "func @b(%x: f32[3]) -> (f32[3]) {\n  return %x\n}\n\n"
       "func @main(%k: i32[], %x: f32[3]) -> (f32[3]) {\n"
       "  %0 = cond(%k, %x) {branches=[@a, @b]} : f32[3]\n  return %0\n}"},
      {"while",
       "func @c(%i: i32[], %x: f32[2]) -> (bool[]) {\n"
       "  %0 = constant() {value=i32[] [5]} : i32[]\n"
       "  %1 = compare(%i, %0) {dir=lt} : bool[]\n  return %1\n}\n\n"
       "func @b(%i: i32[], %x: f32[2]) -> (i32[], f32[2]) {\n"
       "  %0 = constant() {value=i32[] [1]} : i32[]\n  %1 = add(%i, %0) : i32[]\n"
       "  %2 = add(%x, %x) : f32[2]\n  return %1, %2\n}\n\n"
       "func @main(%i: i32[], %x: f32[2]) -> (i32[], f32[2]) {\n"
       "  %0:2 = while(%i, %x) {cond=@c, body=@b} : (i32[], f32[2])\n"
       "  return %0#0, %0#1\n}"},
      {"scan",
       "func @body(%c: f32[2], %x: f32[2]) -> (f32[2], f32[2]) {\n"
       "  %0 = add(%c, %x) : f32[2]\n  %1 = mul(%0, %x) : f32[2]\n  return %0, %1\n}\n\n"
       "func @main(%c: f32[2], %xs: f32[4,2]) -> (f32[2], f32[4,2]) {\n"
       "  %0:2 = scan(%c, %xs) {body=@body, length=4, num_carry=1, reverse=true} : "
       "(f32[2], f32[4,2])\n  return %0#0, %0#1\n}"},
      {"markers",
       "func @main(%a: f32[3], %b: f32[3]) -> (f32[3], f32[3], f32[3], f32[3]) {\n"
       "  %0 = checkpoint_name(%a) {name=\"x\"} : f32[3]\n"
       "  %1:2 = optimization_barrier(%0, %b) : (f32[3], f32[3])\n"
       "  %2 = copy_to_memory_kind(%1#1) {kind=host} : f32[3]\n  return %0, %1#0, %1#1, %2\n}"},
  };
  return c;
}

Literal random_literal(const TensorType& t, std::mt19937& rng) {
  Literal l = Literal::zeros(t);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int> small(-3, 7);
  for (int64_t i = 0; i < l.numel(); ++i) {
    dispatch_dtype(t.dtype, [&]<class T>() {
      if constexpr (std::is_same_v<T, bool>) {
        l.data<T>()[i] = small(rng) > 2;
      } else if constexpr (std::is_integral_v<T>) {
        l.data<T>()[i] = static_cast<T>(small(rng));
      } else {
        l.data<T>()[i] = T(static_cast<float>(real(rng)));
      }
    });
  }
  return l;
}

double tolerance(DType d) {
  switch (d) {
    case DType::bf16:
      return 2e-2;
    case DType::f16:
      return 2e-3;
    case DType::f32:
      return 2e-5;
    default:
      return 0;
  }
}

// Expects `got` to equal `want` within the dtype's relative tolerance (NaN matches NaN).
void expect_close(const Literal& got, const Literal& want, const std::string& what) {
  ASSERT_EQ(got.type, want.type) << what;
  double tol = tolerance(want.dtype());
  for (int64_t i = 0; i < want.numel(); ++i) {
    double g = got.at(i), w = want.at(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (g == w) continue;
    ASSERT_LE(std::fabs(g - w), tol * std::max(1.0, std::fabs(w)))
        << what << " element " << i << ": cpu " << g << ", reference " << w;
  }
}

// Runs `exe` (compiled once, so later seeds reuse the buffers earlier runs released) and the
// reference on the same random arguments.
// Exactly the reference's values (NaN where it has NaN), element by element.
void expect_same_values(const Literal& got, const Literal& want, size_t result) {
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.at(i), w = want.at(i);
    EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w)
        << "result " << result << " element " << i << ": cpu " << g << ", reference " << w;
  }
}

void check_case(const Case& c, Executable& exe, uint32_t seed) {
  FunctionPtr f = parse_program(c.text);
  std::mt19937 rng(seed);
  std::vector<Literal> args;
  for (const TensorType& t : f->param_types()) args.push_back(random_literal(t, rng));
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe.run(args);
  ASSERT_EQ(got.size(), want.size()) << c.name;
  for (size_t i = 0; i < want.size(); ++i)
    expect_close(got[i], want[i], std::string(c.name) + " result " + std::to_string(i));
}

}  // namespace

TEST(CpuVsReference, EveryCase) {
  for (const Case& c : cases()) {
    auto exe = make_backend("cpu")->compile(parse_program(c.text));
    for (uint32_t seed = 1; seed <= 5; ++seed) {
      SCOPED_TRACE(std::string(c.name) + " seed " + std::to_string(seed));
      check_case(c, *exe, seed);
    }
  }
}

TEST(CpuVsReference, EveryOpIsCovered) {
  for (int i = 0; i < kNumOps; ++i) {
    auto op = static_cast<OpCode>(i);
    if (op == OpCode::parameter) continue;
    std::string needle = " " + std::string(op_name(op)) + "(";
    bool found = false;
    for (const Case& c : cases())
      found = found || std::string(c.text).find(needle) != std::string::npos;
    EXPECT_TRUE(found) << op_name(op) << " has no differential case";
  }
}

TEST(CpuBackend, GemmGoesThroughOneDnn) {
  for (const char* name : {"matmul", "matmul_t", "batched_attention", "matmul_bf16"}) {
    for (const Case& c : cases()) {
      if (std::string(c.name) != name) continue;
      auto exe = make_backend("cpu")->compile(parse_program(c.text));
      EXPECT_EQ(exe->plan_stats().gemm, 1) << name;
    }
  }
}

TEST(CpuBackend, ElementwiseChainsAreFused) {
  for (const Case& c : cases()) {
    if (std::string(c.name) != "fused_chain") continue;
    auto exe = make_backend("cpu")->compile(parse_program(c.text));
    EXPECT_EQ(exe->plan_stats().fused, 1);
    EXPECT_EQ(exe->plan_stats().fused_ops, 20);  // the row sum too
  }
  for (const Case& c : cases()) {
    if (std::string(c.name) != "softmax_bias") continue;
    auto exe = make_backend("cpu")->compile(parse_program(c.text));
    EXPECT_EQ(exe->plan_stats().fused, 1);  // the reductions run inside the kernel, by rows
    EXPECT_EQ(exe->plan_stats().fused_ops, 9);
    EXPECT_EQ(exe->plan_stats().fallback, 0);
  }
  for (const Case& c : cases()) {
    if (std::string(c.name).rfind("rowwise_", 0) != 0) continue;
    auto exe = make_backend("cpu")->compile(parse_program(c.text));
    const std::string name = c.name;
    EXPECT_EQ(exe->plan_stats().fused,
              name == "rowwise_partial_tiles" || name == "rowwise_keepdim" ? 1 : 2)
        << c.name;
    EXPECT_EQ(exe->plan_stats().fallback, 0) << c.name;
  }
}

// Gathers and scatters of whole rows (an embedding and its gradient) have their own kernel,
// exact against the reference (each row's sums in the same order).
TEST(CpuBackend, RowGathersAndScattersHaveTheirKernel) {
  for (const Case& c : cases()) {
    const std::string name = c.name;
    if (name.rfind("row_gather_scatter", 0) != 0 && name != "gather_scatter") continue;
    FunctionPtr f = parse_program(c.text);
    auto exe = make_backend("cpu")->compile(f);
    EXPECT_EQ(exe->plan_stats().fallback, 0) << name;
    std::mt19937 rng(7);
    std::vector<Literal> args;
    for (const TensorType& t : f->param_types()) args.push_back(random_literal(t, rng));
    auto want = make_backend("reference")->compile(f)->run(args);
    auto got = exe->run(args);
    for (size_t r = 0; r < want.size(); ++r) expect_same_values(got[r], want[r], r);
  }
}

// The fused relu keeps what the reference keeps, bit for bit: NaN, -0.0, +0 for negatives.
TEST(CpuBackend, FusedReluMatchesTheReferenceOnSpecials) {
  auto f = parse_program(
      "func @main(%x: f32[2048]) -> (f32[2048]) {\n  %0 = relu(%x) : f32[2048]\n"
      "  %1 = neg(%0) : f32[2048]\n  %2 = relu(%1) : f32[2048]\n  return %2\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fused, 1);
  EXPECT_EQ(exe->plan_stats().fallback, 0);
  const float specials[] = {0.0f, -0.0f, NAN, -NAN, INFINITY, -INFINITY, 1e-40f, -1e-40f, 2.5f, -3};
  Literal x = Literal::zeros({DType::f32, Shape{2048}});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = specials[i % 10];
  std::vector<Literal> args{x};
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe->run(args);
  for (int64_t i = 0; i < x.numel(); ++i) {
    float g = got[0].data<float>()[i], w = want[0].data<float>()[i];
    EXPECT_TRUE(std::isnan(g) ? std::isnan(w) : (g == w && std::signbit(g) == std::signbit(w)))
        << "element " << i << ": cpu " << g << ", reference " << w;
  }
}

// Row reductions inside a fused kernel keep the reference's special values: a row with a NaN
// gives NaN, a row of -inf sums to -inf, a row of zeros reduces to zero. (Which zero a max or min
// over +0 and -0 gives is not specified, as in XLA: the reference keeps the first.)
TEST(CpuBackend, FusedRowReductionsMatchTheReferenceOnSpecials) {
  auto f = parse_program(
      "func @main(%x: f32[6,400]) -> (f32[6], f32[6], f32[6], f32[6,400], bool[6,400]) {\n"
      "  %0 = neg(%x) : f32[6,400]\n  %1 = neg(%0) : f32[6,400]\n"
      "  %2 = reduce_max(%1) {axes=[1]} : f32[6]\n  %3 = reduce_min(%1) {axes=[1]} : f32[6]\n"
      "  %4 = reduce_sum(%1) {axes=[1]} : f32[6]\n"
      "  %5 = broadcast_in_dim(%2) {shape=[6,400], broadcast_dimensions=[0]} : f32[6,400]\n"
      "  %6 = sub(%1, %5) : f32[6,400]\n  %7 = compare(%1, %1) {dir=ne} : bool[6,400]\n"
      "  return %2, %3, %4, %6, %7\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fused, 1);
  Literal x = Literal::zeros({DType::f32, Shape{6, 400}});
  float* p = x.data<float>();
  for (int64_t i = 0; i < 2400; ++i) p[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  p[17] = NAN;                                                      // row 0
  for (int64_t i = 400; i < 800; ++i) p[i] = i % 2 ? -0.0f : 0.0f;  // row 1: zeros
  for (int64_t i = 800; i < 1200; ++i) p[i] = -0.0f;                // row 2: -0 only
  for (int64_t i = 1200; i < 1600; ++i) p[i] = -INFINITY;           // row 3
  p[1700] = INFINITY;                                               // row 4
  p[2399] = NAN;                                                    // row 5, in the tail
  std::vector<Literal> args{x};
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe->run(args);
  for (size_t r = 0; r < want.size(); ++r) expect_same_values(got[r], want[r], r);
}

// A fused division by a row value (softmax's by its sum, read from a row register) gives IEEE's
// quotients, the reference's bit for bit: zeros, infinities, subnormals and NaN as divisors, and
// a divisor whose reciprocal is subnormal (multiplying by a reciprocal would lose bits there).
TEST(CpuBackend, FusedDivisionByARowValueMatchesTheReference) {
  auto f = parse_program(
      "func @main(%x: f32[7,300], %s: f32[7,300]) -> (f32[7,300]) {\n"
      "  %0 = neg(%x) : f32[7,300]\n  %1 = neg(%0) : f32[7,300]\n"
      "  %2 = neg(%s) : f32[7,300]\n  %3 = reduce_min(%2) {axes=[1]} : f32[7]\n"
      "  %4 = broadcast_in_dim(%3) {shape=[7,300], broadcast_dimensions=[0]} : f32[7,300]\n"
      "  %5 = div(%1, %4) : f32[7,300]\n  return %5\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fused, 1);
  Literal x = Literal::zeros({DType::f32, Shape{7, 300}});
  Literal s = Literal::zeros({DType::f32, Shape{7, 300}});  // each row its divisor, negated
  float* p = x.data<float>();
  for (int64_t i = 0; i < 2100; ++i) p[i] = static_cast<float>((i * 7) % 13) - 6.5f;
  p[3] = 0.0f;
  p[5] = INFINITY;
  p[7] = NAN;
  p[9] = 3e38f;
  p[1809] = 3e38f;  // row 6: over 3e38, whose reciprocal is subnormal
  const std::vector<float> divisors = {3.0f, 0.0f, -INFINITY, 1e-40f, NAN, 1e-38f, 3e38f};
  for (int64_t i = 0; i < 2100; ++i) s.data<float>()[i] = -divisors[static_cast<size_t>(i / 300)];
  std::vector<Literal> args{x, s};
  Literal want = make_backend("reference")->compile(f)->run(args)[0];
  expect_same_values(exe->run(args)[0], want, 0);
}

// A fused kernel writes its output over an intermediate input that dies there (read tile by
// tile before it is written), which the planned peak counts once; a parameter, which the
// caller holds, is never written over. Results as the reference's.
TEST(CpuBackend, FusedOutputsTakeOverDeadIntermediates) {
  const char* text =
      "func @main(%a: f32[64,64], %b: f32[64,64]) -> (f32[64,64], f32[64,64]) {\n"
      "  %0 = dot_general(%a, %b) {lhs_batch=[], rhs_batch=[], lhs_contracting=[1], "
      "rhs_contracting=[0]} : f32[64,64]\n"
      "  %1 = transpose(%0) {permutation=[1, 0]} : f32[64,64]\n"
      "  %2 = exp(%1) : f32[64,64]\n  %3 = mul(%2, %1) : f32[64,64]\n"
      "  %4 = add(%3, %1) : f32[64,64]\n  %5 = neg(%a) : f32[64,64]\n"
      "  %6 = mul(%5, %4) : f32[64,64]\n  return %4, %6\n}";
  FunctionPtr f = parse_program(text);
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fused, 1);
  // (the transpose folds into the matmul) live at once: %1, then %4 over %1 and %6: two arrays,
  // not three
  EXPECT_EQ(exe->plan_stats().peak_device_bytes, 2 * 64 * 64 * 4);
  std::mt19937 rng(3);
  std::vector<Literal> args;
  for (const TensorType& t : f->param_types()) args.push_back(random_literal(t, rng));
  const std::vector<float> a_before(args[0].data<float>(), args[0].data<float>() + int64_t{4096});
  auto want = make_backend("reference")->compile(f)->run(args);
  for (int run = 0; run < 2; ++run) {  // the second run reuses released buffers
    auto got = exe->run(args);
    for (size_t r = 0; r < want.size(); ++r)
      expect_close(got[r], want[r], "result " + std::to_string(r));
  }
  EXPECT_EQ(std::vector<float>(args[0].data<float>(), args[0].data<float>() + int64_t{4096}),
            a_before);
}

// Slices, concatenations and pads without interior padding or negative edges are strided copies;
// a crop (negative edge) or interior padding stays with the interpreter's kernel.
TEST(CpuBackend, LayoutOpsAreStridedCopies) {
  for (const Case& c : cases()) {
    if (std::string(c.name) != "slice_concat_pad_copies") continue;
    auto exe = make_backend("cpu")->compile(parse_program(c.text));
    EXPECT_EQ(exe->plan_stats().fallback, 1);  // %5, the crop
  }
}

// sin and cos inside a fused kernel (the rotary tables): Highway's within its valid range
// (|x| <= 39000), libm's beyond it and for inf and NaN.
TEST(CpuBackend, FusedSinCosMatchTheReference) {
  auto f = parse_program(
      "func @main(%x: f32[4096]) -> (f32[4096], f32[4096]) {\n"
      "  %0 = sin(%x) : f32[4096]\n  %1 = cos(%x) : f32[4096]\n  return %0, %1\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fused, 1);
  EXPECT_EQ(exe->plan_stats().fallback, 0);
  const float specials[] = {0.0f,     -0.0f,   NAN,      INFINITY, -INFINITY, 1e-40f,
                            3.14159f, 1.5708f, 39000.0f, 39001.0f, -50000.0f, 1e6f,
                            1e30f,    -1e-30f, 255.0f,   6.2832f};
  const int64_t num_specials = sizeof specials / sizeof specials[0];
  Literal x = Literal::zeros({DType::f32, Shape{4096}});
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> near(-300.0f, 300.0f), far(-39000.0f, 39000.0f);
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = i < num_specials ? specials[i] : (i % 2 ? near(rng) : far(rng));
  std::vector<Literal> args{x};
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe->run(args);
  EXPECT_EQ(got[1].data<float>()[0], 1.0f) << "cos(0) is exactly 1, as libm's";
  EXPECT_EQ(got[0].data<float>()[5], 1e-40f) << "sin(x) of a tiny x is x";
  for (size_t r = 0; r < 2; ++r) {
    for (int64_t i = 0; i < x.numel(); ++i) {
      float g = got[r].data<float>()[i], w = want[r].data<float>()[i];
      bool ok = std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= 4e-7f * std::fabs(w) + 1e-7f;
      EXPECT_TRUE(ok) << "result " << r << " at x = " << x.data<float>()[i] << ": cpu " << g
                      << ", reference " << w;
    }
  }
}

// The fused exp, tanh and logistic (Highway's SIMD math, vmath.h) keep libm's special cases
// (NaN, +-inf, overflow to +inf, underflow to 0) and stay within a few ulp elsewhere.
TEST(CpuBackend, FusedTranscendentalsMatchTheReference) {
  auto f = parse_program(
      "func @main(%x: f32[4096]) -> (f32[4096], f32[4096], f32[4096]) {\n"
      "  %0 = exp(%x) : f32[4096]\n  %1 = tanh(%x) : f32[4096]\n"
      "  %2 = logistic(%x) : f32[4096]\n  return %0, %1, %2\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fused, 1);
  const float specials[] = {0.0f,   -0.0f,   NAN,    -NAN,   INFINITY, -INFINITY, 88.72f,
                            88.73f, 100.0f,  104.5f, -87.0f, -103.0f,  -104.5f,   -200.0f,
                            1e-40f, -1e-40f, 1e-7f,  9.0f,   -9.0f,    18.7f,     -18.8f};
  const int64_t num_specials = sizeof specials / sizeof specials[0];
  Literal x = Literal::zeros({DType::f32, Shape{4096}});
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-30.0f, 30.0f);
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data<float>()[i] = i < num_specials ? specials[i] : wide(rng);
  std::vector<Literal> args{x};
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe->run(args);
  for (size_t r = 0; r < 3; ++r) {
    for (int64_t i = 0; i < x.numel(); ++i) {
      float g = got[r].data<float>()[i], w = want[r].data<float>()[i];
      bool ok = std::isnan(w)   ? std::isnan(g)
                : std::isinf(w) ? g == w
                                : std::fabs(g - w) <= 4e-7f * std::fabs(w) + 1e-38f;
      EXPECT_TRUE(ok) << "result " << r << " at x = " << x.data<float>()[i] << ": cpu " << g
                      << ", reference " << w;
    }
  }
}

TEST(CpuBackend, PeakBytesCountLiveValues) {
  // Each exp's operand dies once it has run, so at most two f32[1000] values are live at once.
  auto f = parse_program(
      "func @main(%x: f32[1000]) -> (f32[1000]) {\n  %0 = exp(%x) : f32[1000]\n"
      "  %1 = exp(%0) : f32[1000]\n  %2 = exp(%1) : f32[1000]\n  return %2\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().peak_device_bytes, 8000);
  EXPECT_EQ(exe->plan_stats().peak_host_bytes, 0);
}

TEST(CpuBackend, WrongArgumentsThrow) {
  auto f = parse_program("func @main(%x: f32[2]) -> (f32[2]) {\n  return %x\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_THROW(exe->run(std::vector<Literal>{}), ValueError);
  EXPECT_THROW(exe->run(std::vector<Literal>{Literal::zeros({DType::f32, Shape{3}})}), ValueError);
}

namespace {

// `text` with every f32 (types, convert targets, constants) made bf16.
std::string as_bf16(std::string text) {
  for (size_t at = text.find("f32"); at != std::string::npos; at = text.find("f32", at + 4))
    text.replace(at, 3, "bf16");
  return text;
}

}  // namespace

// Every case over floats again with bf16 operands and results (f32 -> bf16 in its text: each
// primitive that accepts floats, EveryOpIsCovered's list). bf16 results are bit for bit the
// reference's where both compute in f32 and round to nearest even once; within one bf16 epsilon
// where the cpu backend's f32 math differs in the last f32 bits (exp, tanh, ... before rounding)
// or sums in another order (dot_general, reductions). Which ops are which is printed; an op
// outside bf16_may_differ (bf16_contract.h) that is not bit for bit fails. (Today all are bit
// for bit: the cpu backend runs bf16 elementwise ops with the interpreter's kernels, and the bf16
// GEMMs of these sizes round oneDNN's f32 sums to the same bf16 as the reference's double sums.)
TEST(CpuVsReference, EveryCaseInBf16) {
  std::map<OpCode, double> worst;  // op -> largest distance (bf16 epsilons) over its results
  for (const Case& c : cases()) {
    const std::string text = as_bf16(c.text);
    if (text.find("bf16") == std::string::npos) continue;  // integers only
    SCOPED_TRACE(std::string(c.name) + " in bf16");
    FunctionPtr f = parse_program(text);
    auto exe = make_backend("cpu")->compile(f);
    auto ref = make_backend("reference")->compile(f);
    for (uint32_t seed = 1; seed <= 5; ++seed) {
      std::mt19937 rng(seed);
      std::vector<Literal> args;
      for (const TensorType& t : f->param_types()) args.push_back(random_literal(t, rng));
      const auto want = ref->run(args);
      const auto got = exe->run(args);
      ASSERT_EQ(got.size(), want.size());
      for (size_t r = 0; r < want.size(); ++r) {
        ASSERT_EQ(got[r].type, want[r].type);
        const ValueRef v = f->results()[r];
        const OpCode op = f->node(v.node).op;
        double& far = worst[op];
        for (int64_t i = 0; i < want[r].numel(); ++i) {
          const double g = got[r].at(i), w = want[r].at(i);
          // (bool and index results, and f32 ones kept as they were, exactly)
          double d = (std::isnan(w) && std::isnan(g)) || g == w ? 0 : INFINITY;
          if (want[r].dtype() == DType::bf16) d = lazax::testing::bf16_epsilons_apart(g, w);
          far = std::max(far, d);
          ASSERT_LE(d, 1.0) << op_name(op) << " (result " << r << ") element " << i << ": cpu " << g
                            << ", reference " << w;
        }
      }
    }
  }
  // Every op outside bf16_may_differ (bf16_contract.h) must stay bit for bit.
  std::string exact, close;
  for (const auto& [op, far] : worst) {
    (far == 0 ? exact : close) += " " + std::string(op_name(op));
    if (!lazax::testing::bf16_may_differ(op)) {
      EXPECT_EQ(far, 0) << op_name(op) << " is no longer bit for bit";
    }
  }
  std::printf("[bf16] bit for bit:%s\n[bf16] within one bf16 epsilon:%s\n", exact.c_str(),
              close.c_str());
}
