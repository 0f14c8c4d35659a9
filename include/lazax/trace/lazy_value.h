// What a tensor handle holds: materialized data or a pending graph value. Pending values are
// kept in a registry (a slot each), in the order they became pending, so that sync can find every
// live one.
// The lazy trace is single-threaded: record and sync from one thread at a time.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "lazax/trace/detail/value_owner.h"
#include "lazax/trace/graph.h"

namespace lazax {

class LazyValue {
 public:
  LazyValue() = default;
  explicit LazyValue(Literal data) { set_data(std::move(data)); }
  // Data with the graph leaf that stands for it already made (a leaf shared by many values).
  LazyValue(Literal data, GraphNodePtr leaf)
      : leaf_(std::move(leaf)),
        data_(make_pooled_unique<Literal>(std::move(data))),
        type_(&intern_type(data_->type)) {}
  // A new pending value (nothing to unbind: set_pending's other work is not needed).
  explicit LazyValue(GraphValue v) : pending_(std::move(v)), type_(&pending_.type()) { link(); }
  virtual ~LazyValue();
  LazyValue(const LazyValue&) = delete;
  LazyValue& operator=(const LazyValue&) = delete;

  // Interned (core/interned_type.h): a reference to it stays valid across a sync, which frees
  // the pending node (and a size-limit cut may come in the middle of any op or VJP rule holding
  // a shape).
  const TensorType& type() const { return *type_; }
  bool is_pending() const { return pending_.defined(); }
  // Rebinds to a pending value (registers for the next sync); `owner` owns this value.
  void set_pending(GraphValue v, const ValueOwner& owner);
  // Rebinds to data (leaves the registry).
  void set_data(Literal data);
  // Whether the value is a tracer of a function trace (open or dead).
  bool is_tracer() const { return pending_.defined() && pending_.node->frame != nullptr; }
  // The data (an empty literal while pending).
  const Literal& data() const { return data_ ? *data_ : empty_literal(); }
  const GraphValue& pending() const { return pending_; }
  // Asks the CPU to fetch the data leaf's node and its reference count, which graph_value()
  // will increment (an atomic operation: it waits for its cache line).
  void prefetch_leaf() const {
    if (const char* p = reinterpret_cast<const char*>(leaf_.get())) __builtin_prefetch(p - 16, 1);
  }
  // The value as a graph operand: the pending value, or a data leaf made once per data.
  GraphValue graph_value() {
    if (slot_ != kNoSlot) return pending_;
    if (!leaf_) make_leaf();
    return GraphValue{leaf_, 0};
  }

 private:
  friend std::vector<LazyValue*> pending_values();
  [[gnu::noinline]] void make_leaf();
  // Drops the registry's empty slots, renumbering the live values.
  [[gnu::noinline]] static void compact(std::vector<LazyValue*>& s);
  void link();  // (throws only before changing anything)
  void unlink();

  static const Literal& empty_literal();
  static const TensorType& default_type();
  // What graph_value() reads comes first, in the cache line of the handle's reference count
  // (which taking a handle touches anyway): a data value used as an operand touches no other.
  GraphNodePtr leaf_;  // the leaf standing for data_, shared by every use
  static constexpr uint32_t kNoSlot = ~0u;
  uint32_t slot_ = kNoSlot;  // in the pending registry (lazy_value.cc): set exactly while pending
  GraphValue pending_;
  PooledPtr<Literal> data_;  // apart: most values are pending and hold none
  const TensorType* type_ = &default_type();
};

// Every pending value alive now, in the order they became pending (deferred values are
// materialized first: trace/deferred_values.h).
std::vector<LazyValue*> pending_values();
size_t num_pending_values();

}  // namespace lazax
