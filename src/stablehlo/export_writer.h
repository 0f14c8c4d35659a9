// The exporter's writer, shared by export.cc (the module, functions, control flow and the
// op rows) and export_bodies.cc (the rows that write bodies and masks: reductions, argmax,
// gather, scatter). Private to the layer.
#pragma once
#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "lazax/stablehlo/export.h"

namespace lazax::stablehlo::detail {

using Names = std::vector<std::string>;

inline std::string elem(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f64:
      return "f64";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::u8:
      return "ui8";
    case DType::boolean:
      return "i1";
    case DType::i8:
      return "i8";
    case DType::u32:
      return "ui32";
  }
  return "?";
}

inline std::string type(const TensorType& t) {
  std::string s = "tensor<";
  for (int64_t d : t.shape.dims()) s += std::to_string(d) + "x";
  return s + elem(t.dtype) + ">";
}

inline std::string ints(const IntList& v) {
  std::string s = "array<i64";
  for (size_t k = 0; k < v.size(); ++k) s += (k == 0 ? ": " : ", ") + std::to_string(v[k]);
  return s + ">";
}

inline std::string list(const IntList& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k == 0 ? "" : ", ") + std::to_string(v[k]);
  return s + "]";
}

// Exact: the little-endian bytes of every element (booleans as a list, MLIR's i1 hex differs).
inline std::string dense(const Literal& l) {
  const auto* p = static_cast<const uint8_t*>(l.buffer.data());
  std::string s;
  if (l.type.dtype == DType::boolean && l.type.shape.dims().empty()) {
    s = std::string("dense<") + (p[0] != 0 ? "true" : "false") + ">";
  } else if (l.type.dtype == DType::boolean) {
    s = "dense<[";
    for (int64_t k = 0; k < l.numel(); ++k)
      s += (k == 0 ? "" : ", ") + std::string(p[k] ? "true" : "false");
    s += "]>";
  } else {
    static const char* hex = "0123456789ABCDEF";
    s = "dense<\"0x";
    for (size_t k = 0; k < l.type.bytes(); ++k) {
      s += hex[p[k] >> 4];
      s += hex[p[k] & 15];
    }
    s += "\">";
  }
  return s + " : " + type(l.type);
}

inline const char* direction(CompareDir d) {
  switch (d) {
    case CompareDir::eq:
      return "EQ";
    case CompareDir::ne:
      return "NE";
    case CompareDir::lt:
      return "LT";
    case CompareDir::le:
      return "LE";
    case CompareDir::gt:
      return "GT";
    case CompareDir::ge:
      return "GE";
  }
  return "EQ";
}

class Exporter {
 public:
  explicit Exporter(Form form) : form_(form) {}

  std::string module(const Function& f) {
    std::string main = func(f, "main", true);
    std::string out = "module @jit_" + f.name() + " {\n";
    for (const std::string& p : privates_) out += p;
    return out + main + "}\n";
  }

 private:
  std::string func(const Function& f, const std::string& name, bool is_public) {
    std::ostringstream o;
    o << "  func.func " << (is_public ? "public" : "private") << " @" << name << "(";
    Names params;
    for (int i = 0; i < f.num_params(); ++i) {
      params.push_back("%arg" + std::to_string(i));
      o << (i ? ", " : "") << params.back() << ": " << type(f.param_type(i));
    }
    o << ") -> (";
    for (size_t k = 0; k < f.result_types().size(); ++k)
      o << (k ? ", " : "") << type(f.result_types()[k]);
    o << ") {\n";
    Names res = body(f, params, o, "    ");
    ret(o, "    ", "func.return", res, f.result_types());
    o << "  }\n";
    return o.str();
  }

  void ret(std::ostringstream& o, const std::string& ind, const char* op, const Names& vals,
           const std::vector<TensorType>& types) {
    if (form_ == Form::pretty && !vals.empty()) {
      o << ind << (std::strcmp(op, "func.return") == 0 ? "return " : "stablehlo.return ");
      for (size_t k = 0; k < vals.size(); ++k) o << (k ? ", " : "") << vals[k];
      o << " : ";
      for (size_t k = 0; k < types.size(); ++k) o << (k ? ", " : "") << type(types[k]);
      o << "\n";
      return;
    }
    o << ind << "\"" << op << "\"(";
    for (size_t k = 0; k < vals.size(); ++k) o << (k ? ", " : "") << vals[k];
    o << ") : (";
    for (size_t k = 0; k < types.size(); ++k) o << (k ? ", " : "") << type(types[k]);
    o << ") -> ()\n";
  }

