// The printer of the IR text form (docs/IR.md). Attribute fields are printed generically through
// each attribute struct's `visit`, by field type; floats in their shortest exact form.
#include "lazax/ir/printer.h"

#include <charconv>
#include <cmath>
#include <set>
#include <unordered_map>

#include "lazax/core/error.h"
#include "lexer.h"

namespace lazax {
namespace {

std::string shortest(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// The shortest decimal that reads back (as f32, then rounded to nearest even) to the same bits.
template <class H>
std::string shortest_half(H h) {
  auto f = static_cast<float>(h);
  std::string best = shortest(f);
  char buf[64];
  for (int p = 1; p < 9; ++p) {
    auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::general, p);
    float back = 0;
    auto b = std::from_chars(buf, r.ptr, back);
    if (b.ec == std::errc() && H(back).bits == h.bits) {
      if (static_cast<size_t>(r.ptr - buf) < best.size()) {
        best.assign(buf, r.ptr);
      }
      break;
    }
  }
  return best;
}

template <class T>
std::string element_text(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(static_cast<int64_t>(v));
  } else {
    auto f = static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(v);
    if (std::isnan(f)) {
      return "nan";
    }
    if (std::isinf(f)) {
      return f > 0 ? "inf" : "-inf";
    }
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      return shortest_half(v);
    } else {
      return shortest(v);
    }
  }
}

std::string literal_text(const Literal& lit) {
  std::string out = lit.type.str() + " [";
  dispatch_dtype(lit.dtype(), [&]<class T>() {
    const T* data = lit.data<T>();
    for (int64_t i = 0; i < lit.numel(); ++i) {
      if (i) {
        out += ", ";
      }
      out += element_text(data[i]);
    }
  });
  return out + "]";
}

std::string int_list(const IntList& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(v[i]);
  }
  return out + "]";
}

std::string sanitize(const std::string& name) {
  std::string out = name.empty() ? "f" : name;
  for (char& c : out) {
    if (!text::is_name_char(c)) {
      c = '_';
    }
  }
  return out;
}

class Printer {
 public:
  explicit Printer(PrintOptions opts) : opts_(opts) {}

  std::string run(const Function& main) {
    // The entry keeps its name; "main" is reserved too so that the parser finds the entry.
    std::string main_name = sanitize(main.name());
    taken_.insert(main_name);
    taken_.insert("main");
    names_[&main] = main_name;
    for (const Function* f : callees_first(main)) {
      std::string base = sanitize(f->name()), name = base;
      for (int& k = next_suffix_[base]; taken_.count(name);) {
        name = base + "_" + std::to_string(++k);
      }
      taken_.insert(name);
      names_[f] = name;
      function(*f);
      out_ += "\n";
    }
    function(main);
    return std::move(out_);
  }

  // One node of `f` as its line (without indent and newline); callees keep their own names.
  std::string node_line(const Function& f, size_t i) {
    for (const Function* g : callees_first(f)) names_[g] = sanitize(g->name());
    if (i < static_cast<size_t>(f.num_params())) {
      const int p = static_cast<int>(i);
      out_ = "%arg" + std::to_string(p) + ": " + f.param_type(p).str();
      debug(f.node(p).debug);
    } else {
      node(f, i);
    }
    return std::move(out_);
  }

 private:
  // Every sub-function reachable from `main`, each once, callees before callers (post-order,
  // iterative so that deep nesting cannot exhaust the stack).
  static std::vector<const Function*> callees_first(const Function& main) {
    std::vector<const Function*> order;
    std::set<const Function*> seen{&main};
    std::vector<std::pair<std::vector<FunctionPtr>, size_t>> stack;
    std::vector<const Function*> owners{&main};
    stack.emplace_back(main.callees(), 0);
    while (!stack.empty()) {
      auto& [callees, next] = stack.back();
      if (next < callees.size()) {
        const Function* g = callees[next++].get();
        if (seen.insert(g).second) {
          owners.push_back(g);
          stack.emplace_back(g->callees(), 0);
        }
        continue;
      }
      if (owners.back() != &main) {
        order.push_back(owners.back());
      }
      owners.pop_back();
      stack.pop_back();
    }
    return order;
  }

  std::string value(const Function& f, ValueRef v) const {
    if (v.node < 0 || static_cast<size_t>(v.node) >= f.nodes().size() || v.index < 0 ||
        static_cast<size_t>(v.index) >= f.node(v.node).outputs.size()) {
      throw ValueError("[print] @" + f.name() + " refers to a value that does not exist (node " +
                       std::to_string(v.node) + ", result " + std::to_string(v.index) + ")");
    }
    if (v.node < f.num_params()) {
      return "%arg" + std::to_string(v.node);
    }
    std::string s = "%" + std::to_string(v.node - f.num_params());
    if (f.node(v.node).outputs.size() != 1) {
      s += "#" + std::to_string(v.index);
    }
    return s;
  }

