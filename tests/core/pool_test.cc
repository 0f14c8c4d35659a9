// The allocator of core/pool_allocator.h (mimalloc where the build has it, operator new in the
// sanitizer builds): a block's usable size covers the request and all of it is the caller's,
// objects made by make_pooled and make_pooled_unique are destroyed and freed, a block may be freed
// on another thread than the one that allocated it, even after that thread has exited, and a size
// no block can have is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "lazax/core/pool_allocator.h"

#if LAZAX_HAVE_MIMALLOC
#include <dlfcn.h>
#endif

using namespace lazax;

#if LAZAX_HAVE_MIMALLOC
namespace {
// A function of the libmimalloc that pool_allocator.cc loaded (privately: not linked here).
template <class Fn>
Fn* mimalloc_function(const char* name) {
  EXPECT_STREQ(pool_allocator_name(), "mimalloc");
  void* lib = dlopen(LAZAX_MIMALLOC_SONAME, RTLD_NOW | RTLD_NOLOAD);
  void* f = lib ? dlsym(lib, name) : nullptr;
  if (!f) throw std::runtime_error(std::string("no ") + name + " in " + LAZAX_MIMALLOC_SONAME);
  return reinterpret_cast<Fn*>(f);
}
bool mi_check_owned(const void* p) {
  static auto* f = mimalloc_function<bool(const void*)>("mi_check_owned");
  return f(p);
}
size_t mi_usable_size(const void* p) {
  static auto* f = mimalloc_function<size_t(const void*)>("mi_usable_size");
  return f(p);
}
}  // namespace
#endif

TEST(PoolBytes, TheUsableSizeCoversTheRequestAndIsAllTheCallers) {
  for (size_t asked : {size_t{1}, size_t{24}, size_t{33}, size_t{240}, size_t{720}, size_t{4096},
                       size_t{4097}, size_t{100000}}) {
    size_t usable = 0;
    void* p = pool_allocate_bytes(asked, usable);
    ASSERT_NE(p, nullptr);
    EXPECT_GE(usable, asked);
#if LAZAX_HAVE_MIMALLOC
    EXPECT_TRUE(mi_check_owned(p)) << "asked " << asked;  // from mimalloc's heap
    EXPECT_GE(mi_usable_size(p), usable);
#else
    EXPECT_EQ(usable, asked) << "asked " << asked;
#endif
    std::memset(p, 0xab, usable);  // all of it is the caller's (ASan checks the bounds)
    pool_deallocate_bytes(p, usable);
  }
  // A size no block can have is refused, not rounded (mimalloc's rounding would wrap to 0).
  size_t usable = 7;
  EXPECT_THROW((void)pool_allocate_bytes(size_t(-1) - 100, usable), std::bad_alloc);
}

namespace {
struct Counted {
  explicit Counted(int* live, bool fail = false) : live(live) {
    if (fail) throw std::runtime_error("constructor failed");
    ++*live;
  }
  ~Counted() { --*live; }
  int* live;
  char payload[200] = {};
};
}  // namespace

TEST(PoolAllocator, PooledObjectsAreDestroyedAndAFailedConstructionFreesItsBlock) {
  int live = 0;
  {
    std::shared_ptr<Counted> s = make_pooled<Counted>(&live);
    PooledPtr<Counted> u = make_pooled_unique<Counted>(&live);
    EXPECT_EQ(live, 2);
#if LAZAX_HAVE_MIMALLOC
    EXPECT_TRUE(mi_check_owned(s.get()));
    EXPECT_TRUE(mi_check_owned(u.get()));
#endif
    std::memset(s->payload, 1, sizeof s->payload);
    std::memset(u->payload, 2, sizeof u->payload);
  }
  EXPECT_EQ(live, 0);
  // The block of an object whose constructor throws goes back (LeakSanitizer checks it).
  EXPECT_THROW(make_pooled_unique<Counted>(&live, true), std::runtime_error);
  EXPECT_THROW(make_pooled<Counted>(&live, true), std::runtime_error);
  EXPECT_EQ(live, 0);
}

TEST(PoolAllocator, AnOverflowingCountIsRefused) {
  PoolAllocator<Counted> a;
  EXPECT_THROW((void)a.allocate(size_t(-1) / 8), std::bad_array_new_length);
}

TEST(PoolAllocator, ABlockMayBeFreedOnAnotherThread) {
  std::vector<std::shared_ptr<Counted>> made;
  int live = 0;
  for (int i = 0; i < 1000; ++i) made.push_back(make_pooled<Counted>(&live));
  size_t usable = 0;
  void* bytes = pool_allocate_bytes(300, usable);
  std::thread([&] {
    made.clear();  // the last references die on this thread
    pool_deallocate_bytes(bytes, usable);
  }).join();
  EXPECT_EQ(live, 0);
  // And the allocating thread goes on allocating.
  auto again = make_pooled<Counted>(&live);
  EXPECT_EQ(live, 1);
}

TEST(PoolAllocator, ObjectsOutliveTheThreadThatMadeThem) {
  int live = 0;
  std::vector<std::shared_ptr<Counted>> made;
  PooledPtr<Counted> one;
  size_t usable = 0;
  void* bytes = nullptr;
  std::thread([&] {
    for (int i = 0; i < 500; ++i) made.push_back(make_pooled<Counted>(&live));
    one = make_pooled_unique<Counted>(&live);
    bytes = pool_allocate_bytes(1000, usable);
  }).join();  // the thread is gone; its blocks stay valid
  EXPECT_EQ(live, 501);
  for (auto& m : made) std::memset(m->payload, 3, sizeof m->payload);
  std::memset(bytes, 4, usable);
  made.clear();
  one.reset();
  pool_deallocate_bytes(bytes, usable);
  EXPECT_EQ(live, 0);
}
