#include "lazax/trace/lazy_value.h"

#include "lazax/trace/detail/deferred_values.h"
#include "lazax/trace/trace_stack.h"

namespace lazax {
namespace {
// The pending values in the order they became pending: a slot each (null once the value left),
// so that listing them reads one array instead of chasing a pointer through every value (each
// in a cold cache line). Compacted when the empty slots outnumber the live ones.
// (Made on first use, for values made during static initialization, and never destroyed, for
// values in static storage that leave it during exit.)
// (A plain pointer, set on first use: read on every value made and freed, where a function's
// static would cost its guard check.)
std::vector<LazyValue*>* g_slots = nullptr;
[[gnu::noinline]] std::vector<LazyValue*>& make_slots() {
  static auto* v = new std::vector<LazyValue*>();
  g_slots = v;
  return *v;
}
std::vector<LazyValue*>& slots() { return g_slots ? *g_slots : make_slots(); }
size_t g_count = 0;

[[gnu::noinline]] void grow_slots(std::vector<LazyValue*>& s) { s.reserve(2 * s.size() + 64); }

// Room for one more slot: the only step of registering a value that may throw, taken before
// anything about the value changes.
void make_room_for_a_slot() {
  std::vector<LazyValue*>& s = slots();
  if (s.size() == s.capacity()) grow_slots(s);
}
}  // namespace

void LazyValue::compact(std::vector<LazyValue*>& s) {
  size_t live = 0;
  for (LazyValue* v : s) {
    if (!v) continue;
    v->slot_ = static_cast<uint32_t>(live);
    s[live++] = v;
  }
  s.resize(live);
}

LazyValue::~LazyValue() { unlink(); }

const TensorType& LazyValue::default_type() {
  static const TensorType& t = intern_type(TensorType{});
  return t;
}

const Literal& LazyValue::empty_literal() {
  static const Literal empty;
  return empty;
}

void LazyValue::link() {
  if (slot_ != kNoSlot) return;
  make_room_for_a_slot();
  std::vector<LazyValue*>& s = slots();
  if (s.size() >= 64 && s.size() >= 2 * g_count) compact(s);
  s.push_back(this);
  slot_ = static_cast<uint32_t>(s.size() - 1);
  ++g_count;
}

void LazyValue::unlink() {
  if (slot_ == kNoSlot) return;
  slots()[slot_] = nullptr;
  slot_ = kNoSlot;
  --g_count;
}

void LazyValue::set_pending(GraphValue v, const ValueOwner& owner) {
  make_room_for_a_slot();  // (re-appended below): nothing after it throws
  if (current_frame()) note_rebind(*this, owner);
  type_ = &v.type();
  pending_ = std::move(v);
  data_.reset();
  // The leaf of the old data stays if a graph reads it (which keeps it alive anyway): set_data
  // may give it the new data (below). Unread, it goes now, with the old data.
  if (leaf_ && leaf_.use_count() == 1) leaf_.reset();
  unlink();  // re-append: the order is the order values became pending
  link();
}

void LazyValue::set_data(Literal data) {
  pending_ = GraphValue();  // first: the graph that read the old leaf may die here
  // A parameter updated every step (x = x - lr * g, synced) would need a new leaf node each
  // step. When nothing but this value holds its leaf any more (no pending graph, trace or
  // tape reads it), the leaf takes the new data in place: a data leaf is hashed by type only,
  // so the same node stands for the new data exactly as a new one would.
  // (A pending value gets data of its own type: no lookup then.)
  const TensorType& type = *type_ == data.type ? *type_ : intern_type(data.type);
  if (leaf_ && !(leaf_.use_count() == 1 && &leaf_->outputs[0] == &type)) leaf_.reset();
  if (leaf_) *leaf_->data = data;
  type_ = &type;
  data_ = make_pooled_unique<Literal>(std::move(data));
  unlink();
}

void LazyValue::make_leaf() { leaf_ = data_leaf(data()).node; }

std::vector<LazyValue*> pending_values() {
  materialize_deferred_values();  // they become pending values: sync must see them
  std::vector<LazyValue*> out;
  out.reserve(g_count);
  for (LazyValue* v : slots())
    if (v) out.push_back(v);
  return out;
}

size_t num_pending_values() { return g_count; }

}  // namespace lazax
