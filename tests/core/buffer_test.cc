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

namespace lazax {
namespace {

// A freed large block is kept and handed to the next allocation of its size; the limit bounds
// what is kept, and clearing frees it all.
TEST(BufferCacheTest, ReusesFreedBlocksWithinTheLimit) {
  if (buffer_cache_limit() == 0) GTEST_SKIP() << "the cache is off (sanitizer build)";
  clear_buffer_cache();
  const size_t bytes = size_t{1} << 20;
  const void* first = nullptr;
  {
    Buffer b = Buffer::allocate_uninitialized(bytes);
    first = b.data();
  }
  EXPECT_EQ(memory_stats().cached_bytes, static_cast<int64_t>(bytes));
  {
    Buffer again = Buffer::allocate(bytes);  // reused, and still zero-filled by allocate
    EXPECT_EQ(again.data(), first);
    EXPECT_EQ(memory_stats().cached_bytes, 0);
    EXPECT_EQ(again.as<const uint8_t>()[bytes - 1], 0);
  }
  {
    Buffer small = Buffer::allocate_uninitialized(1000);  // below the cache's minimum size
  }
  EXPECT_EQ(memory_stats().cached_bytes, static_cast<int64_t>(bytes));
  clear_buffer_cache();
  EXPECT_EQ(memory_stats().cached_bytes, 0);
  set_buffer_cache_limit(static_cast<int64_t>(bytes) * 3 / 2);  // room for one block
  {
    Buffer a = Buffer::allocate_uninitialized(bytes);
    Buffer b = Buffer::allocate_uninitialized(bytes);
  }
  EXPECT_EQ(memory_stats().cached_bytes, static_cast<int64_t>(bytes));
  set_buffer_cache_limit(0);
  EXPECT_EQ(memory_stats().cached_bytes, 0);
  { Buffer c = Buffer::allocate_uninitialized(bytes); }
  EXPECT_EQ(memory_stats().cached_bytes, 0);
  set_buffer_cache_limit(kBufferCacheAuto);
}

// The automatic limit grows with the most bytes live at once: a block larger than the 256 MiB
// floor is kept once the process has held that much (a training step's replaced state).
TEST(BufferCacheTest, TheAutomaticLimitFollowsThePeak) {
  if (buffer_cache_limit() == 0) GTEST_SKIP() << "the cache is off (sanitizer build)";
  set_buffer_cache_limit(kBufferCacheAuto);
  clear_buffer_cache();
  const size_t big = size_t{300} << 20;  // never touched: no pages are faulted in
  const void* first = nullptr;
  {
    Buffer b = Buffer::allocate_uninitialized(big);
    first = b.data();
  }
  EXPECT_GE(buffer_cache_limit(), static_cast<int64_t>(big));
  EXPECT_EQ(memory_stats().cached_bytes, static_cast<int64_t>(big));
  {
    Buffer again = Buffer::allocate_uninitialized(big);
    EXPECT_EQ(again.data(), first);
  }
  set_buffer_cache_limit(int64_t{256} << 20);  // a fixed limit below the block frees it
  EXPECT_EQ(memory_stats().cached_bytes, 0);
  set_buffer_cache_limit(kBufferCacheAuto);
  clear_buffer_cache();
}

}  // namespace
}  // namespace lazax
