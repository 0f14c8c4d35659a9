#include "lazax/ir/shared_attrs.h"

#include <atomic>
#include <mutex>
#include <new>
#include <vector>

#include "lazax/core/pool_allocator.h"
#include "lazax/ir/op.h"

namespace lazax {

constinit const Attrs SharedAttrs::kNone{};

namespace {

// Interned blocks of all threads together are bounded (about 4 MiB): a program whose attributes
// keep changing (a slice at a growing offset) fills the tables once and then gets blocks of its
// own, freed as usual.
constexpr int64_t kMaxInterned = int64_t{1} << 14;
std::atomic<int64_t> g_interned{0};

// Whether a value is interned: attributes that are plain numbers. Functions are not (the table
// would keep them alive), nor data beyond a scalar (0 and 1 are recorded all the time).
bool internable(const Attrs& a) {
  if (const auto* c = std::get_if<ConstantAttrs>(&a)) return c->value.type.numel() <= 1;
  return !has_bodies(a);
}

// Every interned block stays reachable from here (leak checkers see them as live): they live as
// long as the program, also after the thread that made them has exited.
std::vector<void*>& registry(std::unique_lock<std::mutex>& lock) {
  static auto* m = new std::mutex;
  static auto* blocks = new std::vector<void*>;
  lock = std::unique_lock<std::mutex>(*m);
  return *blocks;
}

// The tables of threads that have exited, for new threads to take over (so that a program that
// keeps starting threads does not intern the same values again and again up to the cap).
struct Orphans {
  std::mutex m;
  std::vector<std::pair<std::vector<void*>, size_t>> tables;  // (slots, count)
};
Orphans& orphans() {
  static auto* o = new Orphans;
  return *o;
}

}  // namespace

// The interned values of one thread: open addressing on the attributes' hash.
struct SharedAttrsTable {
  using Block = SharedAttrs::Block;
  std::vector<Block*> slots;  // size a power of two, at most half full
  size_t count = 0;
  bool adopted = false;  // looked for an exited thread's table to take over
  // Set when this thread's table is gone (thread exit): a value made later (by another
  // thread-local's destructor, or a static one after main) gets a block of its own.
  static inline thread_local bool dead = false;

  ~SharedAttrsTable() {
    dead = true;
    if (count == 0) return;
    std::vector<void*> raw(slots.begin(), slots.end());
    std::lock_guard<std::mutex> lock(orphans().m);
    orphans().tables.emplace_back(std::move(raw), count);
  }

  void adopt() {
    adopted = true;
    std::lock_guard<std::mutex> lock(orphans().m);
    auto& t = orphans().tables;
    if (t.empty()) return;
    slots.clear();
    for (void* p : t.back().first) slots.push_back(static_cast<Block*>(p));
    count = t.back().second;
    t.pop_back();
  }

  // The interned block equal to `a`, made if there is none (null when the cap is reached).
  Block* find_or_add(Attrs& a, uint64_t h) {
    if (!adopted) adopt();
    if (!slots.empty()) {
      const size_t mask = slots.size() - 1;
      for (size_t i = h & mask; slots[i]; i = (i + 1) & mask)
        if (slots[i]->hash == h && attrs_equal(slots[i]->value, a)) return slots[i];
    }
    if (g_interned.fetch_add(1, std::memory_order_relaxed) >= kMaxInterned) {
      g_interned.fetch_sub(1, std::memory_order_relaxed);
      return nullptr;
    }
    if (2 * (count + 1) > slots.size()) grow();
    Block* b = SharedAttrs::new_immortal(std::move(a), h);
    const size_t mask = slots.size() - 1;
    size_t i = h & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = b;
    ++count;
    return b;
  }

  void grow() {
    std::vector<Block*> old = std::move(slots);
    slots.assign(old.empty() ? 256 : 2 * old.size(), nullptr);
    const size_t mask = slots.size() - 1;
    for (Block* b : old) {
      if (!b) continue;
      size_t i = b->hash & mask;
      while (slots[i]) i = (i + 1) & mask;
      slots[i] = b;
    }
  }
};

namespace {
thread_local SharedAttrsTable t_table;
}  // namespace

SharedAttrs::SharedAttrs(Attrs a) {
  if (std::holds_alternative<NoAttrs>(a)) return;
  const uint64_t h = hash_attrs(a);
  if (internable(a) && !SharedAttrsTable::dead) {
    if (Block* b = t_table.find_or_add(a, h)) {
      p_ = reinterpret_cast<uintptr_t>(b) | kImmortal;
      return;
    }
  }
  Block* b = PoolAllocator<Block>().allocate(1);
  new (b) Block{h, 1, std::move(a)};
  p_ = reinterpret_cast<uintptr_t>(b);
}

SharedAttrs::Block* SharedAttrs::new_immortal(Attrs&& a, uint64_t h) {
  auto* b = new Block{h, 0, std::move(a)};
  std::unique_lock<std::mutex> lock;
  registry(lock).push_back(b);
  return b;
}

SharedAttrs SharedAttrs::permanent(Attrs a) {
  SharedAttrs s;
  if (std::holds_alternative<NoAttrs>(a)) return s;
  const uint64_t h = hash_attrs(a);
  s.p_ = reinterpret_cast<uintptr_t>(new_immortal(std::move(a), h)) | kImmortal;
  return s;
}

void SharedAttrs::destroy(Block* b) {
  b->~Block();
  PoolAllocator<Block>().deallocate(b, 1);
}

uint64_t SharedAttrs::no_attrs_hash() {
  static const uint64_t h = hash_attrs(NoAttrs{});
  return h;
}

int64_t SharedAttrs::interned_count() { return g_interned.load(std::memory_order_relaxed); }

}  // namespace lazax
