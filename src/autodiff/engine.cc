#include "engine.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "lazax/autodiff/rules.h"
#include "lazax/autodiff/tape.h"
#include "lazax/trace/call_site.h"
#include "lazax/trace/scope.h"

namespace lazax::autodiff {
namespace {

thread_local bool t_released_after_rule = false;

// Sets saved_values_released_after_rule() while a custom rule runs (restored after, also when
// the rule throws or runs a backward of its own).
class ReleasedAfterRule {
 public:
  explicit ReleasedAfterRule(bool on) : previous_(t_released_after_rule) {
    t_released_after_rule = on;
  }
  ~ReleasedAfterRule() { t_released_after_rule = previous_; }
  ReleasedAfterRule(const ReleasedAfterRule&) = delete;
  ReleasedAfterRule& operator=(const ReleasedAfterRule&) = delete;

 private:
  bool previous_;
};

// A node's output (p = the node, i >= 0) or a leaf (p = its leaf id, i = -1: ids are never
// reused, while a freed leaf's address may be, and a released entry still names its leaves).
struct Key {
  const void* p;
  int32_t i;
  bool operator==(const Key&) const = default;
};
Key leaf_key(uint64_t id) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a key, never dereferenced
  return {reinterpret_cast<const void*>(static_cast<uintptr_t>(id)), -1};
}
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<const void*>()(k.p) * 31 + static_cast<size_t>(k.i);
  }
};

Key key_of(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (impl->grad_fn) return {impl->grad_fn.get(), impl->output_index};
  return leaf_key(leaf_id_of(*impl));
}
Key key_of(const GradNode::Edge& e) {
  if (e.fn) return {e.fn.get(), e.index};
  return leaf_key(e.leaf_id);
}

Tensor accumulate(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}
// acc += g, taking g over when acc is empty (a cotangent usually has one user: no handle copies,
// whose reference counts are atomic).
void accumulate_into(Tensor& acc, Tensor&& g) {
  if (!g.defined()) return;
  acc = acc.defined() ? acc + g : std::move(g);
}

// The walks of the tape (run_backward, run_forward) number themselves; a node's `walk` says
// which walk last visited it, its `reaches_target` and `out_cts` are valid for that walk only.
uint64_t next_walk() {
  static std::atomic<uint64_t> walks{0};
  return walks.fetch_add(1) + 1;
}

void check_saved(const GradNode& n);

// The tape nodes reachable from the roots. `visited` lists every node the walk marked (their
// scratch is reset); `order` those that lead to a target (or, when `all`, any node), in creation
// order; `dead_ends` the others.
struct TapeWalk {
  uint64_t id = next_walk();
  std::vector<GradNode*> visited;
  std::vector<GradNode*> dead_ends;
  std::vector<std::shared_ptr<GradNode>> order;
  // Set once every node of `order` has had its cotangents taken (the walk then need not visit
  // them again: a step's tape does not fit in L2, and each pass over it reads it cold).
  bool order_done = false;
  bool seen(const GradNode* n) const { return n->walk == id; }
  void mark(GradNode* n) {
    n->walk = id;
    n->reaches_target = false;
    n->out_cts.clear();
    visited.push_back(n);
  }
  // Drops the cotangents left on visited nodes (all of them when a rule threw half-way).
  ~TapeWalk() {
    for (GradNode* n : order_done ? dead_ends : visited) n->out_cts.clear();
  }
};

