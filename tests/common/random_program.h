// Random well-typed programs for differential testing (passes against the unoptimized program,
// a backend against the reference interpreter), with arguments, a result comparison and a
// shrinker that reduces a failing program. Library target: lazax_random_program.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lazax/ir/function.h"

namespace lazax::testing {

struct RandomProgramOptions {
  int num_params = 3;
  int num_steps = 14;  // generation steps; a step adds one to four nodes
  int max_rank = 3;
  int64_t max_dim = 4;
  int max_results = 3;
  bool integers = true;  // i32 values besides f32 (and bool from compare)
  bool calls = true;     // `call` nodes with small random callees
  bool barriers = true;  // optimization_barrier nodes
  // cond, scan and while nodes with small random bodies (which may call callees)
  bool control_flow = true;
  // The dtype float arithmetic runs in: f32, or bf16 (the bf16 mode: float parameters bf16, or
  // f32 converted to bf16 at the start; bf16 constants and iotas; converts bf16 <-> f32 and a
  // bf16 dot_general sometimes converted to f32 at once; f32 values only move through layout
  // ops, converts, control flow and results, so that every float computation is in bf16).
  DType float_dtype = DType::f32;
};

// A program of elementwise unary/binary ops, compare/select, convert, broadcast_in_dim, reshape,
// transpose, reductions, dot_general, slice, concatenate, iota, constants (often 0 or 1),
// repeated nodes, calls, barriers and cond/scan/while nodes. Float values stay finite on arguments
// from random_arguments: log, sqrt, rsqrt, div and exp only see inputs made safe (|x|+1, tanh x)
// (in bf16 too, whose range is f32's). The same seed and options give the same program; the bf16
// mode draws its extra choices only when on, so the f32 programs of a seed do not change.
FunctionPtr random_program(uint64_t seed, const RandomProgramOptions& options = {});

// Arguments for f's parameters: f32 and bf16 in [-2, 2], i32 and i64 in [-5, 5], bools either
// way; zeros for the other dtypes.
std::vector<Literal> random_arguments(const Function& f, uint64_t seed);

// The vmap mode: for each parameter of f, the axis at which a batch of `size` examples sits
// (negative ones counting from the end) or nullopt (the same for every example; at least one
// parameter is batched), and each example's arguments (random_arguments of its own seed, the
// unbatched parameters equal across examples). vmap of f on the stacked arguments must equal f
// on each example, stacked (tests/vmap/vmap_random_programs_test.cc).
struct VmapArguments {
  std::vector<std::optional<int64_t>> in_axes;
  std::vector<std::vector<Literal>> examples;  // [example][parameter]
};
VmapArguments random_vmap_arguments(const Function& f, uint64_t seed, int64_t size);

// "" when `got` matches `want`: same types, and per element NaN matches NaN, otherwise
// |got - want| <= atol + rtol * |want| (0 and 0: exact, -0 equal to +0). Else a message naming
// the result, element and values.
std::string compare_results(const std::vector<Literal>& want, const std::vector<Literal>& got,
                            double rtol = 0, double atol = 0);

// Shrinks a program for which fails(f) holds: drops results, returns a result node's operand
// instead, replaces nodes by new parameters or by an operand of their type, while the smaller
// program still fails; returns the smallest failing program
// found (after at most max_tries calls of fails).
FunctionPtr shrink_program(FunctionPtr f, const std::function<bool(const FunctionPtr&)>& fails,
                           int max_tries = 2000);

}  // namespace lazax::testing
