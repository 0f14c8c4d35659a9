// Elementwise ops through the Tensor API: broadcasting, type promotion (PyTorch rules), 0-d
// tensors, host scalars, and errors that leave the operands usable.
#include "api_test_util.h"

using namespace lazax;
using namespace lazax::testing;

TEST(Promotion, MixedDtypes) {
  Tensor f = from_vector<float>({0.5f, 1.5f}, {2});
  Tensor i = from_vector<int64_t>({2, 3}, {2});
  Tensor j = from_vector<int32_t>({4, 5}, {2});
  Tensor u = from_vector<uint8_t>({250, 7}, {2});
  Tensor d = from_vector<double>({0.25, 0.75}, {2});
  EXPECT_EQ(values(f + i, DType::f32, {2}), (std::vector<double>{2.5, 4.5}));
  EXPECT_EQ(values(i * f, DType::f32, {2}), (std::vector<double>{1, 4.5}));
  EXPECT_EQ(values(j * 2.5, DType::f32, {2}), (std::vector<double>{10, 12.5}));
  // A double is a floating scalar, whole or not (as a Python float in PyTorch).
  EXPECT_EQ(values(j * 2.0, DType::f32, {2}), (std::vector<double>{8, 10}));
  EXPECT_EQ(values(j * scalar_tensor(2, DType::i64), DType::i32, {2}),
            (std::vector<double>{8, 10}));
  EXPECT_EQ(values(f.to(DType::f16) * 2.0, DType::f16, {2}), (std::vector<double>{1, 3}));
  EXPECT_EQ(values(2.5 - j, DType::f32, {2}), (std::vector<double>{-1.5, -2.5}));
  EXPECT_EQ(values(j + i, DType::i64, {2}), (std::vector<double>{6, 8}));
  EXPECT_EQ(values(u + j, DType::i32, {2}), (std::vector<double>{254, 12}));
  EXPECT_EQ(values(f * d, DType::f64, {2}), (std::vector<double>{0.125, 1.125}));
  EXPECT_EQ(values(f * 0.5, DType::f32, {2}), (std::vector<double>{0.25, 0.75}));
  expect_near(values(i / j, DType::f32, {2}), {0.5, 0.6});  // true division
  EXPECT_EQ(values(f.to(DType::f16) + f, DType::f32, {2}), (std::vector<double>{1, 3}));
}

TEST(Promotion, Bools) {
  Tensor a = from_vector<bool>({true, true, false, false}, {4});
  Tensor b = from_vector<bool>({true, false, true, false}, {4});
  EXPECT_EQ(values(a + b, DType::boolean, {4}), (std::vector<double>{1, 1, 1, 0}));  // or
  EXPECT_EQ(values(a * b, DType::boolean, {4}), (std::vector<double>{1, 0, 0, 0}));  // and
  EXPECT_EQ(values(a + a.to(DType::i32), DType::i32, {4}), (std::vector<double>{2, 2, 0, 0}));
  EXPECT_EQ(values(a * 3.0, DType::f32, {4}), (std::vector<double>{3, 3, 0, 0}));
  EXPECT_EQ(values(a * scalar_tensor(3, DType::i64), DType::i64, {4}),
            (std::vector<double>{3, 3, 0, 0}));
  EXPECT_EQ(values(a * 0.5, DType::f32, {4}), (std::vector<double>{0.5, 0.5, 0, 0}));
  expect_error<DTypeError>([&] { (void)(a - b); }, {"[sub]", "bool"});
  expect_error<DTypeError>([&] { (void)(a - 1.5); }, {"[sub]", "bool"});  // any bool operand
  EXPECT_EQ(values(maximum(a, b), DType::boolean, {4}), (std::vector<double>{1, 1, 1, 0}));
}

