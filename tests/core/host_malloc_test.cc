// Linking lazax leaves the host's allocator alone (DECISIONS.md, "Allocator"): this test binary
// links lazax_core like any user program, and malloc and operator new must still be glibc's and
// libstdc++'s after lazax loaded mimalloc for its own blocks. With LAZAX_OVERRIDE_MALLOC=ON the
// host asked for mimalloc, and gets it.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "lazax/core/pool_allocator.h"

using namespace lazax;

namespace {
// The file name of the shared object that the program's `symbol` resolves to.
std::string library_of(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info{};
  if (!address || !dladdr(address, &info) || !info.dli_fname) return "(not found)";
  return info.dli_fname;
}
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(HostMalloc, LinkingLazaxKeepsTheHostsMalloc) {
  size_t usable = 0;
  pool_deallocate_bytes(pool_allocate_bytes(64, usable), usable);  // loads mimalloc, if built
#if LAZAX_HAVE_MIMALLOC
  EXPECT_STREQ(pool_allocator_name(), "mimalloc");
#else
  EXPECT_STREQ(pool_allocator_name(), "operator new");
#endif
  std::string malloc_lib = library_of("malloc"), new_lib = library_of("_Znwm");
#if LAZAX_OVERRIDE_MALLOC
  EXPECT_TRUE(contains(malloc_lib, "mimalloc")) << malloc_lib;
#else
  // (The sanitizers' runtime interposes malloc in their builds: it is linked into the program.)
  if (!contains(malloc_lib, "libasan")) {
    EXPECT_TRUE(contains(malloc_lib, "libc.so")) << "malloc is " << malloc_lib;
    EXPECT_TRUE(contains(new_lib, "libstdc++")) << "operator new is " << new_lib;
  }
#endif
}
