// Interpreter kernels of the collectives (all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_broadcast, axis_index) and run_collective (lazax/interp/collective.h).
#include "lazax/interp/collective.h"

#include <cstring>
#include <string>
#include <vector>

#include "kernels.h"
#include "lazax/core/error.h"
#include "lazax/dist/collectives.h"

namespace lazax::interp {
namespace {

// A tensor split along `axis` into `parts` equal blocks, as [outer][parts][block_bytes].
struct Split {
  int64_t outer = 1, parts = 1, block_bytes = 0;
};
Split split_of(const TensorType& t, int64_t axis, int64_t parts) {
  Split s;
  s.parts = parts;
  int64_t inner = 1;
  for (size_t i = 0; i < t.shape.rank(); ++i) {
    if (static_cast<int64_t>(i) < axis) s.outer *= t.shape[i];
    if (static_cast<int64_t>(i) > axis) inner *= t.shape[i];
  }
  const int64_t along = t.shape.rank() == 0 ? 1 : t.shape[static_cast<size_t>(axis)];
  s.block_bytes = along / parts * inner * static_cast<int64_t>(dtype_size(t.dtype));
  return s;
}

// [outer][parts][block] -> [parts][outer][block] (pack) or back (unpack).
void transpose_blocks(const Split& s, const uint8_t* src, uint8_t* dst, bool pack) {
  const auto blk = static_cast<size_t>(s.block_bytes);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t p = 0; p < s.parts; ++p) {
      const int64_t a = (o * s.parts + p), b = (p * s.outer + o);
      const int64_t from = pack ? a : b, to = pack ? b : a;
      std::memcpy(dst + static_cast<size_t>(to) * blk, src + static_cast<size_t>(from) * blk, blk);
    }
  }
}

bool is_half(DType t) { return t == DType::f16 || t == DType::bf16; }

// f16/bf16 values as f32 (the collectives reduce halves in f32, as the interpreter computes).
std::vector<float> widen(const Literal& x) {
  std::vector<float> v(static_cast<size_t>(x.type.numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = x.dtype() == DType::f16 ? static_cast<float>(x.buffer.as<f16>()[i])
                                   : static_cast<float>(x.buffer.as<bf16>()[i]);
  }
  return v;
}
void narrow(const std::vector<float>& v, Literal& out) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (out.dtype() == DType::f16) {
      out.buffer.as<f16>()[i] = f16(v[i]);
    } else {
      out.buffer.as<bf16>()[i] = bf16(v[i]);
    }
  }
}

int64_t group_of(const Node& node) {
  return std::visit(
      [](const auto& a) -> int64_t {
        if constexpr (requires { a.group_size; }) {
          return a.group_size;
        } else {
          return 1;
        }
      },
      node.attrs);
}

// The call as integers for dist::check_agreement: op, dtype, group, three attributes, rank,
// dims.
std::vector<int64_t> signature(const Node& node, const TensorType& t) {
  std::vector<int64_t> w = {
      static_cast<int64_t>(node.op), static_cast<int64_t>(t.dtype), group_of(node), 0, 0, 0};
  if (const auto* a = std::get_if<AllReduceAttrs>(&node.attrs)) {
    w[3] = static_cast<int64_t>(a->reduce);
  } else if (const auto* g = std::get_if<AllGatherAttrs>(&node.attrs)) {
    w[3] = g->axis;
  } else if (const auto* r = std::get_if<ReduceScatterAttrs>(&node.attrs)) {
    w[3] = static_cast<int64_t>(r->reduce);
    w[4] = r->axis;
  } else if (const auto* x = std::get_if<AllToAllAttrs>(&node.attrs)) {
    w[3] = x->split_axis;
    w[4] = x->concat_axis;
  } else if (const auto* b = std::get_if<CollectiveBroadcastAttrs>(&node.attrs)) {
    w[3] = b->root;
  }
  w.push_back(static_cast<int64_t>(t.shape.rank()));
  for (size_t i = 0; i < t.shape.rank() && w.size() < dist::kSignatureWords; ++i)
    w.push_back(t.shape[i]);
  return w;
}

