// compare_results and shrink_program of random_program.h.
#include <cmath>
#include <optional>

#include "lazax/ir/builder.h"
#include "random_program.h"

namespace lazax::testing {
namespace {

// What the shrinker does to node `node`: replace it by new parameters, or by its operand
// `operand` (of the same type as its one output).
struct Edit {
  size_t node = 0;
  int operand = -1;  // -1: cut into parameters
};

// f with only `results` kept and `edit` applied (when `edit` is set), dead nodes and unused
// parameters dropped.
FunctionPtr rebuild(const Function& f, const std::vector<ValueRef>& results,
                    std::optional<Edit> edit) {
  const auto& nodes = f.nodes();
  std::vector<char> cut(nodes.size(), 0);
  if (edit && edit->operand < 0) cut[edit->node] = 1;
  std::vector<char> live(nodes.size(), 0);
  for (ValueRef v : results) live[static_cast<size_t>(v.node)] = 1;
  for (size_t i = nodes.size(); i-- > 0;) {
    if (!live[i] || cut[i]) continue;
    if (edit && edit->node == i && edit->operand >= 0) {
      live[static_cast<size_t>(nodes[i].operands[static_cast<size_t>(edit->operand)].node)] = 1;
      continue;
    }
    for (ValueRef v : nodes[i].operands) live[static_cast<size_t>(v.node)] = 1;
  }
  Builder b(f.name());
  std::vector<std::vector<ValueRef>> map(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    bool param = static_cast<int>(i) < f.num_params();
    if (live[i] && (param || cut[i]))
      for (const TensorType& t : nodes[i].outputs) map[i].push_back(b.param(t));
  }
  for (size_t i = static_cast<size_t>(f.num_params()); i < nodes.size(); ++i) {
    if (!live[i] || cut[i]) continue;
    if (edit && edit->node == i && edit->operand >= 0) {
      ValueRef v = nodes[i].operands[static_cast<size_t>(edit->operand)];
      map[i] = {map[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)]};
      continue;
    }
    Node n = nodes[i];
    for (ValueRef& v : n.operands)
      v = map[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)];
    map[i] = b.add_node(std::move(n));
  }
  std::vector<ValueRef> out;
  out.reserve(results.size());
  for (ValueRef v : results)
    out.push_back(map[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)]);
  return b.build(out);
}

bool close(double want, double got, double rtol, double atol) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (want == got) return true;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

}  // namespace

std::string compare_results(const std::vector<Literal>& want, const std::vector<Literal>& got,
                            double rtol, double atol) {
  if (want.size() != got.size())
    return "expected " + std::to_string(want.size()) + " results, got " +
           std::to_string(got.size());
  for (size_t r = 0; r < want.size(); ++r) {
    if (want[r].type != got[r].type)
      return "result " + std::to_string(r) + ": expected type " + want[r].type.str() + ", got " +
             got[r].type.str();
    for (int64_t k = 0; k < want[r].numel(); ++k) {
      double w = want[r].at(k), g = got[r].at(k);
      if (!close(w, g, rtol, atol))
        return "result " + std::to_string(r) + " element " + std::to_string(k) + ": expected " +
               std::to_string(w) + ", got " + std::to_string(g);
    }
  }
  return "";
}

FunctionPtr shrink_program(FunctionPtr f, const std::function<bool(const FunctionPtr&)>& fails,
                           int max_tries) {
  int tries = 0;
  auto attempt = [&](const std::vector<ValueRef>& results, std::optional<Edit> edit) {
    if (tries >= max_tries) return false;
    ++tries;
    FunctionPtr g = rebuild(*f, results, edit);
    if (!fails(g)) return false;
    f = g;
    return true;
  };
  for (bool progress = true; progress && tries < max_tries;) {
    progress = false;
    // Drop results one at a time.
    for (size_t r = 0; f->results().size() > 1 && r < f->results().size();) {
      std::vector<ValueRef> results = f->results();
      results.erase(results.begin() + static_cast<std::ptrdiff_t>(r));
      if (attempt(results, std::nullopt)) {
        progress = true;
      } else {
        ++r;
      }
    }
    // Return an operand of a result's node instead of the result.
    for (size_t r = 0; r < f->results().size(); ++r) {
      const Node& n = f->node(f->results()[r].node);
      for (size_t k = 0; k < n.operands.size(); ++k) {
        std::vector<ValueRef> results = f->results();
        results[r] = n.operands[k];
        if (attempt(results, std::nullopt)) {
          progress = true;
          break;
        }
      }
    }
    // Cut nodes, or bypass them (latest first: an edit near the results removes the most).
    for (size_t i = f->nodes().size(); i-- > static_cast<size_t>(f->num_params());) {
      if (i >= f->nodes().size()) continue;
      if (attempt(f->results(), Edit{i, -1})) {
        progress = true;
        continue;
      }
      const Node& n = f->nodes()[i];
      for (size_t k = 0; n.outputs.size() == 1 && k < n.operands.size(); ++k) {
        if (f->type(n.operands[k]) != n.outputs[0]) continue;
        if (attempt(f->results(), Edit{i, static_cast<int>(k)})) {
          progress = true;
          break;
        }
      }
    }
  }
  return f;
}

}  // namespace lazax::testing
