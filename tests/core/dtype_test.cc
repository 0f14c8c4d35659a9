#include "lazax/core/dtype.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lazax/core/shape.h"

using namespace lazax;

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  EXPECT_FALSE(dtype_from_name("f33").has_value());
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
}

TEST(DType, Int8AndUint32) {
  EXPECT_EQ(dtype_name(DType::i8), "i8");
  EXPECT_EQ(dtype_name(DType::u32), "u32");
  EXPECT_EQ(dtype_from_name("i8"), DType::i8);
  EXPECT_EQ(dtype_from_name("u32"), DType::u32);
  EXPECT_EQ(dtype_size(DType::i8), 1u);
  EXPECT_EQ(dtype_size(DType::u32), 4u);
  EXPECT_TRUE(is_integer(DType::i8) && is_signed_integer(DType::i8));
  EXPECT_TRUE(is_integer(DType::u32) && !is_signed_integer(DType::u32));
  EXPECT_FALSE(is_floating(DType::i8) || is_floating(DType::u32));
  // The existing values do not move (programs and seeds name them by number).
  EXPECT_EQ(static_cast<int>(DType::boolean), 7);
  EXPECT_EQ(static_cast<int>(DType::i8), 8);
  EXPECT_EQ(static_cast<int>(DType::u32), 9);
  EXPECT_EQ(dtype_of<int8_t>(), DType::i8);
  EXPECT_EQ(dtype_of<uint32_t>(), DType::u32);
  EXPECT_EQ(dispatch_dtype(DType::u32, []<class T>() { return sizeof(T); }), 4u);
}

TEST(DType, HalfConversions) {
  EXPECT_EQ(static_cast<float>(f16(1.0f)), 1.0f);
  EXPECT_EQ(f16(1.0f).bits, 0x3c00);
  EXPECT_EQ(f16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(f16(70000.0f).bits, 0x7c00);
  EXPECT_TRUE(std::isnan(static_cast<float>(f16(NAN))));
  EXPECT_EQ(static_cast<float>(f16(5.9604644775390625e-8f)), 5.9604644775390625e-8f);
  EXPECT_EQ(f16(1.0f + 1.0f / 4096).bits, 0x3c00);  // ties to even
  EXPECT_EQ(static_cast<float>(bf16(1.0f)), 1.0f);
  EXPECT_EQ(bf16(1.00390625f).bits, 0x3f80);  // ties to even
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16(NAN))));
}

TEST(Shape, Basics) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.strides()[0], 12);
  EXPECT_EQ(Shape{}.numel(), 1);
  EXPECT_EQ((TensorType{DType::f32, s}).str(), "f32[2,3,4]");
  EXPECT_EQ((TensorType{DType::boolean, Shape{}}).str(), "bool[]");
  Shape big{1, 2, 3, 4, 5, 6, 7, 8};  // beyond the inline capacity
  EXPECT_EQ(big.rank(), 8u);
  EXPECT_EQ(big.numel(), 40320);
}
