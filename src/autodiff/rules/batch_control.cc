// Batching rules of cond, while and scan, as JAX writes them: each body is run by batch_function
// inside a new body traced by the control-flow API (cond, while_loop, scan), so the batched
// program keeps one control-flow node. Which carries hold the batch is found first, to a fixed
// point, by the dataflow of the body (a node's results are batched when an operand is).
#include <string>

#include "lazax/autodiff/batching.h"
#include "lazax/autodiff/control_flow.h"
#include "lazax/core/error.h"

namespace lazax::autodiff {

namespace {

using Mask = std::vector<bool>;

// Which results of `f` carry the batch when the parameters marked in `in` do: a node's results
// when any of its operands does (what every rule gives, or more).
Mask batched_results(const Function& f, const Mask& in) {
  std::vector<Mask> v(f.nodes().size());
  for (size_t i = 0; i < in.size(); ++i) v[i] = {in[i]};
  for (size_t i = in.size(); i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    bool any = false;
    for (auto o : n.operands)
      any = any || v[static_cast<size_t>(o.node)][static_cast<size_t>(o.index)];
    v[i] = Mask(n.outputs.size(), any);
  }
  Mask out;
  for (auto r : f.results())
    out.push_back(v[static_cast<size_t>(r.node)][static_cast<size_t>(r.index)]);
  return out;
}

std::vector<Batched> with_mask(const Tensors& ts, const Mask& m) {
  std::vector<Batched> out;
  for (size_t i = 0; i < ts.size(); ++i) out.push_back({ts[i], m[i]});
  return out;
}

// `f` batched on `args` (batched where `in` says), its results with the batch where `out` says.
Tensors run_batched(const Function& f, const Tensors& args, const Mask& in, const Mask& out,
                    int64_t size) {
  std::vector<Batched> r = batch_function(f, with_mask(args, in), size);
  Tensors res;
  for (size_t j = 0; j < r.size(); ++j) {
    if (r[j].batched && !out[j]) {
      throw ValueError("[vmap] result " + std::to_string(j) + " of @" + f.name() +
                       " is batched where its dataflow says it is not; this is a bug in vmap");
    }
    res.push_back(out[j] ? materialize(r[j], size) : r[j].t);
  }
  return res;
}

Mask mask_of(std::span<const Batched> xs) {
  Mask m;
  for (const Batched& b : xs) m.push_back(b.batched);
  return m;
}

Tensors tensors_of(std::span<const Batched> xs) {
  Tensors ts;
  for (const Batched& b : xs) ts.push_back(b.t);
  return ts;
}

// Marks in `carry` every carry that `body` makes batched (its results [0, carry.size())), until
// nothing changes; `extra` are the other parameters' marks (scan's xs).
void carry_fixed_point(const Function& body, Mask& carry, const Mask& extra) {
  for (bool changed = true; changed;) {
    Mask in = carry;
    in.insert(in.end(), extra.begin(), extra.end());
    Mask out = batched_results(body, in);
    changed = false;
    for (size_t i = 0; i < carry.size(); ++i) {
      if (out[i] && !carry[i]) carry[i] = changed = true;
    }
  }
}

// `t` with dims 0 and 1 swapped.
Tensor swap01(const Tensor& t) {
  std::vector<int64_t> perm{1, 0};
  for (int64_t d = 2; d < t.dim(); ++d) perm.push_back(d);
  return permute(t, perm);
}

// cond with a batched index: every branch batched, the results picked per example by the index
// (a select for a bool index, a chain of selects for an integer one, clamped as cond does).
std::vector<Batched> cond_by_select(const BatchContext& c) {
  const auto& branches = c.attr<CondAttrs>().branches;
  std::vector<Batched> ops(c.inputs.begin() + 1, c.inputs.end());
  std::vector<std::vector<Batched>> res;
  res.reserve(branches.size());
  for (const FunctionPtr& b : branches) res.push_back(batch_function(*b, ops, c.size));
  Batched index = c.inputs[0];
  const auto last = static_cast<double>(branches.size() - 1);
  std::vector<Batched> out = res[0];
  for (size_t k = 1; k < branches.size(); ++k) {
    Batched pred = index;
    if (index.t.dtype() != DType::boolean) {
      Batched kv{host_scalar(static_cast<double>(k), index.t.dtype()), false};
      // Clamped into range: the last branch takes every index >= its own.
      CompareDir dir = static_cast<double>(k) == last ? CompareDir::ge : CompareDir::eq;
      pred =
          batch_op(OpCode::compare, CompareAttrs{dir}, std::vector<Batched>{index, kv}, c.size)[0];
    }
    for (size_t j = 0; j < out.size(); ++j)
      out[j] =
          batch_op(OpCode::select, {}, std::vector<Batched>{pred, res[k][j], out[j]}, c.size)[0];
  }
  return out;
}

}  // namespace

// cond: a batched index selects between every branch's results; an unbatched one stays one cond
// (one branch runs) of the batched branches, a result batched when any branch's is.
std::vector<Batched> batch_cond(const BatchContext& c) {
  if (c.inputs[0].batched) return cond_by_select(c);
  const auto& branches = c.attr<CondAttrs>().branches;
  std::span<const Batched> ops = c.inputs.subspan(1);
  const Mask in = mask_of(ops);
  Mask out(branches[0]->results().size(), false);
  for (const FunctionPtr& b : branches) {
    Mask m = batched_results(*b, in);
    for (size_t j = 0; j < out.size(); ++j) out[j] = out[j] || m[j];
  }
  std::vector<BranchFn> fns;
  fns.reserve(branches.size());
  for (const FunctionPtr& b : branches) {
    fns.push_back([&, b](const Tensors& o) { return run_batched(*b, o, in, out, c.size); });
  }
  return with_mask(switch_(c.inputs[0].t, fns, tensors_of(ops)), out);
}

// while: the carries the body makes batched get the batch; a batched predicate loops while any
// example's holds, each changing carry selected per example so that finished examples keep
// their values (carries the body passes through unchanged stay as they are). The per-example
// predicate is then one more carry, computed once per iteration at the end of the body (and once
// before the loop), which the loop's condition reduces with any and the next body's selects read.
std::vector<Batched> batch_while_(const BatchContext& c) {
  const auto& a = c.attr<WhileAttrs>();
  Mask b = mask_of(c.inputs);
  carry_fixed_point(*a.body, b, {});
  const bool pred_batched = batched_results(*a.cond, b)[0];
  if (pred_batched) {
    const auto& res = a.body->results();
    for (size_t i = 0; i < b.size(); ++i) {
      const bool through = res[i].node == static_cast<int>(i) && res[i].index == 0;
      b[i] = b[i] || !through;
    }
  }
  Tensors init;
  for (size_t i = 0; i < b.size(); ++i)
    init.push_back(b[i] ? materialize(c.inputs[i], c.size) : c.inputs[i].t);
  const int64_t size = c.size;
  const size_t n = b.size();
  auto pred = [&](const Tensors& cs) { return batch_function(*a.cond, with_mask(cs, b), size)[0]; };
  if (!pred_batched) {
    BranchFn cond_fn = [&](const Tensors& cs) { return Tensors{pred(cs).t}; };
    BranchFn body_fn = [&](const Tensors& cs) { return run_batched(*a.body, cs, b, b, size); };
    return with_mask(while_loop(cond_fn, body_fn, init), b);
  }
  init.push_back(materialize(pred(init), size));  // carry n: each example's predicate
  BranchFn cond_fn = [&](const Tensors& cs) { return Tensors{any(cs[n])}; };
  BranchFn body_fn = [&](const Tensors& cs) {
    const Tensors carries(cs.begin(), cs.begin() + static_cast<long>(n));
    Tensors next = run_batched(*a.body, carries, b, b, size);
    const Batched p{cs[n], true};
    for (size_t i = 0; i < n; ++i) {
      if (!b[i]) continue;
      std::vector<Batched> sel{p, {next[i], true}, {carries[i], true}};
      next[i] = batch_op(OpCode::select, {}, sel, size)[0].t;
    }
    next.push_back(materialize(pred(next), size));
    return next;
  };
  Tensors out = while_loop(cond_fn, body_fn, init);
  out.pop_back();
  return with_mask(out, b);
}

// scan: batched carries (to a fixed point) and xs, the batch of each x moved behind the scanned
// dimension and each y's moved back to 0.
std::vector<Batched> batch_scan(const BatchContext& c) {
  const auto& a = c.attr<ScanAttrs>();
  const auto nc = static_cast<size_t>(a.num_carry);
  Mask bc = mask_of(c.inputs.subspan(0, nc));
  const Mask bx = mask_of(c.inputs.subspan(nc));
  carry_fixed_point(*a.body, bc, bx);
  Mask in = bc;
  in.insert(in.end(), bx.begin(), bx.end());
  const Mask out = batched_results(*a.body, in);
  Tensors init, xs;
  for (size_t i = 0; i < nc; ++i)
    init.push_back(bc[i] ? materialize(c.inputs[i], c.size) : c.inputs[i].t);
  for (size_t j = 0; j < bx.size(); ++j) {
    const Tensor& x = c.inputs[nc + j].t;
    xs.push_back(bx[j] ? swap01(x) : x);
  }
  const size_t nx = xs.size();
  // scan needs an xs to count its iterations: a scan node with none gets an unused counter.
  if (nx == 0) xs.push_back(arange(a.length, DType::i32));
  Mask res_mask = bc;
  res_mask.insert(res_mask.end(), out.begin() + static_cast<long>(nc), out.end());
  const int64_t size = c.size;
  ScanFn fn = [&](const Tensors& cs, const Tensors& x) {
    Tensors args = cs;
    args.insert(args.end(), x.begin(), x.begin() + static_cast<long>(nx));
    Tensors r = run_batched(*a.body, args, in, res_mask, size);
    Tensors carry(r.begin(), r.begin() + static_cast<long>(nc));
    Tensors ys(r.begin() + static_cast<long>(nc), r.end());
    return std::make_pair(carry, ys);
  };
  auto [carry, ys] = scan(fn, init, xs, ScanOptions{.reverse = a.reverse});
  std::vector<Batched> res = with_mask(carry, bc);
  for (size_t j = 0; j < ys.size(); ++j) {
    const bool batched = res_mask[nc + j];
    res.push_back({batched ? swap01(ys[j]) : ys[j], batched});
  }
  return res;
}

}  // namespace lazax::autodiff