  std::string function_name(const FunctionPtr& f) const {
    auto it = names_.find(f.get());
    if (it == names_.end()) {
      throw ValueError("[print] a node refers to a null function");
    }
    return "@" + it->second;
  }

  void debug(const DebugInfo& d) {
    if (!opts_.debug_info) {
      return;
    }
    if (d.file) {
      out_ += " loc(" + text::quote(d.file) + ":" + std::to_string(d.line) + ")";
    }
    if (d.scope) {
      out_ += " scope(" + text::quote(d.scope) + ")";
    }
  }

  struct FieldWriter {
    const Printer& p;
    std::string& out;
    void operator()(const int64_t& v) { out += std::to_string(v); }
    void operator()(const bool& v) { out += v ? "true" : "false"; }
    void operator()(const IntList& v) { out += int_list(v); }
    void operator()(const Shape& v) { out += v.str(); }
    void operator()(const DType& v) { out += dtype_name(v); }
    void operator()(const CompareDir& v) { out += compare_dir_name(v); }
    void operator()(const GatherMode& v) { out += gather_mode_name(v); }
    void operator()(const MemoryKind& v) { out += memory_kind_name(v); }
    void operator()(const ReduceKind& v) { out += reduce_kind_name(v); }
    void operator()(const std::string& v) { out += text::quote(v); }
    void operator()(const Literal& v) { out += literal_text(v); }
    void operator()(const FunctionPtr& v) { out += p.function_name(v); }
    void operator()(const std::vector<FunctionPtr>& v) {
      out += "[";
      for (size_t i = 0; i < v.size(); ++i) {
        out += (i ? ", " : "") + p.function_name(v[i]);
      }
      out += "]";
    }
  };

  void attributes(const Attrs& attrs) {
    std::visit(
        [&](const auto& s) {
          bool first = true;
          std::decay_t<decltype(s)>::visit(s, [&](std::string_view name, const auto& field) {
            out_ += first ? " {" : ", ";
            first = false;
            out_ += name;
            out_ += "=";
            FieldWriter{*this, out_}(field);
          });
          if (!first) {
            out_ += "}";
          }
        },
        attrs);
  }

  static std::string types(const std::vector<TensorType>& ts, bool parens) {
    std::string s = parens ? "(" : "";
    for (size_t i = 0; i < ts.size(); ++i) {
      s += (i ? ", " : "") + ts[i].str();
    }
    return parens ? s + ")" : s;
  }

  void node(const Function& f, size_t i) {
    const Node& n = f.nodes()[i];
    out_ += "%" + std::to_string(i - static_cast<size_t>(f.num_params()));
    if (n.outputs.size() != 1) {
      out_ += ":" + std::to_string(n.outputs.size());
    }
    out_ += " = ";
    out_ += op_name(n.op);
    out_ += "(";
    for (size_t k = 0; k < n.operands.size(); ++k) {
      out_ += (k ? ", " : "") + value(f, n.operands[k]);
    }
    out_ += ")";
    attributes(n.attrs);
    out_ += " : " + types(n.outputs, n.outputs.size() != 1);
    debug(n.debug);
  }

  void function(const Function& f) {
    out_ += "func @" + names_.at(&f) + "(";
    for (int i = 0; i < f.num_params(); ++i) {
      if (i) {
        out_ += ", ";
      }
      out_ += "%arg" + std::to_string(i) + ": " + f.param_type(i).str();
      debug(f.node(i).debug);
    }
    out_ += ") -> " + types(f.result_types(), true) + " {\n";
    for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
      out_ += "  ";
      node(f, i);
      out_ += "\n";
    }
    out_ += "  return";
    for (size_t k = 0; k < f.results().size(); ++k) {
      out_ += (k ? ", " : " ") + value(f, f.results()[k]);
    }
    out_ += "\n}\n";
  }

  PrintOptions opts_;
  std::string out_;
  std::unordered_map<const Function*, std::string> names_;
  std::set<std::string> taken_;
  std::unordered_map<std::string, int> next_suffix_;  // last suffix tried per base name
};

}  // namespace

std::string print_program(const Function& main, PrintOptions opts) {
  return Printer(opts).run(main);
}

std::string print_node(const Function& f, size_t node, PrintOptions opts) {
  if (node >= f.nodes().size()) {
    throw ValueError("[print] @" + f.name() + " has no node " + std::to_string(node));
  }
  return Printer(opts).node_line(f, node);
}

}  // namespace lazax
