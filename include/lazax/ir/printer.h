// The text form of programs (docs/IR.md): printing, parsing and a Graphviz DOT export.
#pragma once
#include <string>
#include <string_view>

#include "lazax/ir/function.h"

namespace lazax {

struct PrintOptions {
  bool debug_info = true;  // print loc("file":line) and scope("a/b") where present
};

// Prints `main` and, before it, every sub-function it reaches (each once, callees first).
// Sub-functions with clashing names are renamed with a numeric suffix.
std::string print_program(const Function& main, PrintOptions opts = {});

// Parses a file of one or more functions and returns @main (or the only function when there is
// one). Throws ParseError with line and column for malformed text, ShapeError/VerifyError when the
// program is well-formed text but wrong.
FunctionPtr parse_program(std::string_view text);

// Graphviz DOT of one function (sub-functions appear as clusters).
std::string to_dot(const Function& f);

}  // namespace lazax
