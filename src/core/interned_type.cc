#include "lazax/core/interned_type.h"

#include <memory>
#include <mutex>
#include <unordered_set>

#include "lazax/core/hash.h"

namespace lazax {
namespace {

// (The project's word mixing, core/hash.h, one word per dim.)
uint64_t type_hash(const TensorType& t) {
  Hasher h;
  h.add(static_cast<uint64_t>(t.dtype) << 8 | t.shape.rank());
  for (int64_t d : t.shape) h.add_signed(d);
  return h.digest();
}

struct ByValue {
  size_t operator()(const TensorType* t) const { return type_hash(*t); }
  bool operator()(const TensorType* a, const TensorType* b) const { return *a == *b; }
};

// The process-wide table. Never destroyed (nor its types): a pointer handed out stays valid
// through static destruction too, and the types stay reachable for leak checkers.
struct Table {
  std::mutex mu;
  std::unordered_set<const TensorType*, ByValue, ByValue> types;
};
Table& table() {
  static Table* t = new Table;
  return *t;
}

// A thread's recently used types, direct-mapped by hash. Plain data (no destructor): a type
// interned by a thread-local's destructor at thread exit finds it intact.
struct CacheEntry {
  uint64_t hash;
  const TensorType* type;
};
constexpr size_t kCacheEntries = 512;
thread_local CacheEntry t_cache[kCacheEntries];

}  // namespace

const TensorType& intern_type(const TensorType& t) {
  uint64_t h = type_hash(t);
  CacheEntry& e = t_cache[h % kCacheEntries];
  if (e.type && e.hash == h && *e.type == t) return *e.type;
  Table& tab = table();
  const TensorType* p;
  {
    std::lock_guard<std::mutex> lock(tab.mu);
    auto it = tab.types.find(&t);
    if (it != tab.types.end()) {
      p = *it;
    } else {
      auto owned = std::make_unique<TensorType>(t);
      tab.types.insert(owned.get());
      p = owned.release();
    }
  }
  e = {h, p};
  return *p;
}

int64_t interned_type_count() {
  Table& tab = table();
  std::lock_guard<std::mutex> lock(tab.mu);
  return static_cast<int64_t>(tab.types.size());
}

}  // namespace lazax