// `check`: check each node of `order` with check_saved as it is found (before anything changes,
// while the node is in cache).
void collect(const std::vector<Tensor>& roots, const std::unordered_set<Key, KeyHash>& targets,
             bool all, TapeWalk& w, bool check = false) {
  // Iterative DFS with post-order evaluation of `reaches_target`. The stack points at the
  // references
  // that reach each node (a parent's edge, a root's grad_fn: nothing changes them during the
  // walk), so that walking takes no reference counts; `order` takes one per node.
  std::vector<std::pair<const std::shared_ptr<GradNode>*, size_t>> stack;
  // `order` with each node's sequence beside it: sorted without reading the (cold) nodes.
  std::vector<std::pair<uint64_t, std::shared_ptr<GradNode>>> found;
  auto visit_root = [&](const std::shared_ptr<GradNode>& root) {
    if (!root || w.seen(root.get())) return;
    w.mark(root.get());
    stack.push_back({&root, 0});
    while (!stack.empty()) {
      auto& [ref, next] = stack.back();
      GradNode* n = ref->get();
      if (next < n->next.size()) {
        const auto& e = n->next[next++];
        if (e.fn && !w.seen(e.fn.get()) && !targets.count(Key{e.fn.get(), e.index})) {
          w.mark(e.fn.get());
          stack.push_back({&e.fn, 0});
        }
        continue;
      }
      bool l = all;
      for (const auto& e : n->next) {
        if (l) break;
        if ((e.fn ? (w.seen(e.fn.get()) && e.fn->reaches_target) : false) ||
            (!targets.empty() && targets.count(key_of(e))) || (all && (e.fn || e.leaf_impl)))
          l = true;
      }
      n->reaches_target = l;
      if (l) {
        if (check) check_saved(*n);
        found.emplace_back(n->sequence, *ref);
      } else {
        w.dead_ends.push_back(n);
      }
      stack.pop_back();
    }
  };
  for (const Tensor& r : roots)
    if (r.defined() && r.impl()->grad_fn && !targets.count(key_of(r)))
      visit_root(r.impl()->grad_fn);
  w.order.reserve(found.size());
  if (found.empty()) return;
  // Sequences are unique and dense (one per tape entry made): a step's entries span a range
  // not much wider than their number, so they are placed by sequence directly (a comparison
  // sort of thousands of entries cost more than the rest of the walk).
  auto [lo, hi] = std::minmax_element(
      found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  uint64_t first = lo->first, range = hi->first - lo->first + 1;
  if (range <= 8 * found.size() + 1024) {
    std::vector<uint32_t> place(range, UINT32_MAX);
    for (size_t i = 0; i < found.size(); ++i)
      place[found[i].first - first] = static_cast<uint32_t>(i);
    for (uint32_t i : place)
      if (i != UINT32_MAX) w.order.push_back(std::move(found[i].second));
  } else {
    std::vector<std::pair<uint64_t, uint32_t>> keys(found.size());
    for (size_t i = 0; i < found.size(); ++i) keys[i] = {found[i].first, static_cast<uint32_t>(i)};
    std::sort(keys.begin(), keys.end());
    for (const auto& k : keys) w.order.push_back(std::move(found[k.second].second));
  }
}

// The saved outputs of `n` as its rule sees them: as saved, or (create_graph) re-attached to `n`
// so that rules using them stay differentiable.
std::span<const Tensor> outputs_for_rule(const std::shared_ptr<GradNode>& n, bool create_graph,
                                         std::vector<Tensor>& outs) {
  std::vector<Tensor> saved_buf;
  std::span<const Tensor> saved = saved_outputs(*n, create_graph ? saved_buf : outs);
  if (!create_graph) return saved;
  for (size_t i = 0; i < saved.size(); ++i) {
    if (!saved[i].defined()) {  // a placeholder (the rule does not read it)
      outs.emplace_back();
      continue;
    }
    Tensor o = saved[i].detach();
    if (is_floating(o.dtype())) {
      o.impl()->requires_grad = true;
      o.impl()->grad_fn = n;
      o.impl()->output_index = static_cast<int32_t>(i);
    }
    outs.push_back(o);
  }
  return outs;
}

void check_saved(const GradNode& n) {
  if (n.released) {
    throw ValueError(
        "[backward] trying to backward through the graph a second time (its saved "
        "values were freed by the first backward); pass retain_graph=true to the "
        "first backward() if you need to call it twice");
  }
  // Only a leaf that required grad when saved is held as is (save_input): any other input was
  // registered, and an in-place update first handed the entry a copy of the old value. Its edge
  // points at it, so the other inputs' handles (cold by now) are not read.
  for (size_t i = 0; i < n.next.size(); ++i) {
    const GradNode::Edge& e = n.next[i];
    if (e.leaf_impl && e.leaf_impl->version != e.version) {
      throw ValueError("[backward] a leaf " + n.inputs[i].type_str() + " saved by " +
                       std::string(op_name(n.op)) +
                       " was modified in place after it was used; do in-place updates after "
                       "backward()");
    }
  }
}

}  // namespace

