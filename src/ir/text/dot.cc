// Graphviz DOT export of a function: one DOT node per IR node, labelled with its op and type;
// edges from operands; parameters and results marked; each distinct sub-function drawn once as
// a `subgraph cluster_fK`, with a dashed edge from every node that uses it.
#include <set>
#include <unordered_map>

#include "lazax/ir/printer.h"

namespace lazax {
namespace {

// A DOT double-quoted string: quotes and backslashes escaped, "\n" kept as a DOT line break,
// other bytes outside printable ASCII replaced by '?'.
std::string dot_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += (u >= 0x20 && u < 0x7f) ? c : '?';
    }
  }
  return out + "\"";
}

class DotWriter {
 public:
  std::string run(const Function& main) {
    // Number every distinct function reachable from main (main is f0).
    std::vector<const Function*> stack{&main};
    while (!stack.empty()) {
      const Function* f = stack.back();
      stack.pop_back();
      if (ids_.count(f)) {
        continue;
      }
      ids_[f] = order_.size();
      order_.push_back(f);
      auto callees = f->callees();
      for (auto it = callees.rbegin(); it != callees.rend(); ++it) {
        stack.push_back(it->get());
      }
    }
    out_ = "digraph " + dot_quote(main.name()) + " {\n";
    out_ += "  compound=true;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    out_ += "  label=" + dot_quote("@" + main.name()) + ";\n";
    for (size_t k = 1; k < order_.size(); ++k) {
      out_ += "  subgraph cluster_f" + std::to_string(k) + " {\n";
      out_ += "    label=" + dot_quote("@" + order_[k]->name()) + ";\n    style=rounded;\n";
      body(*order_[k], "    ");
      out_ += "  }\n";
    }
    body(main, "  ");
    out_ += edges_;
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  std::string id(const Function& f, size_t node) const {
    return "f" + std::to_string(ids_.at(&f)) + "_n" + std::to_string(node);
  }
  std::string ret_id(const Function& f) const { return "f" + std::to_string(ids_.at(&f)) + "_ret"; }

  static std::string name(const Function& f, size_t node) {
    auto np = static_cast<size_t>(f.num_params());
    return node < np ? "%arg" + std::to_string(node) : "%" + std::to_string(node - np);
  }

  void body(const Function& f, const std::string& indent) {
    for (size_t i = 0; i < f.nodes().size(); ++i) {
      const Node& n = f.nodes()[i];
      std::string types;
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        types += (k ? ", " : "") + n.outputs[k].str();
      }
      if (n.op == OpCode::parameter) {
        out_ += indent + id(f, i) + " [label=" + dot_quote(name(f, i) + "\n" + types) +
                ", shape=ellipse, style=filled, fillcolor=lightblue];\n";
        continue;
      }
      out_ += indent + id(f, i) + " [label=" +
              dot_quote(name(f, i) + " = " + std::string(op_name(n.op)) + "\n" + types) + "];\n";
      for (auto v : n.operands) {
        if (v.node < 0 || static_cast<size_t>(v.node) >= i) {
          continue;  // malformed: skip
        }
        out_ += indent + id(f, static_cast<size_t>(v.node)) + " -> " + id(f, i);
        if (f.node(v.node).outputs.size() != 1) {
          out_ += " [label=\"#" + std::to_string(v.index) + "\"]";
        }
        out_ += ";\n";
      }
      sub_function_edges(f, i, n.attrs);
    }
    out_ += indent + ret_id(f) + " [label=\"return\", shape=doubleoctagon, style=filled, " +
            "fillcolor=lightgrey];\n";
    for (size_t k = 0; k < f.results().size(); ++k) {
      auto v = f.results()[k];
      if (v.node < 0 || static_cast<size_t>(v.node) >= f.nodes().size()) {
        continue;
      }
      out_ += indent + id(f, static_cast<size_t>(v.node)) + " -> " + ret_id(f) + " [label=\"" +
              std::to_string(k) + "\"];\n";
    }
  }

  // Dashed edges from a node to the clusters of the functions its attributes name; written
  // after all clusters (an edge inside a cluster would pull its target into that cluster).
  void sub_function_edges(const Function& f, size_t node, const Attrs& attrs) {
    std::visit(
        [&](const auto& s) {
          std::decay_t<decltype(s)>::visit(s, [&](std::string_view field, const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, FunctionPtr>) {
              edge(f, node, v, std::string(field));
            } else if constexpr (std::is_same_v<T, std::vector<FunctionPtr>>) {
              for (size_t k = 0; k < v.size(); ++k) {
                edge(f, node, v[k], std::string(field) + "[" + std::to_string(k) + "]");
              }
            }
          });
        },
        attrs);
  }
  void edge(const Function& f, size_t node, const FunctionPtr& g, const std::string& label) {
    if (!g || !ids_.count(g.get())) {
      return;
    }
    edges_ += "  " + id(f, node) + " -> " + ret_id(*g) + " [style=dashed, lhead=cluster_f" +
              std::to_string(ids_.at(g.get())) + ", label=" + dot_quote(label) + "];\n";
  }

  std::unordered_map<const Function*, size_t> ids_;
  std::vector<const Function*> order_;
  std::string out_, edges_;
};

}  // namespace

std::string to_dot(const Function& f) { return DotWriter().run(f); }

}  // namespace lazax
