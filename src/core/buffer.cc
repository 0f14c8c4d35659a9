#include "lazax/core/buffer.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lazax/core/error.h"

namespace lazax {
namespace {
std::atomic<int64_t> g_live_buffers{0};
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};
std::atomic<int64_t> g_total_allocations{0};
constexpr size_t kAlign = 64;
}  // namespace

MemoryStats memory_stats() {
  return {g_live_buffers.load(), g_live_bytes.load(), g_peak_bytes.load(),
          g_total_allocations.load()};
}

void reset_peak_bytes() { g_peak_bytes.store(g_live_bytes.load()); }

Buffer Buffer::allocate(size_t bytes, Device device, MemoryKind kind) {
  Buffer b = allocate_uninitialized(bytes, device, kind);
  std::memset(b.storage_->data, 0, (bytes + kAlign - 1) / kAlign * kAlign);
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
  size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  if (rounded == 0) rounded = kAlign;  // empty tensors still get a valid, unique pointer
  s->data = std::aligned_alloc(kAlign, rounded);
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
  Buffer b;
  b.storage_ = std::move(s);
  return b;
}

Buffer::Storage::~Storage() {
  std::free(data);
  g_live_buffers.fetch_sub(1, std::memory_order_relaxed);
  g_live_bytes.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

}  // namespace lazax