bool saved_values_released_after_rule() { return t_released_after_rule; }

Tensor zeros_of(const TensorType& like) { return zeros(like.shape.vec(), like.dtype); }

namespace {

// One backward call: the cotangents of the walk's nodes, gathered from the roots down, each
// node's VJP rule applied in reverse creation order, and the results delivered to targets and
// leaves.
class BackwardPass {
 public:
  BackwardPass(const std::vector<Tensor>& targets, const BackwardOptions& options)
      : options_(options) {
    for (const Tensor& t : targets) target_keys_.insert(key_of(t));
  }

  // Finds the tape entries between the roots and the targets (checking their saved values).
  void collect_tape(const std::vector<Tensor>& roots) {
    collect(roots, target_keys_, options_.accumulate_leaves, walk_, /*check=*/true);
  }

  // Gives each root its cotangent (ones for a scalar root without one).
  void seed(const std::vector<Tensor>& roots, const std::vector<Tensor>& cts) {
    for (size_t i = 0; i < roots.size(); ++i) {
      const Tensor& r = roots[i];
      Tensor ct = cts[i];
      if (!ct.defined()) {
        if (r.numel() != 1) {
          throw ValueError(
              "[backward] grad can be implicitly created only for scalar outputs, got " +
              r.type_str() + "; pass a gradient of the same shape");
        }
        ct = ones(r.sizes(), r.dtype());
      } else if (ct.dtype() != r.dtype()) {
        ct = ct.to(r.dtype());  // as PyTorch's engine does (validate_outputs)
      }
      Key k = key_of(r);
      if (r.impl()->grad_fn || target_keys_.count(k)) {
        add_ct(k, std::move(ct));
      } else if (r.impl()->requires_grad) {
        deliver_leaf(r.impl(), std::move(ct));
      }
    }
  }

  // Applies every collected entry's rule, newest first.
  void run() {
    const std::vector<std::shared_ptr<GradNode>>& order = walk_.order;
    for (auto it = order.rbegin(); it != order.rend(); ++it) run_entry(*it);
    walk_.order_done = true;
  }

  // The cotangent of each target (zeros where none reached it).
  std::vector<Tensor> results(const std::vector<Tensor>& targets) const {
    std::vector<Tensor> result;
    for (const Tensor& t : targets) {
      Tensor g = ct_of(key_of(t));
      result.push_back(g.defined() ? g : zeros_of(t.impl()->type()));
    }
    return result;
  }

 private:
  void run_entry(const std::shared_ptr<GradNode>& n) {
    out_cts_.assign(n->outputs.size(), Tensor());
    bool any = false;
    for (size_t i = 0; i < out_cts_.size() && i < n->out_cts.size(); ++i) {
      if (n->out_cts[i].defined()) {
        out_cts_[i] = std::move(n->out_cts[i]);
        any = true;
      }
    }
    n->out_cts.clear();
    if (!any) {
      release(*n);
      return;
    }
    std::vector<Tensor> in_cts;
    ProfilerScope scope = ProfilerScope::restore(n->scope);
    InheritedCallSite site(n->call_site);
    if (n->custom) {
      ReleasedAfterRule released(!options_.retain_graph);
      in_cts = n->custom->vjp(out_cts_, {n->inputs.begin(), n->inputs.size()});
      if (in_cts.size() != n->next.size())
        throw ValueError("[custom_vjp] bwd returned " + std::to_string(in_cts.size()) +
                         " cotangents for " + std::to_string(n->next.size()) + " inputs");
    } else {
      outs_buf_.clear();
      std::span<const Tensor> outs = outputs_for_rule(n, options_.create_graph, outs_buf_);
      OpContext c{n->op, n->attrs, {n->inputs.begin(), n->inputs.size()}, outs};
      in_cts = vjp_rule(n->op)(c, out_cts_);
    }
    for (size_t i = 0; i < n->next.size() && i < in_cts.size(); ++i) {
      const auto& e = n->next[i];
      if (!in_cts[i].defined()) continue;
      if (e.fn) {
        add_ct(Key{e.fn.get(), e.index}, std::move(in_cts[i]));
      } else if (e.leaf_impl) {
        deliver_leaf(e.leaf_impl, std::move(in_cts[i]));
      }
    }
    release(*n);
  }

