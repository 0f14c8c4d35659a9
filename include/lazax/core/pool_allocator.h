// An allocator for objects made and freed by the thousand on every training step (graph nodes,
// tensor handles, tape entries): freed blocks go to a free stack per thread and type and are
// handed out again. A training loop frees each step's graph and tape at sync and records the
// next one right away; recycling spares the system allocator that churn, in which it may hand
// pages back to the OS and fault them in again on the next step. Use it with
// std::allocate_shared (make_pooled below). At most kMaxFreeBlocks blocks per type are kept.
#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace lazax {

namespace detail {

// Frees a block of `bytes` bytes from ::operator new (sized where the compiler has sized
// deallocation: clang does not by default, as in the fuzzing build).
inline void delete_block(void* p, [[maybe_unused]] size_t bytes) noexcept {
#if defined(__cpp_sized_deallocation)
  ::operator delete(p, bytes);
#else
  ::operator delete(p);
#endif
}

// Under AddressSanitizer the pool hands every block back to the system allocator, so that a use
// after free is reported rather than hidden by a recycled block.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kMaxFreeBlocks = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kMaxFreeBlocks = 0;
#else
constexpr size_t kMaxFreeBlocks = size_t{1} << 17;
#endif
#else
constexpr size_t kMaxFreeBlocks = size_t{1} << 17;
#endif

// The free blocks of one type on one thread: a stack of addresses, apart from the blocks, so
// that taking one reads this array rather than the (cold) block itself, and the block after it
// can be prefetched while the caller fills this one.
template <class T>
struct FreeBlocks {
  std::vector<void*> blocks;
  static inline thread_local bool dead = false;  // this thread's list is gone (thread exit)
  ~FreeBlocks() {
    dead = true;
    for (void* b : blocks) delete_block(b, sizeof(T));
  }
};
template <class T>
thread_local FreeBlocks<T> t_free_blocks;

// Variable-size blocks (the heap storage of short lists that outlive a call: a graph node's
// operands and outputs, a tape entry's saved inputs) come from size classes of 32 bytes to 4 KiB,
// powers of two, each with a free stack per thread like the typed pools'. A training step keeps
// hundreds of such lists alive until its backward or sync, more than the system allocator's
// per-thread cache holds, so without the classes each one would take its slow path.
constexpr size_t kByteClasses = 8;  // 32, 64, ..., 4096 bytes
constexpr size_t kMinByteClass = 32;
// The class of a block of `bytes` bytes, or kByteClasses when it is too big for one.
inline size_t byte_class(size_t bytes) {
  if (bytes <= kMinByteClass) return 0;
  // The smallest c with 32 << c >= bytes: bit_width(bytes - 1) - 5.
  size_t c = static_cast<size_t>(std::bit_width(bytes - 1)) - 5;
  return c < kByteClasses ? c : kByteClasses;
}
inline size_t byte_class_size(size_t c) { return kMinByteClass << c; }
struct FreeByteBlocks {
  std::vector<void*> blocks[kByteClasses];
  static inline thread_local bool dead = false;
  ~FreeByteBlocks() {
    dead = true;
    for (size_t c = 0; c < kByteClasses; ++c)
      for (void* b : blocks[c]) delete_block(b, byte_class_size(c));
  }
};
inline thread_local FreeByteBlocks t_free_bytes;

}  // namespace detail

// A block of at least `bytes` bytes (default new alignment) from the size classes, and its
// usable size in `usable` (pass that size back to pool_deallocate_bytes).
inline void* pool_allocate_bytes(size_t bytes, size_t& usable) {
  size_t c = detail::byte_class(bytes);
  if (c == detail::kByteClasses) {
    usable = bytes;
    return ::operator new(bytes);
  }
  usable = detail::byte_class_size(c);
  if (!detail::FreeByteBlocks::dead) {
    std::vector<void*>& b = detail::t_free_bytes.blocks[c];
    if (!b.empty()) {
      void* p = b.back();
      b.pop_back();
      return p;
    }
  }
  return ::operator new(usable);
}
// Gives back a block of pool_allocate_bytes. `bytes` is its usable size, or any size over half
// of it (such as the bytes of the whole elements it holds).
inline void pool_deallocate_bytes(void* p, size_t bytes) noexcept {
  size_t c = detail::byte_class(bytes);
  if (c == detail::kByteClasses) {
    detail::delete_block(p, bytes);
    return;
  }
  size_t usable = detail::byte_class_size(c);
  if (!detail::FreeByteBlocks::dead) {
    std::vector<void*>& b = detail::t_free_bytes.blocks[c];
    // At most 64 MiB kept per class (and none under AddressSanitizer).
    size_t limit = std::min(detail::kMaxFreeBlocks, (size_t{64} << 20) / usable);
    if (b.size() < limit) {
      try {
        b.push_back(p);
        return;
      } catch (...) {  // no memory for the list's growth: the block goes back instead
      }
    }
  }
  detail::delete_block(p, usable);
}

template <class T>
struct PoolAllocator {
  static_assert(sizeof(T) >= sizeof(void*) && alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}

  T* allocate(size_t n) {
    using F = detail::FreeBlocks<T>;
    if (n == 1 && !F::dead && !detail::t_free_blocks<T>.blocks.empty()) {
      std::vector<void*>& b = detail::t_free_blocks<T>.blocks;
      T* p = static_cast<T*>(b.back());
      b.pop_back();
      // The next block is written by the next allocation: fetch it now (a freed block is cold).
      if (!b.empty()) {
        for (size_t i = 0; i < sizeof(T); i += 64)
          __builtin_prefetch(static_cast<const char*>(b.back()) + i, 1);
      }
      return p;
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    using F = detail::FreeBlocks<T>;
    if (n == 1 && !F::dead && detail::t_free_blocks<T>.blocks.size() < detail::kMaxFreeBlocks) {
      try {
        detail::t_free_blocks<T>.blocks.push_back(p);
        return;
      } catch (...) {  // no memory for the list's growth: the block goes back instead
      }
    }
    detail::delete_block(p, n * sizeof(T));
  }
  friend bool operator==(const PoolAllocator&, const PoolAllocator&) { return true; }
};

// unique_ptr to an object from the pool.
template <class T>
struct PooledDelete {
  void operator()(T* p) const {
    p->~T();
    PoolAllocator<T>().deallocate(p, 1);
  }
};
template <class T>
using PooledPtr = std::unique_ptr<T, PooledDelete<T>>;
template <class T, class... A>
PooledPtr<T> make_pooled_unique(A&&... args) {
  T* p = PoolAllocator<T>().allocate(1);
  try {
    new (p) T(std::forward<A>(args)...);
  } catch (...) {
    PoolAllocator<T>().deallocate(p, 1);
    throw;
  }
  return PooledPtr<T>(p);
}

// std::make_shared<T>(args...) with the object and its control block from the pool.
template <class T, class... A>
std::shared_ptr<T> make_pooled(A&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<A>(args)...);
}

}  // namespace lazax
