#include "lazax/runtime/context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lazax/core/error.h"
#include "lazax/core/hash.h"
#include "lazax/core/metrics.h"
#include "lazax/ir/printer.h"
#include "lazax/passes/passes.h"
#include "lazax/trace/call_site.h"
#include "lazax/trace/lazy_value.h"
#include "lazax/trace/lower.h"

namespace lazax {
namespace {

metrics::Counter& c_syncs = metrics::counter("Syncs");
metrics::Counter& c_breaks = metrics::counter("GraphBreaks");
metrics::Counter& c_size_cuts = metrics::counter("GraphSizeCuts");
metrics::Counter& c_cached = metrics::counter("CachedCompile");
metrics::Counter& c_uncached = metrics::counter("UncachedCompile");
metrics::Counter& c_nodes = metrics::counter("SyncedNodes");
metrics::Timer& t_hash = metrics::timer("SyncHashTime");
metrics::Timer& t_compile = metrics::timer("CompileTime");
metrics::Timer& t_execute = metrics::timer("ExecuteTime");

// One word for an operand or a result: the producer's place in the walk and its output index.
uint64_t value_word(const GraphNode* n, int32_t index) {
  return static_cast<uint64_t>(static_cast<uint32_t>(n->topo_index)) << 32 |
         static_cast<uint32_t>(index);
}

// The values sync materializes: the live pending values, less the tracers of function traces
// (they are not lazy values: they have no data to compute with).
std::vector<LazyValue*> values_to_sync() {
  std::vector<LazyValue*> values = pending_values();
  values.erase(
      std::remove_if(values.begin(), values.end(), [](LazyValue* v) { return v->is_tracer(); }),
      values.end());
  return values;
}

// Post-order walk from the values into `w`; numbers leaves -1, -2, ... and nodes 0, 1, ...
// Returns the walked graph's structural key: the leaves' hashes, each node's hash and operands
// (by place in the walk), and the results. A node's words are gathered as it is numbered, while
// its operands are still in cache (15K nodes do not fit in L2: a second pass reads them cold),
// and hashed in one pass at the end.
uint64_t walk_and_key(const std::vector<LazyValue*>& values, uint64_t epoch, SyncWalk& w) {
  w.leaves.clear();
  w.nodes.clear();
  std::vector<uint64_t>& words = w.key_words;
  words.clear();
  auto& stack = w.stack;
  stack.clear();
  auto number_leaf = [&](GraphNode* l) {
    w.leaves.push_back(l);
    l->topo_index = -static_cast<int32_t>(w.leaves.size());
  };
  for (LazyValue* v : values) {
    GraphNode* root = v->pending().node.get();
    if (root->visit_epoch == epoch) continue;
    stack.push_back({root, 0});
    root->visit_epoch = epoch;
    while (!stack.empty()) {
      auto& top = stack.back();
      GraphNode* n = top.first;
      const GraphValue* ops = n->operands.data();
      const size_t count = n->operands.size();
      size_t i = top.second;
      if (i == 0) {
        // The operands are read next, each a likely cache miss: they are fetched together.
        for (size_t k = 0; k < count; ++k) {
          __builtin_prefetch(ops[k].node.get());
          __builtin_prefetch(&ops[k].node->operands);
        }
      }
      // The operands seen before or leaves are done here; the first other one is walked next.
      GraphNode* child = nullptr;
      while (i < count) {
        GraphNode* c = ops[i++].node.get();
        if (c->visit_epoch == epoch) continue;
        c->visit_epoch = epoch;
        if (c->op == OpCode::parameter) {
          // A leaf is numbered on sight, as it would be when popped: the walk reads nothing
          // of it past the node's first cache line.
          number_leaf(c);
          continue;
        }
        child = c;
        break;
      }
      if (child) {
        top.second = i;
        stack.push_back({child, 0});
        continue;
      }
      if (n->op == OpCode::parameter) {  // (a root)
        number_leaf(n);
      } else {
        n->topo_index = static_cast<int32_t>(w.nodes.size());
        w.nodes.push_back(n);
        words.push_back(n->hash);
        for (const auto& o : n->operands) words.push_back(value_word(o.node.get(), o.index));
      }
      stack.pop_back();
    }
  }
  for (GraphNode* l : w.leaves) words.push_back(l->hash);
  for (LazyValue* v : values)
    words.push_back(value_word(v->pending().node.get(), v->pending().index));
  words.push_back(w.leaves.size());
  words.push_back(w.nodes.size());
  words.push_back(values.size());
  return hash_bytes(words.data(), words.size() * sizeof(uint64_t), 0x73796e63ull);
}

// The values' graph as a Function (after walk_and_key filled `w`): the leaves are its
// parameters, in the walk's order, which is the order `run` passes their data in.
FunctionPtr lower_graph(const SyncWalk& w, const std::vector<LazyValue*>& values) {
  std::vector<GraphValue> results;
  results.reserve(values.size());
  for (LazyValue* v : values) results.push_back(v->pending());
  return lower_walked("main", w.leaves, w.nodes, results);
}

// Runs `exe` on the walked leaves' data (read in place) and returns the values' new data.
std::vector<Literal> run(Executable& exe, SyncWalk& w) {
  std::vector<const Literal*>& args = w.args;
  args.clear();
  for (GraphNode* l : w.leaves) {
    // Only a function trace's inputs hold no data, and tracers are not synced.
    if (!l->data) throw ValueError("[sync] a pending value depends on a function trace's input");
    args.push_back(l->data.get());
  }
  std::vector<Literal> outs;
  {
    metrics::ScopedTimer t(t_execute);
    outs = exe.run(std::span<const Literal* const>(args));
  }
  args.clear();
  return outs;
}

// Each value becomes data: its pending node is released (and with the last one, the graph).
void rebind(const std::vector<LazyValue*>& values, std::vector<Literal> outs) {
  for (size_t i = 0; i < values.size(); ++i) values[i]->set_data(std::move(outs[i]));
}

}  // namespace

Context::Context(Options options) { set_options(std::move(options)); }

Context& Context::get() {
  static Context* ctx = new Context(Options::from_env());  // lives for the whole process
  return *ctx;
}

void Context::set_options(Options o) {
  // (the backend first: an unknown name throws before anything changed)
  if (!backend_ || backend_->name() != o.backend) set_backend(o.backend);
  if (o.num_threads > 0) set_num_threads(o.num_threads);
  passes::set_default_dump_dir(o.dump_dir);
  set_buffer_cache_limit(o.buffer_cache_bytes);
  set_call_sites_enabled(o.call_sites);
  set_cpu_profile(o.cpu_profile);
  options_ = std::move(o);
}

void Context::set_backend(const std::string& name) {
  backend_ = make_backend(name);
  options_.backend = backend_->name();
  cache_.clear();
}

void Context::sync(SyncCause cause, const std::string& where) {
  note_cause(cause, where);
  std::vector<LazyValue*> values = values_to_sync();
  if (values.empty()) return;
  c_syncs.add();
  uint64_t key;
  {
    metrics::ScopedTimer t(t_hash);
    key = walk_and_key(values, ++epoch_, walk_);
  }
  c_nodes.add(static_cast<int64_t>(walk_.nodes.size()));
  Executable* exe = cache_.find(key);
  if (exe) {
    c_cached.add();
  } else {
    exe = &compile(key, values);
  }
  rebind(values, run(*exe, walk_));
}

void Context::note_cause(SyncCause cause, const std::string& where) {
  const char* place = where.empty() ? "<unknown>" : where.c_str();
  if (cause == SyncCause::graph_break) {
    c_breaks.add();
    metrics::record_graph_break(place);
    if (options_.debug)
      std::fprintf(stderr, "[lazax] graph break: a value was read at %s\n", place);
  } else if (cause == SyncCause::size_limit) {
    c_size_cuts.add();
    if (options_.debug)
      std::fprintf(stderr, "[lazax] graph cut: more than %lld pending nodes\n",
                   static_cast<long long>(options_.max_pending_nodes));
  }
}

Executable& Context::compile(uint64_t key, const std::vector<LazyValue*>& values) {
  c_uncached.add();
  FunctionPtr f = lower_graph(walk_, values);
  GraphSummary summary = GraphSummary::of(*f);
  if (options_.debug) {
    std::fprintf(stderr, "[lazax] compile #%lld (%zu inputs, %zu ops): cache miss: %s\n",
                 static_cast<long long>(c_uncached.get()), summary.inputs.size(),
                 summary.ops.size(), cache_.explain_miss(summary).c_str());
  }
  if (!options_.dump_dir.empty()) dump(*f);
  metrics::ScopedTimer t(t_compile);
  return cache_.insert(key, backend_->compile(f), std::move(summary));
}

void Context::dump(const Function& f) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(options_.dump_dir, ec);
  std::string base = options_.dump_dir + "/graph_" + std::to_string(dump_counter_++);
  std::ofstream(base + ".lzir") << print_program(f);
  std::ofstream(base + ".dot") << to_dot(f);
}

Context::Probe Context::probe() {
  std::vector<LazyValue*> values = values_to_sync();
  if (values.empty()) return {};
  uint64_t key = walk_and_key(values, ++epoch_, walk_);
  return {static_cast<int64_t>(walk_.nodes.size()), static_cast<int64_t>(walk_.leaves.size()),
          cache_.find(key) != nullptr};
}

}  // namespace lazax