  // Writes f's nodes with its parameters named `params`; returns the names of its results.
  Names body(const Function& f, const Names& params, std::ostringstream& o,
             const std::string& ind) {
    std::vector<Names> names(f.nodes().size());
    for (int i = 0; i < f.num_params(); ++i)
      names[static_cast<size_t>(i)] = {params[static_cast<size_t>(i)]};
    for (size_t n = static_cast<size_t>(f.num_params()); n < f.nodes().size(); ++n) {
      const Node& node = f.nodes()[n];
      Names in;
      std::vector<TensorType> in_types;
      for (ValueRef v : node.operands) {
        in.push_back(names[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)]);
        in_types.push_back(f.type(v));
      }
      names[n] = op(node, in, in_types, o, ind);
    }
    Names out;
    for (ValueRef v : f.results())
      out.push_back(names[static_cast<size_t>(v.node)][static_cast<size_t>(v.index)]);
    return out;
  }

  Names results(size_t n, std::string& lhs) {
    std::string base = "%" + std::to_string(next_++);
    lhs = n == 1 ? base : base + ":" + std::to_string(n);
    Names r;
    for (size_t k = 0; k < n; ++k) r.push_back(n == 1 ? base : base + "#" + std::to_string(k));
    return r;
  }

  // `"name"(in) ({regions}) {attrs} : (in types) -> (out types)`
  Names generic(const std::string& name, const Names& in, const std::vector<TensorType>& in_types,
                const std::vector<TensorType>& out_types, const std::string& attrs,
                std::ostringstream& o, const std::string& ind, const std::string& regions = {}) {
    std::string lhs;
    Names r = results(out_types.size(), lhs);
    o << ind << lhs << " = \"stablehlo." << name << "\"(";
    for (size_t k = 0; k < in.size(); ++k) o << (k ? ", " : "") << in[k];
    o << ") " << regions << (attrs.empty() ? "" : "{" + attrs + "} ") << ": (";
    for (size_t k = 0; k < in_types.size(); ++k) o << (k ? ", " : "") << type(in_types[k]);
    o << ") -> (";
    for (size_t k = 0; k < out_types.size(); ++k) o << (k ? ", " : "") << type(out_types[k]);
    o << ")\n";
    return r;
  }

  Names constant(const Literal& l, std::ostringstream& o, const std::string& ind) {
    std::string lhs;
    Names r = results(1, lhs);
    if (form_ == Form::pretty)
      o << ind << lhs << " = stablehlo.constant " << dense(l) << "\n";
    else
      o << ind << lhs << " = \"stablehlo.constant\"() {value = " << dense(l) << "} : () -> "
        << type(l.type) << "\n";
    return r;
  }

  // A region `({ ^bb0(args): body of f; return })` whose block arguments are f's parameters
  // (with_args), or whose parameters are the enclosing values `outer`.
  std::string region(const Function& f, bool with_args, const Names& outer, const std::string& ind,
                     bool last = true) {
    std::ostringstream o;
    o << "{\n";
    Names params = outer;
    if (with_args) {
      params.clear();
      o << ind << "^bb0(";
      for (int i = 0; i < f.num_params(); ++i) {
        params.push_back("%" + std::to_string(next_++));
        o << (i ? ", " : "") << params.back() << ": " << type(f.param_type(i));
      }
      o << "):\n";
    }
    Names res = body(f, params, o, ind + "  ");
    ret(o, ind + "  ", "stablehlo.return", res, f.result_types());
    o << ind << "}" << (last ? "" : ", ");
    return o.str();
  }

  Names op(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
           std::ostringstream& o, const std::string& ind);
  Names reduce(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
               std::ostringstream& o, const std::string& ind);
  Names control(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                std::ostringstream& o, const std::string& ind);
  Names gather(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
               std::ostringstream& o, const std::string& ind);
  Names scatter(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                std::ostringstream& o, const std::string& ind);
  Names start_bounds(const TensorType& idx, const TensorType& operand, const IntList& index_map,
                     const IntList& window, std::ostringstream& o, const std::string& ind,
                     Names& lo);
  std::string binary_body(const char* combine, DType t, const std::string& ind);
  Names argminmax(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                  std::ostringstream& o, const std::string& ind);

  Form form_;
  int next_ = 0;
  std::vector<std::string> privates_;
  std::unordered_map<const Function*, std::string> callee_names_;
};

// The scalar a reduce starts from: the identity of its combiner, as the bits of the dtype.
std::string init_value(OpCode op, DType t);

}  // namespace lazax::stablehlo::detail
