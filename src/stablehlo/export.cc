// The exporter: each lazax node becomes one StableHLO op (a reduce with its body, a cond a case
// or if, a while with its regions, a call a func.call of a private function); the row for each
// OpCode is in Exporter::op below, and those without a counterpart are named in why_not_exported.
#include "export_writer.h"

namespace lazax::stablehlo {
namespace detail {
namespace {

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

}  // namespace

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

}  // namespace detail

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

std::string export_stablehlo(const Function& f, Form form) {
  return detail::Exporter(form).module(f);
}

}  // namespace lazax::stablehlo