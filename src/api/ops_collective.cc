// Collectives on tensors (lazax/api/ops_collective.h): the group size is fixed when the op is
// recorded, so the program's types are known as for any op.
#include "lazax/api/ops_collective.h"

#include <string>

#include "lazax/api/tensor_impl.h"
#include "lazax/dist/collectives.h"
#include "lazax/dist/dist.h"

namespace lazax {
namespace {

int64_t group(int64_t group_size, const char* op) {
  const int64_t g = group_size == 0 ? dist::world_size() : group_size;
  dist::check_group(op, g);
  return g;
}

}  // namespace

Tensor all_reduce(const Tensor& x, ReduceKind kind, int64_t group_size) {
  return record_op(OpCode::all_reduce, {&x}, AllReduceAttrs{kind, group(group_size, "all_reduce")});
}
Tensor psum(const Tensor& x, int64_t g) { return all_reduce(x, ReduceKind::sum, g); }
Tensor pmean(const Tensor& x, int64_t g) { return all_reduce(x, ReduceKind::mean, g); }
Tensor pmax(const Tensor& x, int64_t g) { return all_reduce(x, ReduceKind::max, g); }
Tensor pmin(const Tensor& x, int64_t g) { return all_reduce(x, ReduceKind::min, g); }

Tensor all_gather(const Tensor& x, int64_t axis, int64_t group_size) {
  const int64_t a = norm_dim(axis, static_cast<int64_t>(x.dim()), "all_gather");
  return record_op(OpCode::all_gather, {&x}, AllGatherAttrs{a, group(group_size, "all_gather")});
}

Tensor reduce_scatter(const Tensor& x, int64_t axis, ReduceKind kind, int64_t group_size) {
  const int64_t a = norm_dim(axis, static_cast<int64_t>(x.dim()), "reduce_scatter");
  return record_op(OpCode::reduce_scatter, {&x},
                   ReduceScatterAttrs{kind, a, group(group_size, "reduce_scatter")});
}
Tensor psum_scatter(const Tensor& x, int64_t axis, int64_t g) {
  return reduce_scatter(x, axis, ReduceKind::sum, g);
}

Tensor all_to_all(const Tensor& x, int64_t split_axis, int64_t concat_axis, int64_t group_size) {
  const auto r = static_cast<int64_t>(x.dim());
  return record_op(
      OpCode::all_to_all, {&x},
      AllToAllAttrs{norm_dim(split_axis, r, "all_to_all"), norm_dim(concat_axis, r, "all_to_all"),
                    group(group_size, "all_to_all")});
}

Tensor broadcast_from(const Tensor& x, int64_t root, int64_t group_size) {
  return record_op(OpCode::collective_broadcast, {&x},
                   CollectiveBroadcastAttrs{root, group(group_size, "collective_broadcast")});
}

Tensor axis_index(int64_t group_size) {
  return record_op(OpCode::axis_index, {}, AxisIndexAttrs{group(group_size, "axis_index")});
}

}  // namespace lazax