std::string describe(std::span<const int64_t> w) {
  if (w.size() < 7 || w[0] < 0 || w[0] >= kNumOps || w[1] < 0 || w[1] >= kNumDTypes)
    return "an unknown collective";
  const auto op = static_cast<OpCode>(w[0]);
  std::string s(op_name(op));
  s += " of ";
  s += dtype_name(static_cast<DType>(w[1]));
  s += "[";
  for (size_t i = 7; i < w.size(); ++i) s += (i > 7 ? "," : "") + std::to_string(w[i]);
  s += "]";
  if (op == OpCode::all_reduce || op == OpCode::reduce_scatter)
    s += std::string(" ") + std::string(reduce_kind_name(static_cast<ReduceKind>(w[3])));
  if (op == OpCode::all_gather) s += " axis=" + std::to_string(w[3]);
  if (op == OpCode::reduce_scatter) s += " axis=" + std::to_string(w[4]);
  if (op == OpCode::all_to_all)
    s += " split_axis=" + std::to_string(w[3]) + " concat_axis=" + std::to_string(w[4]);
  if (op == OpCode::collective_broadcast) s += " root=" + std::to_string(w[3]);
  s += " over groups of " + std::to_string(w[2]);
  return s;
}

void reduce_into(const Literal& in, Literal& out, int64_t count, ReduceKind k, int64_t g,
                 bool scatter) {
  if (is_half(in.dtype())) {
    std::vector<float> x = widen(in);
    std::vector<float> y(static_cast<size_t>(out.type.numel()));
    if (scatter) {
      dist::reduce_scatter(x.data(), y.data(), count, DType::f32, k, g);
    } else {
      dist::all_reduce(x.data(), y.data(), count, DType::f32, k, g);
    }
    narrow(y, out);
    return;
  }
  if (scatter) {
    dist::reduce_scatter(in.buffer.data(), out.buffer.data(), count, in.dtype(), k, g);
  } else {
    dist::all_reduce(in.buffer.data(), out.buffer.data(), count, in.dtype(), k, g);
  }
}

// The checks before any collective moves data: the group divides the world, and every rank of
// it runs this node on this type. Returns the group's size.
int64_t check_call(const Node& node, const TensorType& in) {
  const int64_t g = group_of(node);
  dist::check_group(op_name(node.op), g);
  dist::check_agreement(g, signature(node, in), describe);
  return g;
}

}  // namespace

dist::Request start_collective(const Node& node, const Literal& in, Literal& out) {
  const bool reduces = node.op == OpCode::all_reduce || node.op == OpCode::reduce_scatter;
  if (!reduces || is_half(in.dtype()) ||
      (node.op == OpCode::reduce_scatter &&
       split_of(in.type, std::get<ReduceScatterAttrs>(node.attrs).axis, group_of(node)).outer !=
           1)) {
    run_collective(node, in, out);
    return {};
  }
  const int64_t g = check_call(node, in.type);
  const void* src = in.buffer.data();
  void* dst = out.buffer.data();
  if (node.op == OpCode::all_reduce) {
    return dist::start_all_reduce(src, dst, in.type.numel(), in.dtype(),
                                  std::get<AllReduceAttrs>(node.attrs).reduce, g);
  }
  return dist::start_reduce_scatter(src, dst, out.type.numel(), in.dtype(),
                                    std::get<ReduceScatterAttrs>(node.attrs).reduce, g);
}