// A 0-d tensor next to one with dimensions changes the dtype only when its category is higher.
TEST(Promotion, ZeroDimTensorsRankBelowDimensionedOnes) {
  Tensor h = from_vector<float>({1.5f, 2}, {2}).to(DType::f16);
  Tensor i = from_vector<int32_t>({4, 5}, {2});
  EXPECT_EQ((h + scalar_tensor(0.5, DType::f64)).dtype(), DType::f16);
  EXPECT_EQ((scalar_tensor(0.5, DType::f64) * h).dtype(), DType::f16);
  EXPECT_EQ((i + scalar_tensor(1, DType::i64)).dtype(), DType::i32);
  EXPECT_EQ(values(i + scalar_tensor(0.5, DType::f64), DType::f64, {2}),
            (std::vector<double>{4.5, 5.5}));
  EXPECT_EQ((i.to(DType::boolean) + scalar_tensor(2, DType::u8)).dtype(), DType::u8);
  EXPECT_EQ((scalar_tensor(1, DType::i32) + scalar_tensor(1, DType::i64)).dtype(), DType::i64);
  EXPECT_EQ(lt(h, scalar_tensor(1.75, DType::f64)).dtype(), DType::boolean);
}

// In-place arithmetic refuses a result its target cannot hold (PyTorch's can_cast).
TEST(Promotion, InPlaceKeepsTheTargetsKind) {
  Tensor i = from_vector<int32_t>({4, 5}, {2});
  expect_error<DTypeError>([&] { i.add_(1.0); }, {"[add_]", "f32", "i32[2]"});
  expect_error<DTypeError>([&] { i.mul_(from_vector<float>({1, 2}, {2})); }, {"[mul_]"});
  Tensor b = from_vector<bool>({true, false}, {2});
  expect_error<DTypeError>([&] { b.add_(i); }, {"[add_]", "bool"});
  EXPECT_EQ(values(i, DType::i32, {2}), (std::vector<double>{4, 5}));  // unchanged
  i.add_(from_vector<int64_t>({1, 1}, {2}));                           // i64 into i32: fine
  EXPECT_EQ(values(i, DType::i32, {2}), (std::vector<double>{5, 6}));
  Tensor f = from_vector<float>({1, 2}, {2}).to(DType::f16);
  f.div_(4.0);
  EXPECT_EQ(values(f, DType::f16, {2}), (std::vector<double>{0.25, 0.5}));
}

TEST(Broadcasting, ShapesAndZeroDimTensors) {
  Tensor col = from_vector<float>({1, 2, 3}, {3, 1});
  Tensor row = from_vector<float>({10, 20, 30, 40}, {4});
  std::vector<double> want;
  for (int i = 1; i <= 3; ++i)
    for (int j = 1; j <= 4; ++j) want.push_back(i + 10 * j);
  EXPECT_EQ(values(col + row, DType::f32, {3, 4}), want);
  EXPECT_EQ(values(row + col, DType::f32, {3, 4}), want);

  Tensor s = scalar_tensor(2.0);
  EXPECT_EQ(values(s * row, DType::f32, {4}), (std::vector<double>{20, 40, 60, 80}));
  EXPECT_EQ(values(s + s, DType::f32, {}), (std::vector<double>{4}));
  Tensor si = scalar_tensor(3.0, DType::i64);
  EXPECT_EQ(values(si * s, DType::f32, {}), (std::vector<double>{6}));
  EXPECT_EQ(values(si + from_vector<int64_t>({1, 2}, {2}), DType::i64, {2}),
            (std::vector<double>{4, 5}));
  EXPECT_EQ(values(s * from_vector<int64_t>({1, 2}, {2}), DType::f32, {2}),
            (std::vector<double>{2, 4}));
  Tensor empty = zeros({0, 4});
  EXPECT_EQ((empty + row).sizes(), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(values(where(col > 1.5, col, s), DType::f32, {3, 1}), (std::vector<double>{2, 2, 3}));
}

TEST(Broadcasting, ErrorsLeaveOperandsUsable) {
  Tensor a = from_vector<float>({1, 2, 3}, {3}) * 2.0;
  Tensor b = from_vector<float>({1, 2}, {2});
  expect_error<ShapeError>([&] { (void)(a + b); }, {"[add]", "[3]", "[2]"});
  expect_error<ShapeError>(
      [&] {
        (void)mul(a.reshape({3, 1}), zeros({2, 2}));
      },
      {"[mul]", "[3,1]", "[2,2]"});
  EXPECT_EQ(values(a, DType::f32, {3}), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(values(b + 1.0, DType::f32, {2}), (std::vector<double>{2, 3}));
}

TEST(Composites, ActivationsMatchFormulas) {
  std::vector<float> v = {-2, -0.5f, 0, 0.5f, 3};
  Tensor x = from_vector<float>(v, {5});
  std::vector<double> relu_w, silu_w, gelu_w;
  for (float f : v) {
    double d = f;
    relu_w.push_back(std::max(d, 0.0));
    silu_w.push_back(d / (1 + std::exp(-d)));
    gelu_w.push_back(0.5 * d * (1 + std::erf(d / std::sqrt(2.0))));
  }
  EXPECT_EQ(values(relu(x), DType::f32, {5}), relu_w);
  expect_near(values(silu(x), DType::f32, {5}), silu_w, 1e-6);
  expect_near(values(gelu(x), DType::f32, {5}), gelu_w, 1e-6);
  EXPECT_EQ(values(relu(from_vector<int32_t>({-1, 2}, {2})), DType::i32, {2}),
            (std::vector<double>{0, 2}));
  std::vector<double> tanh_w;
  for (float f : v) {
    double d = f;
    tanh_w.push_back(0.5 * d * (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d))));
  }
  expect_near(values(gelu(x, /*tanh_approximation=*/true), DType::f32, {5}), tanh_w, 1e-6);
}

