// The i8 and u32 dtypes through the Tensor API: factories and reads, type promotion (PyTorch's
// rules where PyTorch has the dtype, NumPy's for u32 with the signed integers; the table was
// checked with torch.promote_types and numpy.result_type), wrap-around with integer scalars,
// shifts, reductions and random bits.
#include <sstream>

#include "api_test_util.h"
#include "lazax/api/random.h"

using namespace lazax;
using namespace lazax::testing;

namespace {
Tensor i8s(const std::vector<int8_t>& v) {
  return from_vector<int8_t>(v, {static_cast<int64_t>(v.size())});
}
Tensor u32s(const std::vector<uint32_t>& v) {
  return from_vector<uint32_t>(v, {static_cast<int64_t>(v.size())});
}
}  // namespace

TEST(Int8Uint32, FactoriesReadsAndConversions) {
  Tensor a = i8s({-128, -1, 127});
  EXPECT_EQ(a.type_str(), "i8[3]");
  EXPECT_EQ(a.to_vector<int8_t>(), (std::vector<int8_t>{-128, -1, 127}));
  EXPECT_EQ(i8s({-5}).item(), -5.0);
  Tensor u = u32s({0, 4294967295u});
  EXPECT_EQ(u.type_str(), "u32[2]");
  EXPECT_EQ(u32s({4294967295u}).item(), 4294967295.0);
  EXPECT_EQ(values(a.to(DType::u32), DType::u32, {3}),
            (std::vector<double>{4294967168, 4294967295, 127}));
  EXPECT_EQ(values(u.to(DType::i8), DType::i8, {2}), (std::vector<double>{0, -1}));
  EXPECT_EQ(values(u.to(DType::f64), DType::f64, {2}), (std::vector<double>{0, 4294967295}));
  // Negative values wrap into u32, as torch.full does for uint8.
  EXPECT_EQ(values(full({2}, -1, DType::u32), DType::u32, {2}),
            (std::vector<double>{4294967295, 4294967295}));
  EXPECT_EQ(values(full({1}, -3, DType::i8), DType::i8, {1}), (std::vector<double>{-3}));
  EXPECT_EQ(values(arange(3, DType::i8), DType::i8, {3}), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(values(ones({2}, DType::u32), DType::u32, {2}), (std::vector<double>{1, 1}));
  // Printed as numbers, never as characters (int8_t is a char type to iostreams).
  std::ostringstream printed;
  printed << a << " " << u32s({7});
  EXPECT_EQ(printed.str(), "Tensor(i8[3] [-128, -1, 127]) Tensor(u32[1] [7])");
}

TEST(Int8Uint32, PromotionTable) {
  const Tensor b = from_vector<bool>({true}, {1});
  const Tensor u8 = from_vector<uint8_t>({1}, {1});
  const Tensor i8 = i8s({1});
  const Tensor i32 = from_vector<int32_t>({1}, {1});
  const Tensor i64 = from_vector<int64_t>({1}, {1});
  const Tensor u32 = u32s({1});
  const Tensor f16 = from_vector<float>({1}, {1}).to(DType::f16);
  const Tensor bf16 = from_vector<float>({1}, {1}).to(DType::bf16);
  const Tensor f32 = from_vector<float>({1}, {1});
  const Tensor f64 = from_vector<double>({1}, {1});
  struct Row {
    const Tensor &a, &b;
    DType want;
  };
  const Row rows[] = {
      {i8, b, DType::i8},       {i8, i8, DType::i8},
      {i8, u8, DType::i32},  // NumPy and PyTorch: i16, which lazax lacks
      {i8, i32, DType::i32},    {i8, i64, DType::i64},
      {i8, u32, DType::i64},  // NumPy
      {i8, f16, DType::f16},    {i8, bf16, DType::bf16},
      {i8, f32, DType::f32},    {i8, f64, DType::f64},
      {u32, b, DType::u32},     {u32, u8, DType::u32},
      {u32, u32, DType::u32},   {u32, i32, DType::i64},  // NumPy
      {u32, i64, DType::i64},   {u32, f16, DType::f16},  // PyTorch's category rule (NumPy: f64)
      {u32, bf16, DType::bf16}, {u32, f32, DType::f32},  // PyTorch's category rule (NumPy: f64)
      {u32, f64, DType::f64},
  };
  for (const Row& r : rows) {
    EXPECT_EQ((r.a + r.b).dtype(), r.want) << r.a.type_str() << " + " << r.b.type_str();
    EXPECT_EQ((r.b * r.a).dtype(), r.want) << r.b.type_str() << " * " << r.a.type_str();
  }
  // Values survive the promotion: the narrowest common dtype holds both operands.
  EXPECT_EQ(values(i8s({-1, -128}) + from_vector<uint8_t>({255, 255}, {2}), DType::i32, {2}),
            (std::vector<double>{254, 127}));
  EXPECT_EQ(values(u32s({4294967295u}) + from_vector<int32_t>({-1}, {1}), DType::i64, {1}),
            (std::vector<double>{4294967294}));
  // A 0-d tensor of the same category does not change the dtype (PyTorch's result_type).
  EXPECT_EQ((i8 + scalar_tensor(1, DType::i64)).dtype(), DType::i8);
  EXPECT_EQ((u32 + scalar_tensor(1, DType::i8)).dtype(), DType::u32);
  EXPECT_EQ((i8 * 2.5).dtype(), DType::f32);
}

TEST(Int8Uint32, ArithmeticWrapsWithTensorsAndIntegerScalars) {
  EXPECT_EQ(values(i8s({127}) + i8s({1}), DType::i8, {1}), (std::vector<double>{-128}));
  EXPECT_EQ(values(i8s({127, -128}) + 1, DType::i8, {2}), (std::vector<double>{-128, -127}));
  EXPECT_EQ(values(i8s({-128}) - 1, DType::i8, {1}), (std::vector<double>{127}));
  EXPECT_EQ(values(-i8s({-128}), DType::i8, {1}), (std::vector<double>{-128}));
  EXPECT_EQ(values(u32s({0}) - u32s({1}), DType::u32, {1}), (std::vector<double>{4294967295}));
  EXPECT_EQ(values(u32s({0, 5}) - 1, DType::u32, {2}), (std::vector<double>{4294967295, 4}));
  EXPECT_EQ(values(u32s({65536}) * 65536, DType::u32, {1}), (std::vector<double>{0}));
  // An integer scalar is wrapped to the tensor's dtype first: 300 is 44 as i8.
  EXPECT_EQ(values(i8s({1}) + 300, DType::i8, {1}), (std::vector<double>{45}));
  // True division is floating; fmod truncates, remainder takes the divisor's sign (as torch).
  EXPECT_EQ(values(i8s({7}) / i8s({2}), DType::f32, {1}), (std::vector<double>{3.5}));
  EXPECT_EQ(values(fmod(i8s({-7, 7}), i8s({2, -2})), DType::i8, {2}), (std::vector<double>{-1, 1}));
  EXPECT_EQ(values(remainder(i8s({-7, 7}), i8s({2, -2})), DType::i8, {2}),
            (std::vector<double>{1, -1}));
  EXPECT_EQ(values(fmod(u32s({4294967295u}), u32s({10})), DType::u32, {1}),
            (std::vector<double>{5}));
}

TEST(Int8Uint32, CompareShiftAndBitwise) {
  // Unsigned order: 2^32 - 1 is the largest u32, not -1.
  EXPECT_EQ(values(u32s({4294967295u, 0}) > u32s({1, 1}), DType::boolean, {2}),
            (std::vector<double>{1, 0}));
  EXPECT_EQ(values(maximum(u32s({4294967295u}), u32s({1})), DType::u32, {1}),
            (std::vector<double>{4294967295}));
  // Right shifts: logical for u32, arithmetic for i8 (as PyTorch).
  EXPECT_EQ(values(bitwise_right_shift(u32s({2147483648u}), u32s({31})), DType::u32, {1}),
            (std::vector<double>{1}));
  EXPECT_EQ(values(bitwise_right_shift(i8s({-128}), i8s({1})), DType::i8, {1}),
            (std::vector<double>{-64}));
  EXPECT_EQ(values(bitwise_left_shift(i8s({1, 3}), i8s({7, 6})), DType::i8, {2}),
            (std::vector<double>{-128, -64}));
  EXPECT_EQ(values(bitwise_not(u32s({0})), DType::u32, {1}), (std::vector<double>{4294967295}));
  EXPECT_EQ(values(bitwise_xor(i8s({-1}), i8s({5})), DType::i8, {1}), (std::vector<double>{-6}));
}

TEST(Int8Uint32, ReductionsAndRandomBits) {
  // PyTorch's sum accumulates integers in i64.
  EXPECT_EQ(values(i8s({100, 100, 100}).sum(), DType::i64, {}), (std::vector<double>{300}));
  EXPECT_EQ(values(u32s({4294967295u, 1}).sum(), DType::i64, {}),
            (std::vector<double>{4294967296}));
  EXPECT_EQ(values(argmax(u32s({5, 4294967295u, 7}), 0), DType::i64, {}), (std::vector<double>{1}));
  Tensor bits = default_generator().bits({4}, DType::u32);
  EXPECT_EQ(bits.dtype(), DType::u32);
  EXPECT_EQ(default_generator().bits({4}, DType::i8).dtype(), DType::i8);
  expect_error<DTypeError>([&] { (void)default_generator().bits({4}, DType::f32); },
                           {"random_bits", "i8, i32, i64, u8 or u32", "f32"});
}
