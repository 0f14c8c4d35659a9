// The exporter's rows that write a body or a mask: the reductions (a generic reduce whose body
// is the combiner), argmax/argmin (the two-operand reduce JAX writes), gather (with the fill
// mask) and scatter (an add body).
#include <limits>

#include "export_writer.h"

namespace lazax::stablehlo::detail {

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

}  // namespace lazax::stablehlo::detail
