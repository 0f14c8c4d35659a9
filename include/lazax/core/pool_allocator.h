// An allocator for objects made and freed by the thousand on every training step (graph nodes,
// tensor handles, tape entries): freed blocks go to a free list per thread and type and are
// handed out again. A training loop frees each step's graph and tape at sync and records the
// next one right away; recycling spares the system allocator that churn, in which it may hand
// pages back to the OS and fault them in again on the next step. Use it with
// std::allocate_shared (make_pooled below). At most kMaxFreeBlocks blocks per type are kept.
#pragma once
#include <cstddef>
#include <memory>
#include <new>
#include <utility>

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

template <class T>
struct FreeBlocks {
  struct Block {
    Block* next;
  };
  Block* head = nullptr;
  size_t count = 0;
  static inline thread_local bool dead = false;  // this thread's list is gone (thread exit)
  ~FreeBlocks() {
    dead = true;
    while (head) ::operator delete(std::exchange(head, head->next), sizeof(T));
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
    if (n == 1 && !F::dead && detail::t_free_blocks<T>.head) {
      F& f = detail::t_free_blocks<T>;
      --f.count;
      T* p = reinterpret_cast<T*>(std::exchange(f.head, f.head->next));
      // The next block is written by the next allocation: fetch it now (a freed block is cold).
      if (f.head) {
        for (size_t i = 0; i < sizeof(T); i += 64)
          __builtin_prefetch(reinterpret_cast<const char*>(f.head) + i, 1);
      }
      return p;
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    using F = detail::FreeBlocks<T>;
    if (n == 1 && !F::dead && detail::t_free_blocks<T>.count < detail::kMaxFreeBlocks) {
      F& f = detail::t_free_blocks<T>;
      f.head = new (p) typename F::Block{f.head};
      ++f.count;
      return;
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
