// SharedAttrs: interned attribute values, reference-counted blocks for the others.
#include "lazax/ir/shared_attrs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "lazax/ir/builder.h"

namespace lazax {
namespace {

TEST(SharedAttrs, NoAttrsIsEmptyAndHashesAsNoAttrs) {
  SharedAttrs a;
  EXPECT_TRUE(std::holds_alternative<NoAttrs>(*a));
  EXPECT_EQ(a.hash(), hash_attrs(NoAttrs{}));
  SharedAttrs b = Attrs(NoAttrs{});
  EXPECT_TRUE(std::holds_alternative<NoAttrs>(*b));
  EXPECT_FALSE(b.interned());
}

TEST(SharedAttrs, EqualValuesShareOneInternedBlock) {
  SharedAttrs a = DotGeneralAttrs{{0}, {0}, {2}, {1}};
  SharedAttrs b = Attrs(DotGeneralAttrs{{0}, {0}, {2}, {1}});
  SharedAttrs c = DotGeneralAttrs{{0}, {0}, {2}, {2}};
  EXPECT_TRUE(a.interned());
  EXPECT_EQ(&*a, &*b);  // the same block
  EXPECT_NE(&*a, &*c);
  EXPECT_TRUE(attrs_equal(*a, Attrs(DotGeneralAttrs{{0}, {0}, {2}, {1}})));
  EXPECT_EQ(a.hash(), hash_attrs(*a));
  EXPECT_EQ(c.hash(), hash_attrs(*c));
  // Copies and moves keep the value.
  SharedAttrs d = a;
  SharedAttrs e = std::move(d);
  EXPECT_EQ(&*e, &*a);
  e = c;
  EXPECT_EQ(&*e, &*c);
}

TEST(SharedAttrs, ScalarConstantsAreInternedLargerOnesAreNot) {
  SharedAttrs zero = ConstantAttrs{Literal::scalar_of(DType::f32, 0.0)};
  SharedAttrs zero2 = ConstantAttrs{Literal::scalar_of(DType::f32, 0.0)};
  SharedAttrs one = ConstantAttrs{Literal::scalar_of(DType::f32, 1.0)};
  EXPECT_TRUE(zero.interned());
  EXPECT_EQ(&*zero, &*zero2);
  EXPECT_NE(&*zero, &*one);
  SharedAttrs vec = ConstantAttrs{Literal::from_vector<float>({1, 2, 3}, Shape{3})};
  EXPECT_FALSE(vec.interned());
  EXPECT_EQ(std::get<ConstantAttrs>(*vec).value.type.numel(), 3);
}

TEST(SharedAttrs, FunctionAttributesAreCountedAndFreedWithTheirLastUser) {
  Builder fb("f");
  ValueRef p = fb.param(TensorType{DType::f32, Shape{2}});
  FunctionPtr f = fb.build({fb.add(OpCode::neg, {p})});
  std::weak_ptr<const Function> weak = f;
  {
    SharedAttrs a = CallAttrs{f};
    EXPECT_FALSE(a.interned());
    SharedAttrs b = a;  // shares the block
    EXPECT_EQ(&*a, &*b);
    f.reset();
    a = SharedAttrs();
    EXPECT_FALSE(weak.expired());  // b still holds it
    EXPECT_EQ(std::get<CallAttrs>(*b).callee.get(), weak.lock().get());
  }
  EXPECT_TRUE(weak.expired());  // not kept by any table
}

TEST(SharedAttrs, InternedBlocksOutliveTheThreadThatMadeThem) {
  SharedAttrs made;
  std::thread t([&] { made = SliceAttrs{{7, 0}, {9, 4}, {1, 1}}; });
  t.join();
  EXPECT_TRUE(made.interned());
  const auto& s = std::get<SliceAttrs>(*made);
  EXPECT_EQ(s.limit_indices[0], 9);
  // This thread's table has its own block for the same value, equal in content.
  SharedAttrs here = SliceAttrs{{7, 0}, {9, 4}, {1, 1}};
  EXPECT_TRUE(attrs_equal(*here, *made));
  EXPECT_EQ(here.hash(), made.hash());
}

// Filling the intern table is for good (the cap is process-wide and interned blocks are never
// freed), so this runs in a child process (a death test that exits normally: "threadsafe" style
// re-runs the binary for just this test): the tests after it, in any order or repeat, still find
// room to intern, and the child starts from a table no other test has filled.
TEST(SharedAttrs, PastTheCapValuesGetBlocksOfTheirOwn) {
  // (The child reports what went wrong on stderr, which the parent shows, and exits with 1.)
  auto fill_the_table = [] {
    std::string wrong;
    auto check = [&](bool ok, const std::string& what) {
      if (!ok) wrong += what + "\n";
    };
    // Distinct values until interning stops (the cap bounds the tables' memory); every value
    // stays correct either way.
    std::vector<SharedAttrs> kept;
    bool stopped = false;
    for (int64_t i = 0; i < (int64_t{1} << 15) && !stopped; ++i) {
      SharedAttrs a = SliceAttrs{{i}, {i + 1}, {1}};
      check(std::get<SliceAttrs>(*a).start_indices[0] == i, "value " + std::to_string(i));
      stopped = !a.interned();
      kept.push_back(std::move(a));
    }
    check(stopped, "interning never stopped");
    check(SharedAttrs::interned_count() >= (int64_t{1} << 14),
          "stopped at " + std::to_string(SharedAttrs::interned_count()) + " interned values");
    SharedAttrs owned = ReduceAttrs{{0, 1, 2, 3, 4, 5}};
    check(!owned.interned(), "a value past the cap was interned");
    SharedAttrs copy = owned;
    check(&*copy == &*owned, "a copy of an owned block is not the same block");
    check(std::get<ReduceAttrs>(*copy).axes.size() == 6u, "the owned value changed");
    kept.clear();
    std::fputs(wrong.c_str(), stderr);
    std::exit(wrong.empty() ? 0 : 1);
  };
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fill_the_table(), testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace lazax

namespace lazax {
namespace {
TEST(SharedAttrs, PermanentBlocksAreNeverFreed) {
  Builder fb("g");
  ValueRef p = fb.param(TensorType{DType::f32, Shape{3}});
  FunctionPtr f = fb.build({fb.add(OpCode::exp, {p})});
  std::weak_ptr<const Function> weak = f;
  {
    SharedAttrs a = SharedAttrs::permanent(CallAttrs{f});
    SharedAttrs b = a;
    EXPECT_EQ(&*a, &*b);
    EXPECT_EQ(a.hash(), hash_attrs(Attrs(CallAttrs{f})));
    EXPECT_EQ(SharedAttrs::permanent(NoAttrs{}).hash(), hash_attrs(NoAttrs{}));
  }
  f.reset();
  EXPECT_FALSE(weak.expired());  // the block (made for a program cached for good) keeps it
}
}  // namespace
}  // namespace lazax
