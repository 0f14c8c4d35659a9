// STUB: replaced by the real interpreter.
#include "lazax/ir/interpreter.h"
namespace lazax {
std::vector<Literal> interpret(const Function&, std::span<const Literal>) { throw UnimplementedError("[interpret] missing"); }
}
