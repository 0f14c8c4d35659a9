// The allocator of the objects made and freed by the thousand on every training step (graph
// nodes, tensor handles, tape entries, literals) and of the heap storage of their short lists.
// It is mimalloc (Debian's libmimalloc) where the build has it (LAZAX_HAVE_MIMALLOC), and the
// global operator new otherwise (the sanitizer and fuzzing builds, where AddressSanitizer must see
// every block).
//
// Why mimalloc: a training loop frees each step's graph and tape at sync and records the next one
// right away, and different loops (a plain lazy step of 15K nodes, an assume_pure step of 300)
// take turns on one thread. mimalloc keeps a free list per 64 KiB page and allocates from one page
// until it is used up, so the blocks of one step sit together in few pages whatever ran before.
// A free stack per type (what this file was before) handed such a step blocks scattered over every
// page the big step had touched: the assume_pure step measured 16-20% slower after a plain lazy
// one than alone (DECISIONS.md, "Allocator").
//
// Why loaded, not linked: Debian's libmimalloc also defines malloc and operator new, so linking it
// would replace the allocator of every program that links lazax. pool_allocator.cc loads it
// privately (dlopen, RTLD_LOCAL) at the first allocation and calls mi_malloc through the pointers
// below; the host keeps its malloc unless it links mimalloc itself (LAZAX_OVERRIDE_MALLOC).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

namespace lazax {

// Where lazax's blocks come from: "mimalloc", "malloc" (LAZAX_HAVE_MIMALLOC, but libmimalloc could
// not be loaded) or "operator new" (a build without mimalloc). Loads mimalloc if not yet loaded.
const char* pool_allocator_name();

namespace detail {

#if LAZAX_HAVE_MIMALLOC
// mi_malloc, mi_free and mi_good_size of the privately loaded libmimalloc. Until the first call
// they point at functions that load it; where it cannot be loaded, at malloc, free and a function
// that returns its argument.
struct MimallocFunctions {
  std::atomic<void* (*)(size_t)> malloc;
  std::atomic<void (*)(void*)> free;
  std::atomic<size_t (*)(size_t)> good_size;
};
extern MimallocFunctions mimalloc_functions;
#endif

// A block of `bytes` bytes, aligned for any object of that size (at most
// __STDCPP_DEFAULT_NEW_ALIGNMENT__); throws std::bad_alloc when there is no memory. (mi_malloc,
// not mi_new: Debian builds mimalloc as C, whose mi_new aborts instead of throwing.)
inline void* allocate_block(size_t bytes) {
#if LAZAX_HAVE_MIMALLOC
  void* p = mimalloc_functions.malloc.load(std::memory_order_acquire)(bytes);
  if (!p) throw std::bad_alloc();
  return p;
#else
  return ::operator new(bytes);
#endif
}
// Frees a block of allocate_block of `bytes` bytes.
inline void free_block(void* p, [[maybe_unused]] size_t bytes) noexcept {
#if LAZAX_HAVE_MIMALLOC
  mimalloc_functions.free.load(std::memory_order_acquire)(p);
#elif defined(__cpp_sized_deallocation)
  ::operator delete(p, bytes);
#else
  ::operator delete(p);  // clang does not size deallocations by default (the fuzzing build)
#endif
}

}  // namespace detail

// A block of at least `bytes` bytes (aligned as allocate_block's), and its usable size in
// `usable`, all of which is the caller's: mimalloc rounds a size up to its size class (so a
// growing list uses the whole block), operator new gives what was asked. Throws std::bad_alloc.
inline void* pool_allocate_bytes(size_t bytes, size_t& usable) {
  if (bytes > size_t{PTRDIFF_MAX}) throw std::bad_alloc();  // (no size class rounds it up)
#if LAZAX_HAVE_MIMALLOC
  usable = detail::mimalloc_functions.good_size.load(std::memory_order_acquire)(bytes);
#else
  usable = bytes;
#endif
  return detail::allocate_block(usable);
}
// Gives back a block of pool_allocate_bytes. `bytes` is the size asked for, the usable size, or
// any size between (operator new's sized delete needs one; the two are equal there).
inline void pool_deallocate_bytes(void* p, size_t bytes) noexcept { detail::free_block(p, bytes); }

// The allocator to give std::allocate_shared (make_pooled below) and containers.
template <class T>
struct PoolAllocator {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}

  T* allocate(size_t n) {
    if (n > size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(detail::allocate_block(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { detail::free_block(p, n * sizeof(T)); }
  friend bool operator==(const PoolAllocator&, const PoolAllocator&) { return true; }
};

// unique_ptr to an object from PoolAllocator.
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

// std::make_shared<T>(args...) with the object and its control block from PoolAllocator.
template <class T, class... A>
std::shared_ptr<T> make_pooled(A&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<A>(args)...);
}

}  // namespace lazax
