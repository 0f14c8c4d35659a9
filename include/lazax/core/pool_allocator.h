// An allocator for objects made and freed by the thousand on every training step (graph nodes,
// tensor handles, tape entries): freed blocks go to a free stack per thread and type and are
// handed out again. A training loop frees each step's graph and tape at sync and records the
// next one right away; recycling spares the system allocator that churn, in which it may hand
// pages back to the OS and fault them in again on the next step. Use it with
// std::allocate_shared (make_pooled below). At most kMaxFreeBlocks blocks per type are kept.
#pragma once
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace lazax {

namespace detail {

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
    for (void* b : blocks) ::operator delete(b, sizeof(T));
  }
};
template <class T>
thread_local FreeBlocks<T> t_free_blocks;

}  // namespace detail

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
    ::operator delete(p, n * sizeof(T));
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
