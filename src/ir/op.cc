#include "lazax/ir/op.h"

#include <array>
#include <string>

#include "lazax/core/error.h"
#include "lazax/ir/shape_rules.h"

namespace lazax {
namespace {

constexpr std::string_view text_name(std::string_view ident) {
  return ident.ends_with('_') ? ident.substr(0, ident.size() - 1) : ident;
}

template <class T, class V, size_t I = 0>
constexpr size_t variant_index() {
  if constexpr (std::is_same_v<T, std::variant_alternative_t<I, V>>) {
    return I;
  } else {
    return variant_index<T, V, I + 1>();
  }
}

const std::array<OpInfo, kNumOps> kTable = {{
#define LAZAX_OP_ROW(name, attrs, arity, flags, rule) \
  {text_name(#name), arity, flags, &shape_rules::rule, variant_index<attrs, Attrs>()},
    LAZAX_OPS(LAZAX_OP_ROW)
#undef LAZAX_OP_ROW
}};

// By attribute struct (index in the Attrs variant): whether it is an op's flagged kHasBodies.
constexpr auto kAttrsHaveBodies = [] {
  std::array<bool, std::variant_size_v<Attrs>> t{};
#define LAZAX_OP_BODIES(name, attrs, arity, flags, rule) \
  if ((flags)&kHasBodies) t[variant_index<attrs, Attrs>()] = true;
  LAZAX_OPS(LAZAX_OP_BODIES)
#undef LAZAX_OP_BODIES
  return t;
}();

template <size_t... I>
Attrs make_attrs(size_t index, std::index_sequence<I...>) {
  Attrs out;
  ((index == I ? (out = std::variant_alternative_t<I, Attrs>{}, 0) : 0), ...);
  return out;
}

}  // namespace

const OpInfo& op_info(OpCode op) { return kTable[static_cast<size_t>(op)]; }

std::optional<OpCode> op_from_name(std::string_view name) {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (kTable[i].name == name && !(kTable[i].flags & kInternal)) return static_cast<OpCode>(i);
  }
  return std::nullopt;
}

bool has_bodies(const Attrs& a) { return kAttrsHaveBodies[a.index()]; }

Attrs default_attrs(OpCode op) {
  return make_attrs(op_info(op).attrs_index,
                    std::make_index_sequence<std::variant_size_v<Attrs>>{});
}

std::vector<TensorType> infer_types(OpCode op, std::span<const TensorType> in, const Attrs& attrs) {
  std::vector<TensorType> out;
  infer_types(op, in, attrs, out);
  return out;
}

void infer_types(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                 std::vector<TensorType>& out) {
  const OpInfo& info = op_info(op);
  if (info.arity >= 0 && static_cast<int>(in.size()) != info.arity) {
    throw ValueError("[" + std::string(info.name) + "] takes " + std::to_string(info.arity) +
                     " operands, got " + std::to_string(in.size()));
  }
  if (attrs.index() != info.attrs_index) {
    throw ValueError("[" + std::string(info.name) + "] was given the attributes of another op");
  }
  out.clear();
  info.shape_rule(op, in, attrs, out);
}

}  // namespace lazax
