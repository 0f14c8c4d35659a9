// Buffer: a failed allocation is a lazax error naming the bytes, not std::bad_alloc (issue 20).
#include "lazax/core/buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazax/core/error.h"

namespace lazax {
namespace {

// AddressSanitizer aborts on a request larger than it supports (allocator_may_return_null=0), so
// under it only the size that overflows the rounding is asked for.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

TEST(Buffer, OutOfMemoryIsAnErrorNamingTheBytes) {
  std::vector<size_t> sizes = {SIZE_MAX - 8};
  if (!kSanitized) sizes.push_back(size_t{1} << 62);
  for (size_t bytes : sizes) {
    try {
      (void)Buffer::allocate(bytes);
      FAIL() << "allocated " << bytes << " bytes";
    } catch (const OutOfMemoryError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot allocate " + std::to_string(bytes) + " bytes"),
                std::string::npos)
          << e.what();
    }
  }
  const MemoryStats before = memory_stats();
  Buffer b = Buffer::allocate(100);  // and allocation still works afterwards
  EXPECT_TRUE(b.defined());
  EXPECT_EQ(memory_stats().live_buffers, before.live_buffers + 1);
}

}  // namespace
}  // namespace lazax
