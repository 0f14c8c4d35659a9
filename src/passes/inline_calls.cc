// Inlining of `call` nodes: the callee's nodes replace the call, so later passes (and fusion)
// see across the call boundary.
#include "lazax/passes/passes.h"
#include "rebuild.h"

namespace lazax::passes {

FunctionPtr inline_calls(const FunctionPtr& f, bool keep_calls_outlined) {
  detail::Rebuild r(f);
  auto recurse = [&](const FunctionPtr& g) { return inline_calls(g, keep_calls_outlined); };
  for (size_t i = static_cast<size_t>(f->num_params()); i < f->nodes().size(); ++i) {
    const Node& n = f->nodes()[i];
    Attrs attrs = n.attrs;
    if (has_flag(n.op, kHasBodies) && detail::map_bodies(attrs, recurse)) r.changed = true;
    if (n.op == OpCode::call && !keep_calls_outlined) {
      // The callee in `attrs` has its own calls inlined already.
      const Function& callee = *std::get<CallAttrs>(attrs).callee;
      r.set(static_cast<int32_t>(i),
            detail::emit_inline(r.builder(), callee, r.mapped_operands(n)));
      r.changed = true;
      continue;
    }
    r.set(static_cast<int32_t>(i), r.copy(n, std::move(attrs)));
  }
  return r.finish();
}

}  // namespace lazax::passes
