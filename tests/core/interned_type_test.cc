// core/interned_type.h: one immortal copy per distinct TensorType, the same on every thread,
// found again after the thread's small cache has been overwritten.
#include "lazax/core/interned_type.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

using namespace lazax;

TEST(InternedType, EqualTypesShareOneCopyAndDistinctTypesDoNot) {
  const TensorType& a = intern_type({DType::f32, Shape{2, 3}});
  const TensorType& b = intern_type({DType::f32, Shape{2, 3}});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a, (TensorType{DType::f32, Shape{2, 3}}));
  EXPECT_NE(&a, &intern_type({DType::f32, Shape{3, 2}}));
  EXPECT_NE(&a, &intern_type({DType::i32, Shape{2, 3}}));
  EXPECT_NE(&a, &intern_type({DType::f32, Shape{2, 3, 1}}));
  EXPECT_NE(&intern_type({DType::f32, Shape{}}), &intern_type({DType::f32, Shape{1}}));
}

TEST(InternedType, ManyTypesEvictTheThreadCacheButKeepTheirCopies) {
  // More distinct types than the per-thread cache has entries: later lookups of the first ones
  // go to the process-wide table and must find the same copies.
  std::vector<const TensorType*> first;
  for (int64_t i = 0; i < 3000; ++i) first.push_back(&intern_type({DType::f32, Shape{7, i}}));
  int64_t count = interned_type_count();
  for (int64_t i = 0; i < 3000; ++i) {
    const TensorType& t = intern_type({DType::f32, Shape{7, i}});
    ASSERT_EQ(&t, first[static_cast<size_t>(i)]) << i;
    ASSERT_EQ(t.shape[1], i);
  }
  EXPECT_EQ(interned_type_count(), count) << "nothing new was interned the second time";
}

TEST(InternedType, ThreadsGetTheSameCopies) {
  constexpr int kThreads = 4, kTypes = 800;
  std::vector<std::vector<const TensorType*>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &seen] {
      for (int64_t i = 0; i < kTypes; ++i)
        seen[static_cast<size_t>(t)].push_back(&intern_type({DType::bf16, Shape{i, 5, t % 2}}));
    });
  for (std::thread& th : threads) th.join();
  for (int t = 2; t < kThreads; ++t)
    EXPECT_EQ(seen[static_cast<size_t>(t)], seen[static_cast<size_t>(t % 2)]);
  EXPECT_NE(seen[0], seen[1]);
  // Copies made on a thread that has exited stay valid.
  EXPECT_EQ(*seen[1][3], (TensorType{DType::bf16, Shape{3, 5, 1}}));
}
