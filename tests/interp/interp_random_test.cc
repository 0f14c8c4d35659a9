// Reference-interpreter tests of random_bits: the Philox4x32-10 known answer, the word layout
// of each dtype, determinism, counter advance, and rough uniformity.
#include <gtest/gtest.h>

#include <set>

#include "lazax/interp/interpreter.h"
#include "lazax/ir/builder.h"

using namespace lazax;

namespace {

// Returns (bits, next_key).
std::vector<Literal> draw(int64_t seed, int64_t counter, DType dt, Shape shape) {
  Builder b;
  auto key = b.param(TensorType{DType::i64, Shape{2}});
  auto outs = b.add_multi(OpCode::random_bits, {key}, RandomBitsAttrs{std::move(shape), dt});
  auto f = b.build(outs);
  return interpret(*f,
                   std::vector<Literal>{Literal::from_vector<int64_t>({seed, counter}, Shape{2})});
}

// Random123's known answer for Philox4x32-10 with counter 0 and key 0.
constexpr uint32_t kZeroKat[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};

}  // namespace

TEST(InterpRandom, KnownAnswerI32) {
  auto r = draw(0, 0, DType::i32, Shape{4});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].type, (TensorType{DType::i32, Shape{4}}));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(static_cast<uint32_t>(r[0].data<int32_t>()[i]), kZeroKat[i]) << i;
  EXPECT_EQ(r[1].to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));  // one block used
}

TEST(InterpRandom, WordLayoutOfI64AndU8) {
  auto r64 = draw(0, 0, DType::i64, Shape{2});
  EXPECT_EQ(static_cast<uint64_t>(r64[0].data<int64_t>()[0]),
            (uint64_t{kZeroKat[1]} << 32) | kZeroKat[0]);
  EXPECT_EQ(static_cast<uint64_t>(r64[0].data<int64_t>()[1]),
            (uint64_t{kZeroKat[3]} << 32) | kZeroKat[2]);
  EXPECT_EQ(r64[1].data<int64_t>()[1], 1);

  auto r8 = draw(0, 0, DType::u8, Shape{2, 2});
  EXPECT_EQ(r8[0].to_vector<int>(), (std::vector<int>{0xd5, 0x8d, 0x4c, 0xd8}));
}

TEST(InterpRandom, SameKeySameBits) {
  auto a = draw(42, 7, DType::i32, Shape{3, 5});
  auto b = draw(42, 7, DType::i32, Shape{3, 5});
  EXPECT_TRUE(a[0].bit_equal(b[0]));
  EXPECT_TRUE(a[1].bit_equal(b[1]));
}

TEST(InterpRandom, DifferentCounterOrSeedDifferentBits) {
  auto a = draw(42, 7, DType::i32, Shape{16});
  EXPECT_FALSE(a[0].bit_equal(draw(42, 8, DType::i32, Shape{16})[0]));
  EXPECT_FALSE(a[0].bit_equal(draw(43, 7, DType::i32, Shape{16})[0]));
  // High seed bits matter too (they are Philox key word 1).
  EXPECT_FALSE(a[0].bit_equal(draw(42 + (int64_t{1} << 32), 7, DType::i32, Shape{16})[0]));
}

TEST(InterpRandom, NextKeyAdvancesByBlocksUsed) {
  EXPECT_EQ(draw(5, 10, DType::i32, Shape{9})[1].to_vector<int64_t>(),
            (std::vector<int64_t>{5, 13}));  // 9 words: 3 blocks
  EXPECT_EQ(draw(5, 10, DType::i64, Shape{3})[1].to_vector<int64_t>(),
            (std::vector<int64_t>{5, 12}));  // 6 words: 2 blocks
  EXPECT_EQ(draw(5, 10, DType::u8, Shape{0, 4})[1].to_vector<int64_t>(),
            (std::vector<int64_t>{5, 10}));  // nothing drawn
  // The counter wraps modulo 2^64.
  EXPECT_EQ(draw(5, -1, DType::i32, Shape{4})[1].to_vector<int64_t>(),
            (std::vector<int64_t>{5, 0}));
}

TEST(InterpRandom, ConsecutiveDrawsContinueTheStream) {
  // Drawing 8 words at once equals drawing 4, then 4 with the returned key.
  auto all = draw(99, 3, DType::i32, Shape{8});
  auto first = draw(99, 3, DType::i32, Shape{4});
  auto next = first[1].to_vector<int64_t>();
  auto second = draw(next[0], next[1], DType::i32, Shape{4});
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(all[0].data<int32_t>()[i], first[0].data<int32_t>()[i]);
    EXPECT_EQ(all[0].data<int32_t>()[4 + i], second[0].data<int32_t>()[i]);
  }
}

TEST(InterpRandom, ScalarShape) {
  auto r = draw(1, 2, DType::i32, Shape{});
  EXPECT_EQ(r[0].shape(), Shape{});
  EXPECT_EQ(r[1].data<int64_t>()[1], 3);
}

TEST(InterpRandom, RoughlyUniform) {
  auto r = draw(1234, 0, DType::u8, Shape{100000});
  double sum = 0;
  std::set<int> seen;
  for (int v : r[0].to_vector<int>()) {
    sum += v;
    seen.insert(v);
  }
  EXPECT_NEAR(sum / 100000, 127.5, 1.5);  // sd of the mean is about 0.23
  EXPECT_EQ(seen.size(), 256u);

  auto w = draw(1234, 0, DType::i32, Shape{20000});
  int64_t high_bit = 0;
  for (int32_t v : w[0].to_vector<int32_t>()) high_bit += v < 0;
  EXPECT_NEAR(static_cast<double>(high_bit) / 20000, 0.5, 0.03);
}
