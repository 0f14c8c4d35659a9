// vmap: the function traced once on one example's types (trace_pure), then its program run
// with the batching rules (batch_function) on the batched arguments, the batch dimension at 0
// of every batched value; the arguments' axes are moved to 0 first and the results' to out_axes.
#include "lazax/autodiff/vmap.h"

#include <string>

#include "lazax/autodiff/batching.h"
#include "lazax/autodiff/pure.h"
#include "lazax/core/error.h"

namespace lazax::autodiff {

std::vector<Batched> batch_op(OpCode op, const SharedAttrs& attrs, std::span<const Batched> inputs,
                              int64_t size) {
  bool any = false;
  for (const Batched& b : inputs) any = any || b.batched;
  if (any) return batch_rule(op)({op, attrs, inputs, size});
  std::vector<Tensor> in;
  for (const Batched& b : inputs) in.push_back(b.t);
  return as_batched(record_op(op, in, attrs), false);
}

std::vector<Batched> batch_function(const Function& f, const std::vector<Batched>& args,
                                    int64_t size) {
  if (static_cast<int>(args.size()) != f.num_params())
    throw ValueError("[vmap] @" + f.name() + " takes " + std::to_string(f.num_params()) +
                     " arguments, got " + std::to_string(args.size()));
  std::vector<std::vector<Batched>> values(f.nodes().size());
  for (size_t i = 0; i < args.size(); ++i) values[i] = {args[i]};
  for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    std::vector<Batched> in;
    for (auto o : n.operands)
      in.push_back(values[static_cast<size_t>(o.node)][static_cast<size_t>(o.index)]);
    values[i] = batch_op(n.op, n.attrs, in, size);
  }
  std::vector<Batched> out;
  for (auto r : f.results())
    out.push_back(values[static_cast<size_t>(r.node)][static_cast<size_t>(r.index)]);
  return out;
}

}  // namespace lazax::autodiff

namespace lazax::detail {

namespace {

// `t` with dimension `from` moved to `to`.
Tensor move_dim(const Tensor& t, int64_t from, int64_t to) {
  if (from == to) return t;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != from) perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  return permute(t, perm);
}

// The batch size, checked to agree across the batched arguments (and with axis_size).
int64_t batch_size(const std::vector<Tensor>& args, const VmapFlatSpec& s,
                   std::vector<int64_t>& axes) {
  std::optional<int64_t> size = s.axis_size;
  std::string first = s.axis_size ? "axis_size" : "";
  for (size_t i = 0; i < args.size(); ++i) {
    axes.push_back(-1);
    if (!s.in_axes[i]) continue;
    const int64_t rank = args[i].dim();
    const int64_t a = *s.in_axes[i] < 0 ? *s.in_axes[i] + rank : *s.in_axes[i];
    if (a < 0 || a >= rank) {
      throw ShapeError("[vmap] in_axes " + std::to_string(*s.in_axes[i]) + " of " + s.in_paths[i] +
                       " does not fit its shape " + args[i].type_str() + "; give an axis in [-" +
                       std::to_string(rank) + ", " + std::to_string(rank) +
                       ") or nullopt for an unbatched argument");
    }
    axes.back() = a;
    const int64_t n = args[i].size(a);
    std::string here =
        s.in_paths[i] + " has " + std::to_string(n) + " along axis " + std::to_string(a);
    if (size && *size != n) {
      std::string msg = "[vmap] the batch sizes differ: " + first;
      if (first == "axis_size") msg += " is " + std::to_string(*size);
      msg += ", " + here + "; every batched argument needs the same size along its in_axes";
      throw ShapeError(msg);
    }
    if (!size) first = here;
    size = n;
  }
  if (!size)
    throw ValueError("[vmap] no argument is batched (every in_axes is nullopt): pass axis_size");
  return *size;
}

// Result `b` of the traced function as the caller's output `path` with the batch at `axis`.
Tensor place_output(const autodiff::Batched& b, std::optional<int64_t> axis, int64_t size,
                    const std::string& path) {
  if (!axis) {
    if (b.batched)
      throw ValueError("[vmap] output " + path +
                       " differs per example, but its out_axes is nullopt; give it an axis");
    return b.t;
  }
  Tensor t = autodiff::materialize(b, size);
  const int64_t rank = t.dim();
  const int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank) {
    throw ShapeError("[vmap] out_axes " + std::to_string(*axis) + " does not fit output " + path +
                     " of shape " + t.type_str() + " (batch at 0); give an axis in [-" +
                     std::to_string(rank) + ", " + std::to_string(rank) + ")");
  }
  return move_dim(t, 0, a);
}

}  // namespace

std::vector<Tensor> vmap_flat(const VmapFlatSpec& s, const std::vector<Tensor>& args,
                              const FlatFn& body) {
  std::vector<int64_t> axes;
  const int64_t size = batch_size(args, s, axes);
  std::vector<Tensor> examples;
  std::vector<autodiff::Batched> batched;
  for (size_t i = 0; i < args.size(); ++i) {
    if (axes[i] < 0) {
      examples.push_back(args[i]);
      batched.push_back({args[i], false});
    } else {
      Tensor moved = move_dim(args[i], axes[i], 0);
      std::vector<int64_t> sizes = moved.sizes();
      sizes.erase(sizes.begin());
      examples.push_back(zeros(sizes, moved.dtype()));
      batched.push_back({moved, true});
    }
  }
  PureOptions opts;
  opts.name = "vmap_fn";
  std::shared_ptr<PureEntry> e = trace_pure(opts, s.where, examples, body);
  if (!e->arg_writebacks.empty()) {
    throw ValueError("[vmap] the function updates its argument " +
                     s.in_paths[e->arg_writebacks[0].arg] +
                     " in place; return the new value instead");
  }
  for (const Tensor& c : e->captures) batched.push_back({c, false});
  std::vector<autodiff::Batched> res = autodiff::batch_function(*e->fn, batched, size);
  for (const auto& w : e->outer_writebacks) {
    const autodiff::Batched& v = res[w.result];
    if (v.batched) {
      throw ValueError("[vmap] the function updates an outside tensor in place (" +
                       std::string(w.op ? w.op : "copy_") +
                       ") with a value that differs per example; return it instead");
    }
    NoGrad off;
    Tensor target = w.target;
    target.copy_(v.t.detach());
  }
  std::vector<std::string> paths = s.out_paths ? s.out_paths() : std::vector<std::string>{};
  paths.resize(e->num_outputs, "");
  if (s.out_axes.size() != 1 && s.out_axes.size() != e->num_outputs) {
    throw ValueError("[vmap] out_axes has " + std::to_string(s.out_axes.size()) +
                     " entries but the function returns " + std::to_string(e->num_outputs) +
                     " tensors; give one axis, or one per returned tensor");
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i < e->num_outputs; ++i) {
    std::optional<int64_t> axis = s.out_axes.size() == 1 ? s.out_axes[0] : s.out_axes[i];
    std::string path = paths[i].empty() ? "[" + std::to_string(i) + "]" : paths[i];
    out.push_back(place_output(res[i], axis, size, path));
  }
  return out;
}

}  // namespace lazax::detail
