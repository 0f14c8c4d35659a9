// InlineVec's heap storage (trace/inline_vec.h), which comes from the pool allocator
// (core/pool_allocator.h): a list that grows past its inline elements keeps them and uses the
// whole block, and resize constructs and destroys elements.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "lazax/core/pool_allocator.h"
#include "lazax/trace/inline_vec.h"

using namespace lazax;

TEST(InlineVecHeap, GrowingPastInlineKeepsElementsAndUsesTheWholeBlock) {
  InlineVec<std::string, 2> v;
  for (int i = 0; i < 11; ++i) v.push_back("element number " + std::to_string(i));
  ASSERT_EQ(v.size(), 11u);
  // Doubling from 2 inline elements: 4, 8, 16 strings, and the whole of the last block.
  size_t usable = 0;
  pool_deallocate_bytes(pool_allocate_bytes(16 * sizeof(std::string), usable), usable);
  EXPECT_EQ(v.capacity(), usable / sizeof(std::string));
  EXPECT_GE(v.capacity(), 16u);
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