TEST(Elementwise, RoundIsHalfToEvenAndClampKeepsPyTorchsOrder) {
  Tensor x = from_vector<float>({0.5f, 1.5f, 2.5f, -0.5f, -2.5f, -0.3f, 0.7f, 3.2f}, {8});
  Tensor r = round(x);
  EXPECT_EQ(values(r, DType::f32, {8}), (std::vector<double>{0, 2, 2, -0.0, -2, -0.0, 1, 3}));
  EXPECT_TRUE(std::signbit(r.to_vector<double>()[3]));  // round(-0.5) is -0.0
  expect_near(values(clamp(x, -1.0, 2.0), DType::f32, {8}), {0.5, 1.5, 2, -0.5, -1, -0.3, 0.7, 2});
  EXPECT_EQ(values(clamp(x, 2.0, -1.0), DType::f32, {8}), std::vector<double>(8, -1.0));  // hi wins
  EXPECT_EQ(values(clamp(from_vector<int32_t>({-3, 9}, {2}), 0.0, 5.0), DType::f32, {2}),
            (std::vector<double>{0, 5}));
  expect_error<ValueError>([&] { (void)clamp(x, std::nullopt, std::nullopt); }, {"[clamp]"});
}

// fmod/remainder take no bool; the bitwise ops no floats; the shifts neither (as PyTorch).
TEST(ElementwiseErrors, RemainderBitwiseAndShiftDtypes) {
  Tensor f = from_vector<float>({1.5f, 2}, {2});
  Tensor i = from_vector<int32_t>({1, 2}, {2});
  Tensor b = from_vector<bool>({true, false}, {2});
  expect_error<DTypeError>([&] { (void)fmod(b, b); }, {"[fmod]", "bool[2]", "convert"});
  expect_error<DTypeError>([&] { (void)remainder(b, b); }, {"[remainder]", "bool[2]"});
  expect_error<DTypeError>([&] { (void)bitwise_and(f, i); }, {"[bitwise_and]", "f32[2]", "i32[2]"});
  expect_error<DTypeError>([&] { (void)bitwise_xor(i, f); }, {"[bitwise_xor]", "integer or bool"});
  expect_error<DTypeError>([&] { (void)bitwise_not(f); }, {"[bitwise_not]", "f32[2]"});
  expect_error<DTypeError>([&] { (void)bitwise_left_shift(b, b); },
                           {"[bitwise_left_shift]", "bool[2]", "integer"});
  expect_error<DTypeError>([&] { (void)i.bitwise_right_shift(f); }, {"[bitwise_right_shift]"});
  expect_error<ShapeError>([&] { (void)fmod(f, from_vector<float>({1, 2, 3}, {3})); }, {"[fmod]"});
  // Integer and bool tensors are finite; ceil of an integer is itself.
  EXPECT_EQ(isfinite(i).to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(ceil(i).to_vector<int32_t>(), (std::vector<int32_t>{1, 2}));
  // The one-sided clamp is one primitive with an infinite other bound.
  EXPECT_EQ(clamp(f, 1.75, std::nullopt).to_vector<float>(), (std::vector<float>{1.75f, 2}));
}
