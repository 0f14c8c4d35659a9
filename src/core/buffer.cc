#include "lazax/core/buffer.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lazax/core/error.h"

namespace lazax {
namespace {
std::atomic<int64_t> g_live_buffers{0};
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};
std::atomic<int64_t> g_total_allocations{0};
std::atomic<int64_t> g_high_water{0};  // the peak live bytes, never reset
constexpr size_t kAlign = 64;
constexpr int64_t kMinAutoLimit = int64_t{256} << 20;

#if defined(__SANITIZE_ADDRESS__)
constexpr int64_t kDefaultCacheLimit = 0;
#else
constexpr int64_t kDefaultCacheLimit = kBufferCacheAuto;
#endif

// The cache of freed blocks (buffer.h): (rounded size, block), oldest first. It holds tens of
// blocks at most, so a linear scan finds one.
class BlockCache {
 public:
  static constexpr size_t kMinBytes = size_t{256} << 10;

  static BlockCache& get() {
    static BlockCache* c = new BlockCache();  // never destroyed: buffers may outlive statics
    return *c;
  }
  void* take(size_t rounded) {
    if (rounded < kMinBytes) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = blocks_.size(); i-- > 0;) {
      if (blocks_[i].first != rounded) continue;
      void* p = blocks_[i].second;
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
      held_ -= static_cast<int64_t>(rounded);
      return p;
    }
    return nullptr;
  }
  // Keeps `p` (of `rounded` bytes) or frees it.
  void give(void* p, size_t rounded) {
    if (rounded >= kMinBytes) {
      std::lock_guard<std::mutex> lock(mu_);
      if (static_cast<int64_t>(rounded) <= effective_limit()) {
        blocks_.emplace_back(rounded, p);
        held_ += static_cast<int64_t>(rounded);
        trim();
        return;
      }
    }
    std::free(p);
  }
  void set_limit(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    limit_ = bytes < 0 ? kDefaultCacheLimit : bytes;
    trim();
  }
  int64_t limit() {
    std::lock_guard<std::mutex> lock(mu_);
    return effective_limit();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [bytes, p] : blocks_) std::free(p);
    blocks_.clear();
    held_ = 0;
  }
  int64_t held() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
  }

 private:
  BlockCache() { limit_ = kDefaultCacheLimit; }
  int64_t effective_limit() const {  // under mu_
    return limit_ == kBufferCacheAuto ? std::max(kMinAutoLimit, g_high_water.load()) : limit_;
  }
  void trim() {  // under mu_
    const int64_t limit = effective_limit();
    size_t drop = 0;
    while (held_ > limit && drop < blocks_.size()) {
      held_ -= static_cast<int64_t>(blocks_[drop].first);
      std::free(blocks_[drop].second);
      ++drop;
    }
    blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  std::mutex mu_;
  std::vector<std::pair<size_t, void*>> blocks_;
  int64_t held_ = 0, limit_ = 0;
};

size_t rounded_size(size_t bytes) {
  size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  return rounded == 0 ? kAlign : rounded;  // empty tensors still get a valid, unique pointer
}
}  // namespace

MemoryStats memory_stats() {
  return {g_live_buffers.load(), g_live_bytes.load(), g_peak_bytes.load(),
          g_total_allocations.load(), BlockCache::get().held()};
}

void set_buffer_cache_limit(int64_t bytes) { BlockCache::get().set_limit(bytes); }
int64_t buffer_cache_limit() { return BlockCache::get().limit(); }
void clear_buffer_cache() { BlockCache::get().clear(); }

void reset_peak_bytes() { g_peak_bytes.store(g_live_bytes.load()); }

Buffer Buffer::allocate(size_t bytes, Device device, MemoryKind kind) {
  Buffer b = allocate_uninitialized(bytes, device, kind);
  std::memset(b.storage_->data, 0, rounded_size(bytes));
  return b;
}

// aligned_alloc, not operator new: it returns null when memory runs out, also under mimalloc,
// whose operator new aborts (docs/DECISIONS.md), so a failed allocation is an error to report.
[[noreturn]] static void out_of_memory(size_t bytes) {
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1f", static_cast<double>(bytes) / (1 << 30));
  throw OutOfMemoryError("[alloc] out of memory: cannot allocate " + std::to_string(bytes) +
                         " bytes (" + gib + " GiB) for a tensor buffer");
}

Buffer Buffer::allocate_uninitialized(size_t bytes, Device device, MemoryKind kind) {
  if (bytes > SIZE_MAX - kAlign) out_of_memory(bytes);
  auto s = std::make_shared<Storage>();
  const size_t rounded = rounded_size(bytes);
  s->data = BlockCache::get().take(rounded);
  if (!s->data) s->data = std::aligned_alloc(kAlign, rounded);
  if (!s->data && BlockCache::get().held() > 0) {  // the cached blocks first
    clear_buffer_cache();
    s->data = std::aligned_alloc(kAlign, rounded);
  }
  if (!s->data) out_of_memory(bytes);
  s->bytes = bytes;
  s->device = device;
  s->kind = kind;
  g_live_buffers.fetch_add(1, std::memory_order_relaxed);
  int64_t live = g_live_bytes.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
  g_total_allocations.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = g_peak_bytes.load();
  while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
  }
  int64_t high = g_high_water.load();
  while (live > high && !g_high_water.compare_exchange_weak(high, live)) {
  }
  Buffer b;
  b.storage_ = std::move(s);
  return b;
}

Buffer::Storage::~Storage() {
  BlockCache::get().give(data, rounded_size(bytes));
  g_live_buffers.fetch_sub(1, std::memory_order_relaxed);
  g_live_bytes.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

}  // namespace lazax
