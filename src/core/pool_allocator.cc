// Loads mimalloc for core/pool_allocator.h without making it the process's allocator.
//
// Debian builds libmimalloc with its malloc, free and operator new exported next to mi_malloc
// (the same code: `nm -D` shows malloc and mi_malloc at one address), and ships no static archive.
// A program linked against it therefore allocates everything with mimalloc. Opened with
// RTLD_LOCAL instead, its symbols join no global lookup scope: nothing binds to its malloc, and
// lazax reaches mi_malloc, mi_free and mi_good_size through dlsym. If the host did link mimalloc
// (LAZAX_OVERRIDE_MALLOC, or by itself), dlopen returns that same copy and both share one heap.
#include "lazax/core/pool_allocator.h"

#if LAZAX_HAVE_MIMALLOC
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#endif

namespace lazax {

#if LAZAX_HAVE_MIMALLOC
namespace {

const char* loaded_name = "malloc";

size_t same_size(size_t bytes) { return bytes; }

// Points mimalloc_functions at libmimalloc's functions, or at malloc and free when it is missing
// (a program copied to a machine without libmimalloc2.0 still runs). Once per process; every
// block is allocated after this, so a block is always freed by the allocator that made it.
void load_mimalloc() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& fns = detail::mimalloc_functions;
    // RTLD_NODELETE: the library stays for blocks freed at exit, whatever dlclose-s it.
    void* lib = dlopen(LAZAX_MIMALLOC_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    void* m = lib ? dlsym(lib, "mi_malloc") : nullptr;
    void* f = lib ? dlsym(lib, "mi_free") : nullptr;
    void* g = lib ? dlsym(lib, "mi_good_size") : nullptr;
    if (m && f && g) {
      fns.malloc.store(reinterpret_cast<void* (*)(size_t)>(m), std::memory_order_release);
      fns.free.store(reinterpret_cast<void (*)(void*)>(f), std::memory_order_release);
      fns.good_size.store(reinterpret_cast<size_t (*)(size_t)>(g), std::memory_order_release);
      loaded_name = "mimalloc";
    } else {
      fns.malloc.store([](size_t bytes) { return std::malloc(bytes); }, std::memory_order_release);
      fns.free.store([](void* p) { std::free(p); }, std::memory_order_release);
      fns.good_size.store(&same_size, std::memory_order_release);
    }
  });
}

void* load_then_malloc(size_t bytes) {
  load_mimalloc();
  return detail::mimalloc_functions.malloc.load(std::memory_order_acquire)(bytes);
}
void load_then_free(void* p) {
  load_mimalloc();
  detail::mimalloc_functions.free.load(std::memory_order_acquire)(p);
}
size_t load_then_good_size(size_t bytes) {
  load_mimalloc();
  return detail::mimalloc_functions.good_size.load(std::memory_order_acquire)(bytes);
}

}  // namespace

// Constant-initialized (the loaders are known at compile time), so a block allocated by another
// library's static constructor, before this file's, still finds them.
constinit detail::MimallocFunctions detail::mimalloc_functions{&load_then_malloc, &load_then_free,
                                                               &load_then_good_size};

const char* pool_allocator_name() {
  load_mimalloc();
  return loaded_name;
}
#else
const char* pool_allocator_name() { return "operator new"; }
#endif

}  // namespace lazax
