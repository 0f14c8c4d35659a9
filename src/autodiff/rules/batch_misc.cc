// Batching rules of the leaves, markers, collectives, control flow and indexing. Rows flagged
// kBatchByLoop in the op table use the per-example fallback (docs/VMAP.md says why).
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "lazax/autodiff/batching.h"
#include "lazax/autodiff/pure.h"
#include "lazax/core/error.h"

namespace lazax::autodiff {

namespace {
// An op that maps each example's slice alone: the same op on the batch (its attributes kept).
std::vector<Batched> same_op(const BatchContext& c) {
  std::vector<Tensor> in;
  for (const Batched& b : c.inputs) in.push_back(b.t);
  return as_batched(record_op(c.op, in, c.attrs));
}
// Leaves have no operand, so vmap never batches them (batch_op replays them as they are).
[[noreturn]] std::vector<Batched> no_operands(const BatchContext& c) {
  throw ValueError("[vmap] " + std::string(op_name(c.op)) + " has no operand to batch");
}
}  // namespace

std::vector<Batched> batch_parameter(const BatchContext& c) { no_operands(c); }
std::vector<Batched> batch_constant(const BatchContext& c) { no_operands(c); }
std::vector<Batched> batch_iota(const BatchContext& c) { no_operands(c); }
std::vector<Batched> batch_axis_index(const BatchContext& c) { no_operands(c); }

std::vector<Batched> batch_checkpoint_name(const BatchContext& c) { return same_op(c); }
std::vector<Batched> batch_copy_to_memory_kind(const BatchContext& c) { return same_op(c); }
std::vector<Batched> batch_optimization_barrier(const BatchContext& c) {
  std::vector<Tensor> in;
  for (const Batched& b : c.inputs) in.push_back(b.t);
  std::vector<Tensor> out = record_op(c.op, in, c.attrs);
  std::vector<Batched> res;
  for (size_t i = 0; i < out.size(); ++i) res.push_back({out[i], c.inputs[i].batched});
  return res;
}

// Collectives reduce or move data across ranks, not across examples: the batch dimension is one
// more dimension, so only their axes shift.
std::vector<Batched> batch_all_reduce(const BatchContext& c) { return same_op(c); }
std::vector<Batched> batch_collective_broadcast(const BatchContext& c) { return same_op(c); }
std::vector<Batched> batch_all_gather(const BatchContext& c) {
  AllGatherAttrs a = c.attr<AllGatherAttrs>();
  ++a.axis;
  return as_batched(record_op(c.op, {&c.inputs[0].t}, a));
}
std::vector<Batched> batch_reduce_scatter(const BatchContext& c) {
  ReduceScatterAttrs a = c.attr<ReduceScatterAttrs>();
  ++a.axis;
  return as_batched(record_op(c.op, {&c.inputs[0].t}, a));
}
std::vector<Batched> batch_all_to_all(const BatchContext& c) {
  AllToAllAttrs a = c.attr<AllToAllAttrs>();
  ++a.split_axis;
  ++a.concat_axis;
  return as_batched(record_op(c.op, {&c.inputs[0].t}, a));
}

namespace {
// The batched programs of callees, per signature: the callee's content hash (a program traced
// again to the same nodes is the same callee), each operand's type and whether it is batched,
// and the batch size. A callee is immutable, so its batched program can be reused by every
// vmap that meets it (a vmap object made anew in each step included). At most kMaxCalls kept.
struct CallKey {
  uint64_t callee;
  int64_t size;
  std::vector<int64_t> sig;  // per operand: batched, dtype, rank, dims
  bool operator<(const CallKey& o) const {
    return std::tie(callee, size, sig) < std::tie(o.callee, o.size, o.sig);
  }
};
constexpr size_t kMaxCalls = 256;
std::mutex g_calls_mu;
std::map<CallKey, std::shared_ptr<detail::PureEntry>> g_calls;

CallKey call_key(const FunctionPtr& callee, const BatchContext& c) {
  CallKey k{callee->hash(), c.size, {}};
  for (const Batched& b : c.inputs) {
    k.sig.push_back(b.batched ? 1 : 0);
    k.sig.push_back(static_cast<int64_t>(b.t.dtype()));
    k.sig.push_back(b.t.dim());
    for (int64_t d : b.t.sizes()) k.sig.push_back(d);
  }
  return k;
}

std::shared_ptr<detail::PureEntry> trace_batched_call(const FunctionPtr& callee,
                                                      const BatchContext& c,
                                                      const std::vector<Tensor>& args) {
  PureOptions opts;
  opts.name = "vmap_" + callee->name();
  return detail::trace_pure(opts, "vmap", args, [&](const std::vector<Tensor>& ph) {
    std::vector<Batched> in;
    for (size_t i = 0; i < ph.size(); ++i) in.push_back({ph[i], c.inputs[i].batched});
    std::vector<Tensor> out;
    for (const Batched& r : batch_function(*callee, in, c.size))
      out.push_back(materialize(r, c.size));
    return out;
  });
}
}  // namespace

// call: one call of the callee's batched program (traced once per signature: batch_function on
// placeholders, every result with the batch dimension), so an assume_pure function stays one
// call node with a batched body, differentiated through call_pure like any other.
std::vector<Batched> batch_call(const BatchContext& c) {
  const FunctionPtr& callee = c.attr<CallAttrs>().callee;
  std::vector<Tensor> args;
  for (const Batched& b : c.inputs) args.push_back(b.t);
  CallKey key = call_key(callee, c);
  std::shared_ptr<detail::PureEntry> e;
  {
    std::lock_guard<std::mutex> lock(g_calls_mu);
    auto it = g_calls.find(key);
    if (it != g_calls.end()) e = it->second;
  }
  if (!e) {
    e = trace_batched_call(callee, c, args);  // unlocked: the callee may hold calls itself
    std::lock_guard<std::mutex> lock(g_calls_mu);
    if (g_calls.size() >= kMaxCalls) g_calls.clear();
    g_calls.insert_or_assign(std::move(key), e);
  }
  return as_batched(detail::call_pure(*e, args));
}

void clear_batched_call_cache() {
  std::lock_guard<std::mutex> lock(g_calls_mu);
  g_calls.clear();
}

}  // namespace lazax::autodiff