  // Cotangents gathered so far live on the node for outputs of visited nodes, in `other_` for
  // the rest (leaves that are targets, and targets the walk stopped at).
  void add_ct(const Key& k, Tensor&& g) {
    auto* node = static_cast<GradNode*>(const_cast<void*>(k.p));
    if (k.i >= 0 && walk_.seen(node)) {
      auto& slots = node->out_cts;
      while (slots.size() <= static_cast<size_t>(k.i)) slots.emplace_back();
      accumulate_into(slots[static_cast<size_t>(k.i)], std::move(g));
    } else if (target_keys_.count(k)) {
      accumulate_into(other_[k], std::move(g));
    }
  }

  Tensor ct_of(const Key& k) const {
    auto* node = static_cast<const GradNode*>(k.p);
    if (k.i >= 0 && walk_.seen(node)) {
      return static_cast<size_t>(k.i) < node->out_cts.size()
                 ? node->out_cts[static_cast<size_t>(k.i)]
                 : Tensor();
    }
    auto it = other_.find(k);
    return it != other_.end() ? it->second : Tensor();
  }

  // A leaf's grad is a handle of its own: a detached copy of `g`, unless `g` is one already (a
  // result without a tape entry that nothing else holds: most are, and a model has many leaves).
  Tensor own_handle(Tensor g) const {
    if (options_.create_graph) return g;
    const TensorImpl* impl = g.impl();
    if (!impl->grad_fn && !impl->requires_grad && g.impl_ptr().use_count() == 1) return g;
    return g.detach();
  }

  void deliver_leaf(TensorImpl* leaf, Tensor&& g) {
    if (!target_keys_.empty()) {
      Key k = leaf_key(leaf_id_of(*leaf));
      if (target_keys_.count(k)) other_[k] = accumulate(other_[k], g);
    }
    if (options_.accumulate_leaves && leaf->requires_grad)
      accumulate_into(leaf->grad, own_handle(std::move(g)));
  }

  // Without retain_graph each node's saved values are freed right after its rule ran (a node's
  // saved values are read by its own rule only), while the node is in cache. As in PyTorch's
  // engine, a rule that throws leaves the nodes that ran before it released: a retry fails with
  // check_saved's error, which says to pass retain_graph=true (then nothing is freed).
  void release(GradNode& n) const {
    if (options_.retain_graph) return;
    release_saved_inputs(n);
    n.outputs.clear();
    n.deferred.reset();
    // Custom rules hold saved values too (assume_pure's residuals): free them now rather
    // than when the tape dies, so that a later sync does not materialize them. A released
    // node is never run again (check_saved throws first).
    n.custom.reset();
    n.released = true;
  }

  BackwardOptions options_;
  std::unordered_set<Key, KeyHash> target_keys_;
  TapeWalk walk_;
  std::unordered_map<Key, Tensor, KeyHash> other_;
  std::vector<Tensor> out_cts_, outs_buf_;
};

}  // namespace

std::vector<Tensor> run_backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& cts,
                                 const std::vector<Tensor>& targets,
                                 const BackwardOptions& options) {
  // Checked before anything is changed. A gradient of another dtype is cast to the output's
  // (seed), as in PyTorch.
  for (size_t i = 0; i < roots.size() && i < cts.size(); ++i) {
    if (roots[i].defined() && cts[i].defined() && cts[i].shape() != roots[i].shape())
      throw ShapeError("[backward] the gradient passed for an output " + roots[i].type_str() +
                       " is " + cts[i].type_str() + "; pass a gradient of the output's shape");
  }
  BackwardPass pass(targets, options);
  pass.collect_tape(roots);
  std::optional<EnableGrad> enable;
  std::optional<NoGrad> disable;
  if (options.create_graph)
    enable.emplace();
  else
    disable.emplace();
  pass.seed(roots, cts);
  pass.run();
  return pass.results(targets);
}

