// STUB: replaced by the real printer/parser.
#include "lazax/ir/printer.h"
#include "lazax/core/error.h"
namespace lazax {
std::string print_program(const Function&, PrintOptions) { throw UnimplementedError("[print] missing"); }
FunctionPtr parse_program(std::string_view) { throw UnimplementedError("[parse] missing"); }
std::string to_dot(const Function&) { throw UnimplementedError("[dot] missing"); }
}
