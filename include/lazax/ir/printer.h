// The text form of programs (docs/IR.md): printing, parsing and a Graphviz DOT export.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lazax/ir/function.h"

namespace lazax {

struct PrintOptions {
  bool debug_info = true;  // print loc("file":line) and scope("a/b") where present
};

// Prints `main` and, before it, every sub-function it reaches (each once, callees first).
// Sub-functions with clashing names are renamed with a numeric suffix.
std::string print_program(const Function& main, PrintOptions opts = {});

// Node `node` of `f` (parameters first) as its line of the text form, for messages:
// `%3 = constant() {value=f32[] [0.5]} : f32[]`, a parameter as `%arg0: f32[2]`.
std::string print_node(const Function& f, size_t node, PrintOptions opts = {});

// Parses a file of one or more functions (in any order) and returns @main, or the last function
// when none is named main. Throws ParseError with the line and column of the offending token for
// any bad input, including programs that read well but break a shape rule (the rule's message is
// kept). A Function keeps no parameter names: `param_names`, when given, receives those of the
// function returned as written ("%x"), for messages about its inputs.
FunctionPtr parse_program(std::string_view text, std::vector<std::string>* param_names = nullptr);

// Graphviz DOT of one function (sub-functions appear as clusters).
std::string to_dot(const Function& f);

}  // namespace lazax
