// Dead code elimination: every op is pure (random_bits is a function of its key), so a node
// that no result depends on can go.
#include "lazax/passes/passes.h"
#include "rebuild.h"

namespace lazax::passes {

FunctionPtr dce(const FunctionPtr& f) {
  const auto& nodes = f->nodes();
  std::vector<char> live(nodes.size(), 0);
  for (ValueRef v : f->results()) live[static_cast<size_t>(v.node)] = 1;
  for (size_t i = nodes.size(); i-- > 0;) {
    if (!live[i]) continue;
    for (ValueRef v : nodes[i].operands) live[static_cast<size_t>(v.node)] = 1;
  }
  detail::Rebuild r(f);
  for (size_t i = static_cast<size_t>(f->num_params()); i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (!live[i]) {
      r.changed = true;
      continue;
    }
    Attrs attrs = n.attrs;
    if (has_flag(n.op, kHasBodies) && detail::map_bodies(attrs, dce)) r.changed = true;
    r.set(static_cast<int32_t>(i), r.copy(n, std::move(attrs)));
  }
  return r.finish();
}

}  // namespace lazax::passes
