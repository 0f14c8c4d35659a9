// The exporter: each lazax node becomes one StableHLO op (a reduce with its body, a cond a case
// or if, a while with its regions, a call a func.call of a private function); the row for each
// OpCode is in op_row below, and those without a counterpart are named in why_not_exported.
#include "lazax/stablehlo/export.h"

#include <cstring>
#include <limits>
#include <sstream>
#include <unordered_map>

namespace lazax::stablehlo {
namespace {

using Names = std::vector<std::string>;

std::string elem(DType t) {
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

std::string type(const TensorType& t) {
  std::string s = "tensor<";
  for (int64_t d : t.shape.dims()) s += std::to_string(d) + "x";
  return s + elem(t.dtype) + ">";
}

std::string ints(const IntList& v) {
  std::string s = "array<i64";
  for (size_t k = 0; k < v.size(); ++k) s += (k == 0 ? ": " : ", ") + std::to_string(v[k]);
  return s + ">";
}

std::string list(const IntList& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k == 0 ? "" : ", ") + std::to_string(v[k]);
  return s + "]";
}

// Exact: the little-endian bytes of every element (booleans as a list, MLIR's i1 hex differs).
std::string dense(const Literal& l) {
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

const char* direction(CompareDir d) {
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

// Elementwise rows: the StableHLO name, or nullptr.
const char* elementwise_name(OpCode op) {
  switch (op) {
    case OpCode::add:
      return "add";
    case OpCode::sub:
      return "subtract";
    case OpCode::mul:
      return "multiply";
    case OpCode::div:
      return "divide";
    case OpCode::max:
      return "maximum";
    case OpCode::min:
      return "minimum";
    case OpCode::neg:
      return "negate";
    case OpCode::abs:
      return "abs";
    case OpCode::sign:
      return "sign";
    case OpCode::exp:
      return "exponential";
    case OpCode::log:
      return "log";
    case OpCode::log1p:
      return "log_plus_one";
    case OpCode::expm1:
      return "exponential_minus_one";
    case OpCode::tanh:
      return "tanh";
    case OpCode::logistic:
      return "logistic";
    case OpCode::sqrt:
      return "sqrt";
    case OpCode::rsqrt:
      return "rsqrt";
    case OpCode::pow:
      return "power";
    case OpCode::atan2:
      return "atan2";
    case OpCode::sin:
      return "sine";
    case OpCode::cos:
      return "cosine";
    case OpCode::tan:
      return "tan";
    case OpCode::floor:
      return "floor";
    case OpCode::ceil:
      return "ceil";
    case OpCode::round:
      return "round_nearest_afz";
    case OpCode::rem:
      return "remainder";
    case OpCode::is_finite:
      return "is_finite";
    case OpCode::clamp:
      return "clamp";
    case OpCode::and_:
      return "and";
    case OpCode::or_:
      return "or";
    case OpCode::xor_:
      return "xor";
    case OpCode::not_:
      return "not";
    case OpCode::shift_left:
      return "shift_left";
    case OpCode::shift_right_logical:
      return "shift_right_logical";
    case OpCode::shift_right_arithmetic:
      return "shift_right_arithmetic";
    case OpCode::select:
      return "select";
    case OpCode::convert:
      return "convert";
    default:
      return nullptr;
  }
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
std::string init_value(OpCode op, DType t) {
  bool fl = t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
  Literal l = Literal::zeros(TensorType{t, Shape()});
  auto* p = static_cast<uint8_t*>(l.buffer.data());
  auto set = [&](uint64_t bits) { std::memcpy(p, &bits, dtype_size(t)); };
  auto inf = [&](bool neg) {
    if (t == DType::f32) set(neg ? 0xFF800000u : 0x7F800000u);
    if (t == DType::f64) set(neg ? 0xFFF0000000000000u : 0x7FF0000000000000u);
    if (t == DType::f16) set(neg ? 0xFC00u : 0x7C00u);
    if (t == DType::bf16) set(neg ? 0xFF80u : 0x7F80u);
  };
  auto one = [&] {
    if (t == DType::f32) set(0x3F800000u);
    if (t == DType::f64) set(0x3FF0000000000000u);
    if (t == DType::f16) set(0x3C00u);
    if (t == DType::bf16) set(0x3F80u);
    if (!fl) set(1);
  };
  bool is_signed = t == DType::i8 || t == DType::i32 || t == DType::i64;
  size_t bits = 8 * dtype_size(t);
  uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  switch (op) {
    case OpCode::reduce_max:
      if (fl)
        inf(true);
      else if (is_signed)
        set(uint64_t{1} << (bits - 1));  // the most negative
      break;
    case OpCode::reduce_min:
      if (fl)
        inf(false);
      else
        set(is_signed ? all >> 1 : all);
      break;
    case OpCode::reduce_prod:
    case OpCode::reduce_and:
      one();
      break;
    default:
      break;  // sum, or: zero
  }
  return dense(l);
}

Names Exporter::reduce(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                       std::ostringstream& o, const std::string& ind) {
  const char* combine = node.op == OpCode::reduce_sum    ? "add"
                        : node.op == OpCode::reduce_max  ? "maximum"
                        : node.op == OpCode::reduce_min  ? "minimum"
                        : node.op == OpCode::reduce_prod ? "multiply"
                        : node.op == OpCode::reduce_and  ? "and"
                                                         : "or";
  TensorType scalar{in_types[0].dtype, Shape()};
  std::string lhs;
  Names init = results(1, lhs);
  o << ind << lhs << " = \"stablehlo.constant\"() {value = " << init_value(node.op, scalar.dtype)
    << "} : () -> " << type(scalar) << "\n";
  return generic("reduce", {in[0], init[0]}, {in_types[0], scalar}, node.outputs,
                 "dimensions = " + ints(node.attr<ReduceAttrs>().axes), o, ind,
                 binary_body(combine, scalar.dtype, ind));
}

// `({ ^bb0(%a: t, %b: t): %r = "stablehlo.COMBINE"(%a, %b); return %r }) `, t a scalar of `t`:
// the body of a reduce or a scatter.
std::string Exporter::binary_body(const char* combine, DType t, const std::string& ind) {
  std::string a = "%" + std::to_string(next_++), b = "%" + std::to_string(next_++),
              r = "%" + std::to_string(next_++), st = type(TensorType{t, Shape()});
  return "({\n" + ind + "^bb0(" + a + ": " + st + ", " + b + ": " + st + "):\n" + ind + "  " + r +
         " = \"stablehlo." + combine + "\"(" + a + ", " + b + ") : (" + st + ", " + st + ") -> " +
         st + "\n" + ind + "  \"stablehlo.return\"(" + r + ") : (" + st + ") -> ()\n" + ind + "}) ";
}

// argmax/argmin as JAX lowers them: a reduce of (x, its iota along the axis) from (-inf or
// +inf, 0) whose body keeps the accumulator when it is beyond the element or NaN, and its index
// also on a tie with a lower index: the first extreme, the first NaN (import_reduce.cc reads
// it back).
Names Exporter::argminmax(const Node& node, const Names& in,
                          const std::vector<TensorType>& in_types, std::ostringstream& o,
                          const std::string& ind) {
  const auto& a = node.attr<ArgmaxAttrs>();
  bool is_min = node.op == OpCode::argmin;
  const TensorType& x = in_types[0];
  TensorType idx{a.index_dtype, x.shape}, sv{x.dtype, Shape()}, si{a.index_dtype, Shape()};
  TensorType pred{DType::boolean, Shape()}, values{x.dtype, node.outputs[0].shape};
  Names iota = generic("iota", {}, {}, {idx},
                       "iota_dimension = " + std::to_string(a.axis) + " : i64", o, ind);
  std::string lhs;
  Names init = results(1, lhs);
  o << ind << lhs << " = \"stablehlo.constant\"() {value = "
    << init_value(is_min ? OpCode::reduce_min : OpCode::reduce_max, x.dtype) << "} : () -> "
    << type(sv) << "\n";
  Names zero = constant(Literal::zeros(si), o, ind);
  std::ostringstream body;
  auto name = [&] { return "%" + std::to_string(next_++); };
  std::string va = name(), ia = name(), vb = name(), ib = name();
  body << "({\n"
       << ind << "^bb0(" << va << ": " << type(sv) << ", " << ia << ": " << type(si) << ", " << vb
       << ": " << type(sv) << ", " << ib << ": " << type(si) << "):\n";
  auto line = [&](const std::string& op, const Names& args, const std::vector<TensorType>& ts,
                  const TensorType& out, const std::string& attrs = {}) {
    std::string r = name();
    body << ind << "  " << r << " = \"stablehlo." << op << "\"(";
    for (size_t k = 0; k < args.size(); ++k) body << (k ? ", " : "") << args[k];
    body << ") " << (attrs.empty() ? "" : "{" + attrs + "} ") << ": (";
    for (size_t k = 0; k < ts.size(); ++k) body << (k ? ", " : "") << type(ts[k]);
    body << ") -> " << type(out) << "\n";
    return r;
  };
  auto cmp = [&](const std::string& l, const std::string& r, const char* dir, const TensorType& t) {
    return line("compare", {l, r}, {t, t}, pred,
                std::string("comparison_direction = #stablehlo<comparison_direction ") + dir + ">");
  };
  std::string beyond = cmp(va, vb, is_min ? "LT" : "GT", sv), nan = cmp(va, va, "NE", sv);
  std::string keep = line("or", {beyond, nan}, {pred, pred}, pred);
  std::string tie = line("and", {cmp(va, vb, "EQ", sv), cmp(ia, ib, "LT", si)}, {pred, pred}, pred);
  std::string keep_index = line("or", {keep, tie}, {pred, pred}, pred);
  std::string v = line("select", {keep, va, vb}, {pred, sv, sv}, sv);
  std::string i = line("select", {keep_index, ia, ib}, {pred, si, si}, si);
  body << ind << "  \"stablehlo.return\"(" << v << ", " << i << ") : (" << type(sv) << ", "
       << type(si) << ") -> ()\n"
       << ind << "}) ";
  Names r =
      generic("reduce", {in[0], iota[0], init[0], zero[0]}, {x, idx, sv, si},
              {values, node.outputs[0]}, "dimensions = " + ints({a.axis}), o, ind, body.str());
  return {r[1]};
}

// The bounds of the start indices `idx` (index vector last) whose windows fit in `operand`:
// lo (zeros) and the returned hi (dim - window for each operand dim of index_map), both
// broadcast to idx's shape.
Names Exporter::start_bounds(const TensorType& idx, const TensorType& operand,
                             const IntList& index_map, const IntList& window, std::ostringstream& o,
                             const std::string& ind, Names& lo) {
  auto k = static_cast<int64_t>(index_map.size());
  TensorType vec{idx.dtype, Shape({k})};
  Literal hi = Literal::zeros(vec);
  for (int64_t j = 0; j < k; ++j) {
    auto d = static_cast<size_t>(index_map[static_cast<size_t>(j)]);
    Literal v = Literal::scalar_of(idx.dtype, static_cast<double>(operand.shape[d] - window[d]));
    std::memcpy(static_cast<uint8_t*>(hi.buffer.data()) + j * dtype_size(idx.dtype),
                v.buffer.data(), dtype_size(idx.dtype));
  }
  IntList last = {static_cast<int64_t>(idx.shape.dims().size()) - 1};
  std::string dims = "broadcast_dimensions = " + ints(last);
  lo = generic("broadcast_in_dim", constant(Literal::zeros(vec), o, ind), {vec}, {idx}, dims, o,
               ind);
  return generic("broadcast_in_dim", constant(hi, o, ind), {vec}, {idx}, dims, o, ind);
}

// StableHLO's gather clamps each start index so that its window fits: lazax's clip mode as it
// is. fill mode adds the mask JAX writes: a window that does not fit reads the fill value
// (NaN for floats, the lowest signed, the highest unsigned, true), as the interpreter's.
Names Exporter::gather(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                       std::ostringstream& o, const std::string& ind) {
  const auto& a = node.attr<GatherAttrs>();
  const TensorType &operand = in_types[0], &idx = in_types[1], &out = node.outputs[0];
  auto rank = static_cast<int64_t>(idx.shape.dims().size());
  Names g = generic("gather", in, in_types, node.outputs,
                    "dimension_numbers = #stablehlo.gather<offset_dims = " + list(a.offset_dims) +
                        ", collapsed_slice_dims = " + list(a.collapsed_slice_dims) +
                        ", start_index_map = " + list(a.start_index_map) +
                        ", index_vector_dim = " + std::to_string(rank - 1) +
                        ">, indices_are_sorted = false, slice_sizes = " + ints(a.slice_sizes),
                    o, ind);
  if (a.mode == GatherMode::clip || a.start_index_map.empty()) return g;
  Names lo;
  Names hi = start_bounds(idx, operand, a.start_index_map, a.slice_sizes, o, ind, lo);
  TensorType pred{DType::boolean, idx.shape};
  auto cmp = [&](const Names& x, const char* dir) {
    return generic(
        "compare", x, {idx, idx}, {pred},
        std::string("comparison_direction = #stablehlo<comparison_direction ") + dir + ">", o, ind);
  };
  Names fits = generic("and", {cmp({in[1], lo[0]}, "GE")[0], cmp({in[1], hi[0]}, "LE")[0]},
                       {pred, pred}, {pred}, "", o, ind);
  // All of a window's start indices fit: an and-reduce over the index vector.
  std::vector<int64_t> batch_dims(idx.shape.dims().begin(), idx.shape.dims().end() - 1);
  TensorType batch{DType::boolean, Shape(batch_dims)};
  Literal yes = Literal::scalar_of(DType::boolean, 1);
  Names all =
      generic("reduce", {fits[0], constant(yes, o, ind)[0]}, {pred, yes.type}, {batch},
              "dimensions = " + ints({rank - 1}), o, ind, binary_body("and", DType::boolean, ind));
  IntList out_batch;
  for (int64_t d = 0; d < static_cast<int64_t>(out.shape.dims().size()); ++d) {
    bool offset = false;
    for (int64_t x : a.offset_dims) offset = offset || x == d;
    if (!offset) out_batch.push_back(d);
  }
  TensorType mask{DType::boolean, out.shape};
  Names m = generic("broadcast_in_dim", all, {batch}, {mask},
                    "broadcast_dimensions = " + ints(out_batch), o, ind);
  bool fl = is_floating(out.dtype);
  bool is_signed = out.dtype == DType::i8 || out.dtype == DType::i32 || out.dtype == DType::i64;
  Literal fill = Literal::scalar_of(out.dtype, 0);
  auto* p = static_cast<uint8_t*>(fill.buffer.data());
  size_t bytes = dtype_size(out.dtype);
  if (fl) {
    fill = Literal::scalar_of(out.dtype, std::numeric_limits<double>::quiet_NaN());
  } else if (out.dtype == DType::boolean) {
    p[0] = 1;
  } else if (is_signed) {  // the lowest: the sign bit alone (little-endian)
    p[bytes - 1] = 0x80;
  } else {  // the highest unsigned
    std::memset(p, 0xFF, bytes);
  }
  Names f = generic("broadcast_in_dim", constant(fill, o, ind), {fill.type}, {out},
                    "broadcast_dimensions = " + ints({}), o, ind);
  return generic("select", {m[0], g[0], f[0]}, {mask, out, out}, {out}, "", o, ind);
}

// scatter with an add body. XLA drops an update window that does not fit (lazax's fill mode as
// it is); clip mode clamps the start indices first.
Names Exporter::scatter(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                        std::ostringstream& o, const std::string& ind) {
  const auto& a = node.attr<ScatterAttrs>();
  const TensorType &operand = in_types[0], &idx = in_types[1], &upd = in_types[2];
  Names args = in;
  if (a.mode == GatherMode::clip && !a.scatter_dims_to_operand_dims.empty()) {
    IntList window;  // the window's size along each operand dim
    size_t next = 0;
    for (size_t d = 0; d < operand.shape.dims().size(); ++d) {
      bool inserted = false;
      for (int64_t x : a.inserted_window_dims) inserted = inserted || x == static_cast<int64_t>(d);
      window.push_back(inserted ? 1 : upd.shape[static_cast<size_t>(a.update_window_dims[next++])]);
    }
    Names lo;
    Names hi = start_bounds(idx, operand, a.scatter_dims_to_operand_dims, window, o, ind, lo);
    args[1] = generic("clamp", {lo[0], in[1], hi[0]}, {idx, idx, idx}, {idx}, "", o, ind)[0];
  }
  auto rank = static_cast<int64_t>(idx.shape.dims().size());
  return generic(
      "scatter", args, in_types, node.outputs,
      "indices_are_sorted = false, scatter_dimension_numbers = "
      "#stablehlo.scatter<update_window_dims = " +
          list(a.update_window_dims) + ", inserted_window_dims = " + list(a.inserted_window_dims) +
          ", scatter_dims_to_operand_dims = " + list(a.scatter_dims_to_operand_dims) +
          ", index_vector_dim = " + std::to_string(rank - 1) + ">, unique_indices = false",
      o, ind, binary_body("add", operand.dtype, ind));  // on i1 an or, as lazax's
}

// call: a private function; cond: a case over clamped indices (or an if on a bool); while_: a
// while whose regions take the carry as block arguments.
Names Exporter::control(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                        std::ostringstream& o, const std::string& ind) {
  if (node.op == OpCode::call) {
    const FunctionPtr& callee = node.attr<CallAttrs>().callee;
    auto it = callee_names_.find(callee.get());
    if (it == callee_names_.end()) {
      std::string name = callee->name() + "_" + std::to_string(callee_names_.size());
      it = callee_names_.emplace(callee.get(), name).first;
      privates_.push_back(func(*callee, name, false));
    }
    std::string lhs;
    Names r = results(node.outputs.size(), lhs);
    o << ind << lhs << " = \"func.call\"(";
    for (size_t k = 0; k < in.size(); ++k) o << (k ? ", " : "") << in[k];
    o << ") {callee = @" << it->second << "} : (";
    for (size_t k = 0; k < in_types.size(); ++k) o << (k ? ", " : "") << type(in_types[k]);
    o << ") -> (";
    for (size_t k = 0; k < node.outputs.size(); ++k) o << (k ? ", " : "") << type(node.outputs[k]);
    o << ")\n";
    return r;
  }
  if (node.op == OpCode::while_) {
    const auto& w = node.attr<WhileAttrs>();
    std::string regions =
        "(" + region(*w.cond, true, {}, ind, false) + region(*w.body, true, {}, ind) + ") ";
    return generic("while", in, in_types, node.outputs, "", o, ind, regions);
  }
  const auto& branches = node.attr<CondAttrs>().branches;
  Names outer(in.begin() + 1, in.end());
  Names index{in[0]};
  std::vector<TensorType> index_type{in_types[0]};
  std::string regions = "(";
  if (in_types[0].dtype == DType::boolean) {
    if (branches.size() != 2)
      throw Error("[stablehlo export] cond on a bool with " + std::to_string(branches.size()) +
                  " branches");
    regions += region(*branches[1], false, outer, ind, false) +
               region(*branches[0], false, outer, ind) + ") ";
    return generic("if", index, index_type, node.outputs, "", o, ind, regions);
  }
  // lazax clamps the index; StableHLO runs the last branch for a negative one: clamp first.
  Literal lo = Literal::zeros(in_types[0]), hi = Literal::zeros(in_types[0]);
  int64_t last = static_cast<int64_t>(branches.size()) - 1;
  std::memcpy(hi.buffer.data(), &last, dtype_size(in_types[0].dtype));  // little-endian
  Names l = constant(lo, o, ind), h = constant(hi, o, ind);
  index = generic("clamp", {l[0], in[0], h[0]}, {in_types[0], in_types[0], in_types[0]},
                  {in_types[0]}, "", o, ind);
  for (size_t k = 0; k < branches.size(); ++k)
    regions += region(*branches[k], false, outer, ind, k + 1 == branches.size());
  return generic("case", index, index_type, node.outputs, "", o, ind, regions + ") ");
}

Names Exporter::op(const Node& node, const Names& in, const std::vector<TensorType>& in_types,
                   std::ostringstream& o, const std::string& ind) {
  std::string why = why_not_exported(node.op);
  if (!why.empty()) throw Error(why);
  if (const char* name = elementwise_name(node.op)) {
    bool same = true;
    for (const TensorType& t : in_types) same = same && t == node.outputs[0];
    if (form_ == Form::pretty && same) {
      std::string lhs;
      Names r = results(1, lhs);
      o << ind << lhs << " = stablehlo." << name << " ";
      for (size_t k = 0; k < in.size(); ++k) o << (k ? ", " : "") << in[k];
      o << " : " << type(node.outputs[0]) << "\n";
      return r;
    }
    return generic(name, in, in_types, node.outputs, "", o, ind);
  }
  switch (node.op) {
    case OpCode::constant:
      return constant(node.attr<ConstantAttrs>().value, o, ind);
    case OpCode::checkpoint_name:
    case OpCode::copy_to_memory_kind:
      return in;  // no effect on values
    case OpCode::compare:
      return generic("compare", in, in_types, node.outputs,
                     std::string("comparison_direction = #stablehlo<comparison_direction ") +
                         direction(node.attr<CompareAttrs>().dir) + ">",
                     o, ind);
    case OpCode::iota:
      return generic(
          "iota", in, in_types, node.outputs,
          "iota_dimension = " + std::to_string(node.attr<IotaAttrs>().dimension) + " : i64", o,
          ind);
    case OpCode::broadcast_in_dim:
      return generic(
          "broadcast_in_dim", in, in_types, node.outputs,
          "broadcast_dimensions = " + ints(node.attr<BroadcastInDimAttrs>().broadcast_dimensions),
          o, ind);
    case OpCode::reshape:
      return generic("reshape", in, in_types, node.outputs, "", o, ind);
    case OpCode::transpose:
      return generic("transpose", in, in_types, node.outputs,
                     "permutation = " + ints(node.attr<TransposeAttrs>().permutation), o, ind);
    case OpCode::slice: {
      const auto& a = node.attr<SliceAttrs>();
      return generic("slice", in, in_types, node.outputs,
                     "start_indices = " + ints(a.start_indices) + ", limit_indices = " +
                         ints(a.limit_indices) + ", strides = " + ints(a.strides),
                     o, ind);
    }
    case OpCode::dynamic_slice:
      return generic("dynamic_slice", in, in_types, node.outputs,
                     "slice_sizes = " + ints(node.attr<DynamicSliceAttrs>().slice_sizes), o, ind);
    case OpCode::dynamic_update_slice:
      return generic("dynamic_update_slice", in, in_types, node.outputs, "", o, ind);
    case OpCode::concatenate:
      return generic(
          "concatenate", in, in_types, node.outputs,
          "dimension = " + std::to_string(node.attr<ConcatenateAttrs>().dimension) + " : i64", o,
          ind);
    case OpCode::pad: {
      const auto& a = node.attr<PadAttrs>();
      return generic("pad", in, in_types, node.outputs,
                     "edge_padding_low = " + ints(a.edge_padding_low) +
                         ", edge_padding_high = " + ints(a.edge_padding_high) +
                         ", interior_padding = " + ints(a.interior_padding),
                     o, ind);
    }
    case OpCode::rev:
      return generic("reverse", in, in_types, node.outputs,
                     "dimensions = " + ints(node.attr<RevAttrs>().dimensions), o, ind);
    case OpCode::dot_general: {
      const auto& a = node.attr<DotGeneralAttrs>();
      return generic("dot_general", in, in_types, node.outputs,
                     "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = " +
                         list(a.lhs_batch) + ", rhs_batching_dimensions = " + list(a.rhs_batch) +
                         ", lhs_contracting_dimensions = " + list(a.lhs_contracting) +
                         ", rhs_contracting_dimensions = " + list(a.rhs_contracting) + ">",
                     o, ind);
    }
    case OpCode::optimization_barrier:
      return generic("optimization_barrier", in, in_types, node.outputs, "", o, ind);
    case OpCode::reduce_sum:
    case OpCode::reduce_max:
    case OpCode::reduce_min:
    case OpCode::reduce_prod:
    case OpCode::reduce_and:
    case OpCode::reduce_or:
      return reduce(node, in, in_types, o, ind);
    case OpCode::argmax:
    case OpCode::argmin:
      return argminmax(node, in, in_types, o, ind);
    case OpCode::call:
    case OpCode::cond:
    case OpCode::while_:
      return control(node, in, in_types, o, ind);
    case OpCode::gather:
      return gather(node, in, in_types, o, ind);
    case OpCode::scatter_add:
      return scatter(node, in, in_types, o, ind);
    default:
      break;
  }
  throw Error("[stablehlo export] " + std::string(op_name(node.op)) + ": no export row");
}

}  // namespace

std::string why_not_exported(OpCode op) {
  std::string name(op_name(op));
  auto no = [&](const std::string& what) {
    return "[stablehlo export] " + name + " has no StableHLO counterpart: " + what;
  };
  switch (op) {
    case OpCode::parameter:
      return {};
    case OpCode::relu:
    case OpCode::erf:
    case OpCode::erf_inv:
    case OpCode::exp2:
      return no("write it with maximum, or as JAX lowers it (chlo ops are not StableHLO)");
    case OpCode::sort:
    case OpCode::cumsum:
    case OpCode::cumprod:
    case OpCode::cummax:
    case OpCode::cummin:
      return no(
          "its StableHLO form needs a multi-operand reduce, reduce_window or sort with a "
          "comparator body, which the exporter does not write yet");
    case OpCode::random_bits:
      return no("lazax's counter-based bits differ from rng_bit_generator's algorithms");
    case OpCode::scan:
      return no("rewrite it as a while loop before exporting");
    case OpCode::all_reduce:
    case OpCode::all_gather:
    case OpCode::reduce_scatter:
    case OpCode::all_to_all:
    case OpCode::collective_broadcast:
    case OpCode::axis_index:
      return no("collectives need replica groups, which a lazax program does not carry");
    default:
      return {};
  }
}

std::string export_stablehlo(const Function& f, Form form) { return Exporter(form).module(f); }

}  // namespace lazax::stablehlo
