// Reference-counted, 64-byte-aligned storage. Buffers are shared, never resized; live and peak
// byte counts are kept for the metrics report.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "lazax/core/device.h"

namespace lazax {

struct MemoryStats {
  int64_t live_buffers = 0;
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t total_allocations = 0;
  int64_t cached_bytes = 0;  // freed blocks kept for reuse (not live)
};
MemoryStats memory_stats();
void reset_peak_bytes();

// Freed buffers of 256 KiB and more are kept, up to a limit, for the next allocation of the same
// size (as MLX's buffer cache and PyTorch's caching allocators do): a large block from malloc is
// fresh pages from the kernel each time, and faulting them in costs more than the kernels that
// fill them. The oldest blocks are freed first when the limit is passed. By default the limit
// follows the process: the most bytes it has had live at once, and at least 256 MiB, so a
// training loop that replaces its weights and optimizer state each step reuses the last step's
// blocks; what is cached was live before, so the footprint stays under twice the peak. A
// failed allocation frees the cache and tries again. LAZAX_BUFFER_CACHE_BYTES sets a fixed
// limit; 0 turns the cache off, as do the sanitizer builds (so a use after free stays visible).
constexpr int64_t kBufferCacheAuto = -1;
void set_buffer_cache_limit(int64_t bytes);  // frees what is above it; kBufferCacheAuto: default
int64_t buffer_cache_limit();                // in bytes (the automatic limit's current value)
void clear_buffer_cache();                   // frees every cached block

class Buffer {
 public:
  Buffer() = default;
  // Allocates `bytes` (zero-filled) on `device` in memory `kind`.
  static Buffer allocate(size_t bytes, Device device = {}, MemoryKind kind = MemoryKind::device);
  // The same without the zero fill, for a kernel that writes every byte.
  static Buffer allocate_uninitialized(size_t bytes, Device device = {},
                                       MemoryKind kind = MemoryKind::device);

  bool defined() const { return storage_ != nullptr; }
  void* data() { return storage_ ? storage_->data : nullptr; }
  const void* data() const { return storage_ ? storage_->data : nullptr; }
  template <class T>
  T* as() {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* as() const {
    return static_cast<const T*>(data());
  }
  size_t bytes() const { return storage_ ? storage_->bytes : 0; }
  Device device() const { return storage_ ? storage_->device : Device{}; }
  MemoryKind memory_kind() const { return storage_ ? storage_->kind : MemoryKind::device; }
  long use_count() const { return storage_.use_count(); }
  // Identity of the storage (two Buffers sharing storage compare equal).
  const void* id() const { return storage_.get(); }

 private:
  struct Storage {
    void* data = nullptr;
    size_t bytes = 0;
    Device device;
    MemoryKind kind = MemoryKind::device;
    Storage() = default;
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    ~Storage();
  };
  std::shared_ptr<Storage> storage_;
};

}  // namespace lazax
