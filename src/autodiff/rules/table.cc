// The VJP/JVP rule of each op, found by OpCode from the op table's rows.
#include <array>

#include "lazax/autodiff/rules.h"
#include "lazax/autodiff/tape.h"

namespace lazax::autodiff {
namespace {
const std::array<VjpRule, kNumOps> kVjp = {{
#define LAZAX_VJP_ROW(name, attrs, arity, flags, rule) &vjp_##name,
    LAZAX_OPS(LAZAX_VJP_ROW)
#undef LAZAX_VJP_ROW
}};
const std::array<JvpRule, kNumOps> kJvp = {{
#define LAZAX_JVP_ROW(name, attrs, arity, flags, rule) &jvp_##name,
    LAZAX_OPS(LAZAX_JVP_ROW)
#undef LAZAX_JVP_ROW
}};
}  // namespace

VjpRule vjp_rule(OpCode op) { return kVjp[static_cast<size_t>(op)]; }
JvpRule jvp_rule(OpCode op) { return kJvp[static_cast<size_t>(op)]; }

}  // namespace lazax::autodiff
