// The fused kernel's register program: fused.cc builds it from a fusion group, fused_tile.cc
// runs it over one tile of the group's elements (compiled once per SIMD target).
//
// A register holds one value of the group for the current tile, in f32 (or 1 and 0 for bool):
// a bf16 value is widened as it is loaded, each bf16 member's result rounded to bf16 (round_bf16,
// to nearest even, as the reference rounds every bf16 op once) and narrowed as it is stored, so
// converts between f32 and bf16 fuse away and a bf16 group gives the reference's bits. A `full`
// register holds the tile's elements of the group's shape; a `row` register (rowwise kernels
// only: those with a reduction over the last axis) holds one value per row of the tile. Rowwise
// tiles are whole rows, so a reduction and the ops that read its result run on values still in
// cache.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "plan.h"

namespace lazax::cpu {

enum class FOp : uint8_t {
  // From inputs (`a` is the input index; `half`: a bf16 one, widened): an f32, bf16 or bool
  // array of the register's class, a
  // scalar (filled once per thread), a value per row repeated over `len` elements (load_rows),
  // an array of `len` elements repeated (load_cols: a bias over the trailing dims).
  load,
  load_bool,
  scalar,
  scalar_bool,
  load_rows,
  load_cols,
  expand,  // row register a -> full: each row's value over the row
  add,
  sub,
  mul,
  div,
  max,
  min,
  neg,
  abs,
  relu,
  exp,
  log,
  tanh,
  logistic,
  sqrt,
  rsqrt,
  erf,
  sin,
  cos,
  round_bf16,  // to the nearest bf16 (even on ties; a NaN stays a quiet NaN), kept in f32
  // computed one element at a time with the reference's <cmath> call (the same bits)
  sign,
  floor,
  ceil,
  round,
  log1p,
  expm1,
  exp2,
  tan,
  erf_inv,
  is_finite,  // 1 or 0
  pow,
  atan2,
  rem,
  clamp,    // a = lo, b = x, c = hi, as the primitive's operands
  convert,  // between f32 and bool: 1 where a != 0, else 0 (a bool register holds 1 or 0)
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  select,
  reduce_sum,  // full register a -> row: over each row of the tile
  reduce_max,
  reduce_min,
  none  // not an op of the register program (fusible.h)
};

struct FInstr {
  FOp op;
  bool row = false;   // dst is a row register
  bool half = false;  // a load, scalar, load_rows or load_cols of a bf16 input
  int32_t dst = -1, a = -1, b = -1, c = -1;
  int64_t len = 0;
  // add/sub/mul/div of a full register: operand a (b) is a row register, each row's value
  // taken over its row (the broadcast is never written out)
  bool a_row = false, b_row = false;
};

struct FusedKernel : StepState {
  std::vector<FInstr> prologue;  // the scalar fills: the same for every tile
  std::vector<FInstr> code;
  int32_t num_regs = 0;
  int64_t numel = 0;       // elements of the group's shape
  int64_t row_len = 0;     // > 0: rowwise, tiles are whole rows of row_len elements
  int64_t rows = 0;        // rowwise: numel / row_len
  int64_t tile = 0;        // elements per tile (rowwise: a whole number of rows)
  int64_t reg_floats = 0;  // floats per register: the tile, padded to a whole SIMD vector
  std::vector<int32_t> out_regs;
  std::vector<int32_t> out_of_reg;  // per register: the f32 full output it is, written in place
  std::vector<bool> out_row;
  std::vector<TensorType> out_types;
  std::vector<char> in_full;       // per input: read by full-register f32 loads only
  std::vector<int32_t> out_donor;  // per output: the input whose buffer it may take, or -1
  [[nodiscard]] std::string describe() const override {
    return " (" + std::to_string(code.size()) + " ops, " + std::to_string(in_full.size()) +
           " in, " + std::to_string(out_types.size()) + " out)";
  }
};

// The elements [i0, i0 + n) of the group's shape; rowwise, also its rows [r0, r0 + nr).
struct Tile {
  int64_t i0 = 0, n = 0, r0 = 0, nr = 0;
  const char* donated = nullptr;  // per output: it took an input's buffer (no in-place writes)
};

// Registers are padded to a multiple of this many floats (the widest SIMD vector), and every
// op runs over the padded length: the padding holds finite junk that is never stored.
constexpr int64_t kRegPad = 16;

// Runs `k.code` over tile `t`. `regs` holds num_regs registers of k.reg_floats (this thread's,
// with the prologue already run), `ptr` num_regs pointers of scratch.
void run_fused_prologue(const FusedKernel& k, const void* const* ins, float* regs);
void run_fused_tile(const FusedKernel& k, const void* const* ins, void* const* outs, float* regs,
                    const float** ptr, const Tile& t);

}  // namespace lazax::cpu