std::vector<Tensor> run_forward(const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& tangents,
                                const std::vector<Tensor>& outputs) {
  std::unordered_set<Key, KeyHash> input_keys;
  std::unordered_map<Key, Tensor, KeyHash> tan;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Key k = key_of(inputs[i]);
    input_keys.insert(k);
    tan[k] = tangents[i];
  }
  TapeWalk walk;
  collect(outputs, input_keys, false, walk);
  std::vector<Tensor> outs_buf;
  for (const auto& n : walk.order) {
    if (n->released) check_saved(*n);
    std::vector<Tensor> in_tans(n->next.size());
    bool any = false;
    for (size_t i = 0; i < n->next.size(); ++i) {
      const auto& e = n->next[i];
      if (!e.fn && !e.leaf_impl) continue;
      auto t = tan.find(key_of(e));
      if (t != tan.end() && t->second.defined()) {
        in_tans[i] = t->second;
        any = true;
      }
    }
    if (!any) continue;
    std::vector<Tensor> out_tans;
    if (n->custom) {
      out_tans = n->custom->jvp(in_tans, {n->inputs.begin(), n->inputs.size()});
    } else {
      // Outputs re-attached to n while recording, so that rules using them (exp: t * out) stay
      // differentiable by an enclosing transform (jvp of jvp, vjp of jvp).
      outs_buf.clear();
      std::span<const Tensor> outs = outputs_for_rule(n, grad_enabled(), outs_buf);
      OpContext c{n->op, n->attrs, {n->inputs.begin(), n->inputs.size()}, outs};
      out_tans = jvp_rule(n->op)(c, in_tans);
    }
    for (size_t i = 0; i < out_tans.size(); ++i)
      if (out_tans[i].defined()) tan[Key{n.get(), static_cast<int32_t>(i)}] = out_tans[i];
  }
  std::vector<Tensor> result;
  for (const Tensor& o : outputs) {
    auto t = o.defined() && (o.impl()->grad_fn || o.impl()->requires_grad) ? tan.find(key_of(o))
                                                                           : tan.end();
    result.push_back(t != tan.end() && t->second.defined() ? t->second
                                                           : zeros_of(o.impl()->type()));
  }
  return result;
}

Tensor transform_input(const Tensor& p) {
  Tensor x = p.detach();
  if (!p.requires_grad() || !grad_enabled()) {
    if (is_floating(x.dtype())) x.requires_grad_(true);
    return x;
  }
  // An identity tape entry: the enclosing transform differentiates through it, this one stops.
  auto node = make_pooled<GradNode>();
  node->op = OpCode::optimization_barrier;
  node->custom = make_pooled_unique<GradNode::CustomRules>(GradNode::CustomRules{
      [](const std::vector<Tensor>& cts, std::span<const Tensor>) { return cts; },
      [](const std::vector<Tensor>& ts, std::span<const Tensor>) { return ts; }});
  node->sequence = next_grad_sequence();
  save_input(*node, p);
  save_output(node, x, 0, /*keep=*/false);
  return x;
}

}  // namespace lazax::autodiff

namespace lazax {

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph,
                      bool create_graph) const {
  if (!defined()) throw ValueError("[backward] the tensor is undefined");
  if (!requires_grad()) {
    throw ValueError("[backward] " + type_str() +
                     " does not require grad and has no tape entry: no input of its computation "
                     "had requires_grad_() set (or it was computed under NoGrad)");
  }
  autodiff::run_backward({*this}, {gradient}, {},
                         {.accumulate_leaves = true,
                          .retain_graph = retain_graph.value_or(create_graph),
                          .create_graph = create_graph});
}

}  // namespace lazax
