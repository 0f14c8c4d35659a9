// IR -> IR passes (docs/PASSES.md). Functions are immutable: each pass returns a new Function,
// or the same pointer when it changed nothing. Every pass keeps the function's signature and
// recurses into sub-functions (call callees, cond branches, while/scan bodies), whose
// signatures it keeps too.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "lazax/ir/function.h"

namespace lazax::passes {

// Replaces each `call` node by the callee's nodes (callees inlined first, so nested calls all
// go). With keep_calls_outlined, calls stay, but calls inside cond/while/scan bodies are
// still visited (and left alone).
FunctionPtr inline_calls(const FunctionPtr& f, bool keep_calls_outlined = false);
// Removes nodes that no result depends on. Parameters always stay.
FunctionPtr dce(const FunctionPtr& f);
// Merges nodes with the same op, attributes (sub-functions compared by structural hash), output
// types and operands. Never merges optimization_barrier nodes; random_bits is a function of its
// key operand, so two draws merge only when their keys are the same value.
FunctionPtr cse(const FunctionPtr& f);
// Evaluates (with the reference interpreter) nodes whose operands are all constants when their
// outputs hold at most `max_elements` elements in all and their operands at most 64 times that.
// Leaves iota, broadcast_in_dim (a broadcast scalar is cheaper than a big literal), markers,
// barriers and ops with sub-functions alone.
FunctionPtr fold_constants(const FunctionPtr& f, int64_t max_elements = 1024);
// Local rewrites: x*1, 1*x, x+0, 0+x, x-0, x/1 (the constant may be broadcast), neg(neg(x)),
// convert to the same dtype, select(c, x, x) and select on a constant predicate, reductions over
// no axes, concatenate of one operand, a slice of everything, identity and nested transposes /
// reshapes / broadcast_in_dim, dot_general of a transpose folded into the dimension numbers when
// the free dimensions keep their order. x+0 -> x (and reduce_sum over no axes) keeps a -0 that
// the addition would have turned into +0.
FunctionPtr simplify(const FunctionPtr& f);

struct PassOptions {
  bool inline_calls = true;
  bool keep_calls_outlined = false;  // with inline_calls: leave `call` nodes in place
  bool simplify = true;
  bool fold_constants = true;
  bool cse = true;
  bool dce = true;
  int64_t fold_max_elements = 1024;
  int max_iterations = 8;  // rounds of the pass list; stops earlier at a fixed point
  bool verify = true;      // run ir::verify on the result
  // Where to write the program after each pass that changed it (and the input, as pass 00):
  // <dir>/<input hash, 16 hex digits>_<NN>_<pass>.lzir. Unset: the process's default
  // (set_default_dump_dir); empty: no dumps.
  std::optional<std::string> dump_dir;
};

// The dump directory of an optimize call whose PassOptions leave it unset: Options::dump_dir
// (LAZAX_DUMP_DIR), which the runtime's Context sets here. Empty: no dumps.
void set_default_dump_dir(std::string dir);

// Runs the enabled passes in the order inline_calls, simplify, fold_constants, cse, dce, repeated
// until a round changes nothing or max_iterations rounds ran. Returns `f` itself when nothing
// changed.
FunctionPtr optimize(FunctionPtr f, const PassOptions& options = {});

}  // namespace lazax::passes