void run_collective(const Node& node, const Literal& in, Literal& out) {
  const int64_t g = check_call(node, in.type);
  const char* what = op_name(node.op).data();
  const auto* src = static_cast<const uint8_t*>(in.buffer.data());
  auto* dst = static_cast<uint8_t*>(out.buffer.data());
  switch (node.op) {
    case OpCode::all_reduce: {
      const auto& a = std::get<AllReduceAttrs>(node.attrs);
      reduce_into(in, out, in.type.numel(), a.reduce, g, false);
      return;
    }
    case OpCode::all_gather: {
      const auto& a = std::get<AllGatherAttrs>(node.attrs);
      const Split s = split_of(out.type, a.axis, g);  // the result's blocks, one per rank
      const auto bytes = static_cast<int64_t>(in.type.bytes());
      if (s.outer == 1) {
        dist::all_gather(src, dst, bytes, g);
        return;
      }
      std::vector<uint8_t> tmp(static_cast<size_t>(bytes * g));
      dist::all_gather(src, tmp.data(), bytes, g);
      transpose_blocks(s, tmp.data(), dst, false);
      return;
    }
    case OpCode::reduce_scatter: {
      const auto& a = std::get<ReduceScatterAttrs>(node.attrs);
      const Split s = split_of(in.type, a.axis, g);
      if (s.outer == 1) {
        reduce_into(in, out, out.type.numel(), a.reduce, g, true);
        return;
      }
      Literal packed(in.type, Buffer::allocate_uninitialized(in.type.bytes()));
      transpose_blocks(s, src, static_cast<uint8_t*>(packed.buffer.data()), true);
      reduce_into(packed, out, out.type.numel(), a.reduce, g, true);
      return;
    }
    case OpCode::all_to_all: {
      const auto& a = std::get<AllToAllAttrs>(node.attrs);
      const Split in_split = split_of(in.type, a.split_axis, g);
      const Split out_split = split_of(out.type, a.concat_axis, g);
      std::vector<uint8_t> send(in.type.bytes()), recv(out.type.bytes());
      transpose_blocks(in_split, src, send.data(), true);
      dist::all_to_all(send.data(), recv.data(), static_cast<int64_t>(in.type.bytes()) / g, g);
      transpose_blocks(out_split, recv.data(), dst, false);
      return;
    }
    case OpCode::collective_broadcast: {
      const auto& a = std::get<CollectiveBroadcastAttrs>(node.attrs);
      if (in.type.bytes()) std::memcpy(dst, src, in.type.bytes());
      dist::broadcast(dst, static_cast<int64_t>(in.type.bytes()), a.root, g);
      return;
    }
    default:
      throw VerifyError("[" + std::string(what) + "] is not a collective with an operand");
  }
}

namespace {

std::vector<Literal> collective_kernel(const Node& node, std::span<const Literal> in) {
  if (in.size() != 1 || node.outputs.size() != 1)
    throw VerifyError("[" + std::string(op_name(node.op)) + "] takes one operand");
  Literal out(node.outputs[0], Buffer::allocate_uninitialized(node.outputs[0].bytes()));
  run_collective(node, in[0], out);
  return {std::move(out)};
}

}  // namespace

std::vector<Literal> kernel_all_reduce(const Node& n, std::span<const Literal> in) {
  return collective_kernel(n, in);
}
std::vector<Literal> kernel_all_gather(const Node& n, std::span<const Literal> in) {
  return collective_kernel(n, in);
}
std::vector<Literal> kernel_reduce_scatter(const Node& n, std::span<const Literal> in) {
  return collective_kernel(n, in);
}
std::vector<Literal> kernel_all_to_all(const Node& n, std::span<const Literal> in) {
  return collective_kernel(n, in);
}
std::vector<Literal> kernel_collective_broadcast(const Node& n, std::span<const Literal> in) {
  return collective_kernel(n, in);
}
std::vector<Literal> kernel_axis_index(const Node& node, std::span<const Literal>) {
  const int64_t g = std::get<AxisIndexAttrs>(node.attrs).group_size;
  dist::check_group("axis_index", g);
  return {Literal::scalar<int32_t>(dist::group_rank(g))};
}

}  // namespace lazax::interp
