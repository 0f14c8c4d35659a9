// Shape rules of the collectives: all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_broadcast, axis_index. The group size is an attribute (the program is recorded for a
// world size), so every result type is known when the op is recorded, as for any other op.
#include "common.h"

namespace lazax::shape_rules {
using namespace detail;

namespace {

void check_group_size(OpCode op, int64_t g) {
  if (g < 1) shape_fail(op, "group_size " + num(g) + " must be at least 1");
}

// The dtypes a reduction takes: what MPI reduces (f32, f64, integers) and f16/bf16 (reduced in
// f32); mean only for floats.
void check_reducible(OpCode op, const TensorType& x, ReduceKind k) {
  const DType t = x.dtype;
  if (t == DType::boolean) {
    dtype_fail(op, "cannot reduce " + x.str() + " across ranks; convert the bools to i32 first");
  }
  if (k == ReduceKind::mean && !is_floating(t)) {
    dtype_fail(op, "mean of " + x.str() +
                       " across ranks needs a float dtype; use sum for "
                       "integers, or convert to f32");
  }
}

// The operand's dimension `axis` split into `g` equal parts.
void check_divisible(OpCode op, const TensorType& x, int64_t axis, int64_t g, const char* what) {
  if (x.shape[static_cast<size_t>(axis)] % g != 0) {
    shape_fail(
        op, std::string(what) + " " + num(axis) + " of " + x.str() + " has size " +
                num(x.shape[static_cast<size_t>(axis)]) + ", which does not split into " + num(g) +
                " equal parts (one per rank of the group); pad it to a multiple of " + num(g));
  }
}

}  // namespace

void all_reduce(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                std::vector<TensorType>& out) {
  const auto& a = std::get<AllReduceAttrs>(attrs);
  check_group_size(op, a.group_size);
  check_reducible(op, in[0], a.reduce);
  out.assign(1, in[0]);
}

void all_gather(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                std::vector<TensorType>& out) {
  const auto& a = std::get<AllGatherAttrs>(attrs);
  check_group_size(op, a.group_size);
  check_axis(op, a.axis, in[0], "axis");
  TensorType r = in[0];
  r.shape[static_cast<size_t>(a.axis)] =
      checked_mul(op, r.shape[static_cast<size_t>(a.axis)], a.group_size);
  out.assign(1, r);
}

void reduce_scatter(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                    std::vector<TensorType>& out) {
  const auto& a = std::get<ReduceScatterAttrs>(attrs);
  check_group_size(op, a.group_size);
  check_reducible(op, in[0], a.reduce);
  check_axis(op, a.axis, in[0], "axis");
  check_divisible(op, in[0], a.axis, a.group_size, "axis");
  TensorType r = in[0];
  r.shape[static_cast<size_t>(a.axis)] /= a.group_size;
  out.assign(1, r);
}

void all_to_all(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                std::vector<TensorType>& out) {
  const auto& a = std::get<AllToAllAttrs>(attrs);
  check_group_size(op, a.group_size);
  check_axis(op, a.split_axis, in[0], "split_axis");
  check_axis(op, a.concat_axis, in[0], "concat_axis");
  check_divisible(op, in[0], a.split_axis, a.group_size, "split_axis");
  TensorType r = in[0];
  r.shape[static_cast<size_t>(a.split_axis)] /= a.group_size;
  r.shape[static_cast<size_t>(a.concat_axis)] =
      checked_mul(op, r.shape[static_cast<size_t>(a.concat_axis)], a.group_size);
  out.assign(1, r);
}

void collective_broadcast(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                          std::vector<TensorType>& out) {
  const auto& a = std::get<CollectiveBroadcastAttrs>(attrs);
  check_group_size(op, a.group_size);
  if (a.root < 0 || a.root >= a.group_size) {
    shape_fail(op, "root " + num(a.root) + " is not a rank of a group of " + num(a.group_size) +
                       "; use a root in [0, group_size)");
  }
  out.assign(1, in[0]);
}

void axis_index(OpCode op, std::span<const TensorType>, const Attrs& attrs,
                std::vector<TensorType>& out) {
  check_group_size(op, std::get<AxisIndexAttrs>(attrs).group_size);
  out.assign(1, TensorType{DType::i32, Shape{}});
}

}  // namespace lazax::shape_rules
