// The runtime: one Context owns the backend, the compile cache and the options. `sync` walks the
// graph of every live pending tensor and hashes it, finds its program in the cache (or lowers the
// graph to a Function and compiles it), runs it and rebinds the tensors to the results.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazax/backend/backend.h"
#include "lazax/core/options.h"
#include "lazax/runtime/compile_cache.h"

namespace lazax {

struct GraphNode;
class LazyValue;

// What sync walks and hashes. The Context keeps one between syncs so that the buffers' capacity
// is reused: a steady-state sync allocates nothing for them.
struct SyncWalk {
  std::vector<GraphNode*> leaves;  // data leaves (the Function's parameters), in order
  std::vector<GraphNode*> nodes;   // the other nodes, in topological order
  std::vector<std::pair<GraphNode*, size_t>> stack;
  std::vector<uint64_t> key_words;
  std::vector<const Literal*> args;  // the leaves' data during a run
};

// Why a sync happened.
enum class SyncCause : uint8_t {
  explicit_sync,  // lazax::sync() (mark step)
  graph_break,    // a value was read: item(), to_vector(), printing
  size_limit,     // the pending graph grew past max_pending_nodes
};

class Context {
 public:
  // Configured by `options` (applied as set_options does).
  explicit Context(Options options);
  // The process-wide default context: created on first use, with Options::from_env() (the
  // LAZAX_* variables, read then and only then).
  static Context& get();

  // The options. The fields read where they are used (debug, max_pending_nodes, check_pure) may
  // be changed here directly; the others configure the layers below and change by set_options.
  const Options& options() const { return options_; }
  Options& options() { return options_; }
  // Applies every field: the backend (made anew, and the compile cache cleared, when its name
  // changes), the thread count (when > 0), the dump directory (this Context's graphs and the
  // passes' programs), the buffer cache limit, call-site capture and the cpu profile.
  void set_options(Options options);
  Backend& backend() { return *backend_; }
  void set_backend(const std::string& name);
  CompileCache& cache() { return cache_; }

  // Materializes every live pending value. `where` is the user's source location for breaks.
  void sync(SyncCause cause, const std::string& where = "");

  // What the next sync would find, compiling and running nothing: the live pending graph's size
  // and whether its program is cached. Costs what sync pays before it compiles or executes (walk,
  // hash, cache lookup), which is what `lazax bench trace` measures with it.
  struct Probe {
    int64_t nodes = 0;   // ops in the graph (without its data inputs)
    int64_t inputs = 0;  // data leaves
    bool cached = false;
  };
  Probe probe();

 private:
  // Counts a graph break or size cut (and explains it with LAZAX_DEBUG).
  void note_cause(SyncCause cause, const std::string& where);
  // On a cache miss: lowers the walked graph of `values`, compiles it and caches it under `key`.
  Executable& compile(uint64_t key, const std::vector<LazyValue*>& values);
  // Writes `f` to LAZAX_DUMP_DIR (.lzir and .dot).
  void dump(const Function& f);

  Options options_;
  std::unique_ptr<Backend> backend_;
  CompileCache cache_;
  SyncWalk walk_;
  uint64_t epoch_ = 0;
  int64_t dump_counter_ = 0;
};

}  // namespace lazax
