// The size-class pool of core/pool_allocator.h (pool_allocate_bytes) and InlineVec's heap
// storage, which comes from it: sizes round up to powers of two from 32 bytes to 4 KiB, a freed
// block is handed out again for its class (except under AddressSanitizer, where nothing is
// kept), bigger blocks bypass the classes, and a list that moves to the heap keeps its elements.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "lazax/core/pool_allocator.h"
#include "lazax/trace/inline_vec.h"

using namespace lazax;

namespace {
constexpr bool kPoolKeepsBlocks = detail::kMaxFreeBlocks > 0;
}  // namespace

TEST(PoolBytes, SizesRoundUpToTheirClass) {
  struct Case {
    size_t asked, usable;
  };
  for (Case c : {Case{1, 32}, Case{32, 32}, Case{33, 64}, Case{240, 256}, Case{720, 1024},
                 Case{4096, 4096}, Case{4097, 4097}, Case{100000, 100000}}) {
    size_t usable = 0;
    void* p = pool_allocate_bytes(c.asked, usable);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(usable, c.usable) << "asked " << c.asked;
    std::memset(p, 0xab, usable);  // all of it is the caller's (ASan checks the bounds)
    pool_deallocate_bytes(p, usable);
  }
}

TEST(PoolBytes, AFreedBlockIsHandedOutAgainForItsClass) {
  size_t usable = 0;
  void* a = pool_allocate_bytes(200, usable);
  ASSERT_EQ(usable, 256u);
  // Given back by a size over half the block (as InlineVec does with its elements' bytes).
  pool_deallocate_bytes(a, 130);
  void* b = pool_allocate_bytes(256, usable);
  if (kPoolKeepsBlocks) {
    EXPECT_EQ(b, a);
  }
  void* c = pool_allocate_bytes(256, usable);  // none left in the class: a new block
  EXPECT_NE(c, b);
  size_t big_usable = 0;
  void* big = pool_allocate_bytes(8000, big_usable);
  EXPECT_EQ(big_usable, 8000u);
  pool_deallocate_bytes(big, big_usable);
  pool_deallocate_bytes(b, usable);
  pool_deallocate_bytes(c, usable);
}

TEST(InlineVecHeap, GrowingPastInlineKeepsElementsAndUsesTheWholeBlock) {
  InlineVec<std::string, 2> v;
  for (int i = 0; i < 11; ++i) v.push_back("element number " + std::to_string(i));
  ASSERT_EQ(v.size(), 11u);
  // Doubling from 2 inline elements: 4, 8, 16 strings; 16 fill a 512-byte class exactly.
  EXPECT_EQ(v.capacity(), 512 / sizeof(std::string));
  for (int i = 0; i < 11; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], "element number " + std::to_string(i));
  InlineVec<std::string, 2> moved = std::move(v);
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(moved.size(), 11u);
  EXPECT_EQ(moved.back(), "element number 10");
  InlineVec<std::string, 2> copy = moved;
  EXPECT_EQ(copy.size(), 11u);
  EXPECT_EQ(copy[3], "element number 3");
}

TEST(InlineVecHeap, ResizeDefaultConstructsAndDestroys) {
  auto counter = std::make_shared<int>(0);
  InlineVec<std::shared_ptr<int>, 3> v;
  v.resize(7);
  ASSERT_EQ(v.size(), 7u);
  for (auto& p : v) EXPECT_EQ(p, nullptr);
  v[5] = counter;
  EXPECT_EQ(counter.use_count(), 2);
  v.resize(2);  // element 5 is destroyed
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(counter.use_count(), 1);
  v.resize(0);
  EXPECT_TRUE(v.empty());
}
