// Shape ops: reshape family, transposes, expand, slicing, cat/stack; values against plain loops.
#include "api_test_util.h"

using namespace lazax;
using namespace lazax::testing;

TEST(Reshape, KeepsRowMajorOrderAndInfersMinusOne) {
  Tensor x = from_vector<float>(iota_f(6), {2, 3});
  EXPECT_EQ(values(x.reshape({3, 2}), DType::f32, {3, 2}), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(reshape(x, {-1}).sizes(), (std::vector<int64_t>{6}));
  EXPECT_EQ(reshape(x, {1, -1, 2}).sizes(), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(x.view({6, 1}).sizes(), (std::vector<int64_t>{6, 1}));
  Tensor s = scalar_tensor(4.0);
  EXPECT_EQ(values(s.reshape({1, 1}), DType::f32, {1, 1}), (std::vector<double>{4}));
  EXPECT_EQ(values(s.reshape({1}).reshape({}), DType::f32, {}), (std::vector<double>{4}));
  EXPECT_EQ(zeros({0, 3}).reshape({3, -1}).sizes(), (std::vector<int64_t>{3, 0}));
}

TEST(Reshape, ErrorsNameBothShapesAndLeaveTheTensorUsable) {
  Tensor x = from_vector<float>(iota_f(6), {2, 3});
  Tensor y = x * 2.0;  // pending
  expect_error<ShapeError>([&] { (void)y.reshape({4, 2}); }, {"[reshape]", "f32[2,3]", "[4,2]"});
  expect_error<ShapeError>([&] { (void)y.reshape({-1, -1}); }, {"[reshape]", "only one", "-1"});
  expect_error<ShapeError>([&] { (void)y.reshape({-1, 4}); }, {"[reshape]", "f32[2,3]", "[-1,4]"});
  expect_error<ShapeError>([&] { (void)y.reshape({-2, -3}); }, {"[reshape]", "invalid size"});
  expect_error<ShapeError>([&] { (void)zeros({0}).reshape({0, -1}); }, {"[reshape]", "ambiguous"});
  EXPECT_EQ(values(y, DType::f32, {2, 3}), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(values(y.reshape({6}), DType::f32, {6}), (std::vector<double>{0, 2, 4, 6, 8, 10}));
}

TEST(Reshape, NoOpResultIsANewValue) {
  Tensor x = from_vector<float>({1, 2}, {2});
  Tensor y = x.reshape({2});
  Tensor z = x.squeeze(0);
  Tensor w = x.slice(0, 0, 2);
  y.add_(1.0);
  z.add_(2.0);
  w.add_(3.0);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{4, 5}));
}

TEST(Flatten, MergesARangeOfDims) {
  Tensor x = from_vector<float>(iota_f(24), {2, 3, 4});
  EXPECT_EQ(x.flatten().sizes(), (std::vector<int64_t>{24}));
  EXPECT_EQ(x.flatten(1).sizes(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(x.flatten(0, 1).sizes(), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(x.flatten(-2, -1).to_vector<float>(), iota_f(24));
  EXPECT_EQ(scalar_tensor(3.0).flatten().sizes(), (std::vector<int64_t>{1}));
  expect_error<ShapeError>([&] { (void)x.flatten(2, 1); }, {"[flatten]", "f32[2,3,4]"});
}

TEST(Transpose, MatchesLoops) {
  Tensor x = from_vector<float>(iota_f(24), {2, 3, 4});
  std::vector<double> want;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) want.push_back(i * 12 + j * 4 + k);
  EXPECT_EQ(values(x.transpose(0, 2), DType::f32, {4, 3, 2}), want);
  EXPECT_EQ(values(transpose(x, -1, 0), DType::f32, {4, 3, 2}), want);

  want.clear();  // permute {2, 0, 1}: out[k][i][j] = x[i][j][k]
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(i * 12 + j * 4 + k);
  EXPECT_EQ(values(x.permute({2, 0, 1}), DType::f32, {4, 2, 3}), want);
  EXPECT_EQ(values(permute(x, {-1, 0, 1}), DType::f32, {4, 2, 3}), want);

  Tensor m = from_vector<float>(iota_f(6), {2, 3});
  EXPECT_EQ(values(m.t(), DType::f32, {3, 2}), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(values(scalar_tensor(2.0).transpose(0, -1), DType::f32, {}), std::vector<double>{2});
}

TEST(Transpose, Errors) {
  Tensor x = zeros({2, 3, 4});
  expect_error<ShapeError>([&] { (void)x.permute({0, 1}); }, {"[permute]", "f32[2,3,4]"});
  expect_error<ShapeError>([&] { (void)x.permute({0, 1, 1}); }, {"[permute]", "repeat"});
  expect_error<ShapeError>([&] { (void)x.transpose(0, 3); }, {"[transpose]", "rank 3"});
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{2, 3, 4}));
}

TEST(Squeeze, UnsqueezeAndSqueeze) {
  Tensor x = from_vector<float>(iota_f(6), {2, 3});
  EXPECT_EQ(x.unsqueeze(0).sizes(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(x.unsqueeze(1).sizes(), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(x.unsqueeze(2).sizes(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(x.unsqueeze(-1).sizes(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(x.unsqueeze(-3).sizes(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(unsqueeze(scalar_tensor(1.0), 0).sizes(), (std::vector<int64_t>{1}));
  EXPECT_EQ(x.unsqueeze(1).squeeze(1).to_vector<float>(), iota_f(6));
  EXPECT_EQ(squeeze(x.unsqueeze(-1), -1).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(x.squeeze(0).sizes(), (std::vector<int64_t>{2, 3}));  // size 2: a no-op (PyTorch)
  expect_error<ShapeError>([&] { (void)x.unsqueeze(3); }, {"[unsqueeze]"});
  expect_error<ShapeError>([&] { (void)x.squeeze(2); }, {"[squeeze]"});
}

TEST(Expand, BroadcastsSizeOneAndNewLeadingDims) {
  Tensor x = from_vector<float>({1, 2, 3}, {3, 1});
  std::vector<double> want;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) want.push_back(i + 1);
  EXPECT_EQ(values(x.expand({2, 3, 4}), DType::f32, {2, 3, 4}), want);
  EXPECT_EQ(values(expand(x, {2, -1, 4}), DType::f32, {2, 3, 4}), want);
  EXPECT_EQ(values(broadcast_to(x, {2, 3, 4}), DType::f32, {2, 3, 4}), want);
  EXPECT_EQ(values(x.expand({-1, -1}), DType::f32, {3, 1}), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values(scalar_tensor(5.0, DType::i32).expand({2}), DType::i32, {2}),
            (std::vector<double>{5, 5}));
}

TEST(Expand, Errors) {
  Tensor x = from_vector<float>({1, 2, 3}, {3, 1});
  expect_error<ShapeError>([&] { (void)x.expand({4, 4}); }, {"[expand]", "f32[3,1]", "[4,4]"});
  expect_error<ShapeError>([&] { (void)x.expand({4}); }, {"[expand]", "fewer dimensions"});
  expect_error<ShapeError>([&] { (void)x.expand({-1, 3, 1}); }, {"[expand]", "-1"});
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(Slice, PyTorchSemantics) {
  Tensor x = from_vector<float>(iota_f(10), {10});
  EXPECT_EQ(values(x.slice(0, 2, 8, 3), DType::f32, {2}), (std::vector<double>{2, 5}));
  EXPECT_EQ(values(x.slice(0, -3, 10), DType::f32, {3}), (std::vector<double>{7, 8, 9}));
  EXPECT_EQ(values(x.slice(0, 1, -7), DType::f32, {2}), (std::vector<double>{1, 2}));
  EXPECT_EQ(values(x.slice(0, -100, 2), DType::f32, {2}), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(x.slice(0, 8, 1000), DType::f32, {2}), (std::vector<double>{8, 9}));
  EXPECT_EQ(x.slice(0, 6, 3).sizes(), (std::vector<int64_t>{0}));
  EXPECT_EQ(x.slice(0, 20, 30).sizes(), (std::vector<int64_t>{0}));

  Tensor m = from_vector<float>(iota_f(12), {3, 4});
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 1; j < 4; j += 2) want.push_back(i * 4 + j);
  EXPECT_EQ(values(slice(m, 1, 1, 4, 2), DType::f32, {3, 2}), want);
  EXPECT_EQ(values(m.slice(-2, 1, 2), DType::f32, {1, 4}), (std::vector<double>{4, 5, 6, 7}));
}

TEST(Slice, Errors) {
  Tensor x = from_vector<float>(iota_f(10), {10});
  expect_error<ValueError>([&] { (void)x.slice(0, 0, 5, 0); }, {"[slice]", "step", "f32[10]"});
  expect_error<ValueError>([&] { (void)x.slice(0, 0, 5, -1); }, {"[slice]", "step"});
  expect_error<ShapeError>([&] { (void)x.slice(1, 0, 5); }, {"[slice]"});
  expect_error<ShapeError>([&] { (void)scalar_tensor(1.0).slice(0, 0, 1); }, {"[slice]", "0-d"});
}

TEST(Narrow, TakesLengthElements) {
  Tensor m = from_vector<float>(iota_f(12), {3, 4});
  EXPECT_EQ(values(m.narrow(1, 1, 2), DType::f32, {3, 2}),
            (std::vector<double>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(values(narrow(m, 0, -1, 1), DType::f32, {1, 4}), (std::vector<double>{8, 9, 10, 11}));
  EXPECT_EQ(m.narrow(0, 3, 0).sizes(), (std::vector<int64_t>{0, 4}));
  expect_error<ValueError>([&] { (void)m.narrow(1, 3, 2); }, {"[narrow]", "f32[3,4]", "size 4"});
  expect_error<ValueError>([&] { (void)m.narrow(0, 5, 0); }, {"[narrow]", "out of range"});
}

TEST(Select, DropsTheDimension) {
  Tensor m = from_vector<float>(iota_f(12), {3, 4});
  EXPECT_EQ(values(m.select(0, 1), DType::f32, {4}), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(values(m.select(1, -1), DType::f32, {3}), (std::vector<double>{3, 7, 11}));
  EXPECT_EQ(values(m[2], DType::f32, {4}), (std::vector<double>{8, 9, 10, 11}));
  EXPECT_EQ(values(m[2][3], DType::f32, {}), (std::vector<double>{11}));
  EXPECT_EQ(values(select(m, -2, 0), DType::f32, {4}), (std::vector<double>{0, 1, 2, 3}));
}

TEST(Select, OutOfRangeNamesDimAndSize) {
  Tensor m = from_vector<float>(iota_f(12), {3, 4}) + 1.0;
  expect_error<ValueError>([&] { (void)m.select(0, 3); },
                           {"[select]", "index 3", "dimension 0", "size 3"});
  expect_error<ValueError>([&] { (void)m.select(1, -5); },
                           {"[select]", "index -5", "dimension 1", "size 4"});
  expect_error<ShapeError>([&] { (void)m.select(2, 0); }, {"[select]"});
  expect_error<ShapeError>([&] { (void)scalar_tensor(1.0)[0]; }, {"[select]", "0-d"});
  EXPECT_EQ(m.select(0, 0).to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Cat, JoinsAlongADim) {
  Tensor a = from_vector<float>(iota_f(6), {2, 3});
  Tensor b = from_vector<float>(iota_f(3, 10), {1, 3});
  EXPECT_EQ(values(cat({a, b}), DType::f32, {3, 3}),
            (std::vector<double>{0, 1, 2, 3, 4, 5, 10, 11, 12}));
  Tensor c = from_vector<float>(iota_f(4, 20), {2, 2});
  EXPECT_EQ(values(cat({a, c}, -1), DType::f32, {2, 5}),
            (std::vector<double>{0, 1, 2, 20, 21, 3, 4, 5, 22, 23}));
  EXPECT_EQ(values(cat({a}), DType::f32, {2, 3}), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  Tensor e = zeros({0, 3});
  EXPECT_EQ(cat({e, a, e}).sizes(), (std::vector<int64_t>{2, 3}));
}

TEST(Cat, PromotesDtypes) {
  Tensor f = from_vector<float>({0.5f}, {1});
  Tensor i = from_vector<int64_t>({2}, {1});
  Tensor j = from_vector<int32_t>({3}, {1});
  Tensor t = from_vector<bool>({true}, {1});
  EXPECT_EQ(values(cat({f, i}), DType::f32, {2}), (std::vector<double>{0.5, 2}));
  EXPECT_EQ(values(cat({j, i}), DType::i64, {2}), (std::vector<double>{3, 2}));
  EXPECT_EQ(values(cat({t, j}), DType::i32, {2}), (std::vector<double>{1, 3}));
}

TEST(Cat, Errors) {
  Tensor a = zeros({2, 3}), b = zeros({2, 4}), s = scalar_tensor(1.0);
  expect_error<ShapeError>([&] { (void)cat({a, b}); }, {"[cat]", "f32[2,3]", "f32[2,4]"});
  expect_error<ShapeError>([&] { (void)cat({a, zeros({6})}, 0); }, {"[cat]", "f32[6]"});
  expect_error<ShapeError>([&] { (void)cat({s, s}); }, {"[cat]", "0-d"});
  expect_error<ShapeError>([&] { (void)cat({a, a}, 2); }, {"[cat]"});
  expect_error<ValueError>([&] { (void)cat({}); }, {"[cat]", "empty"});
  expect_error<ValueError>([&] { (void)cat({a, Tensor()}); }, {"[cat]", "undefined"});
  EXPECT_EQ(cat({a, b}, 1).sizes(), (std::vector<int64_t>{2, 7}));
}

TEST(Stack, InsertsANewDim) {
  Tensor a = from_vector<float>({1, 2, 3}, {3});
  Tensor b = from_vector<float>({4, 5, 6}, {3});
  EXPECT_EQ(values(stack({a, b}), DType::f32, {2, 3}), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(stack({a, b}, 1), DType::f32, {3, 2}), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(values(stack({a, b}, -1), DType::f32, {3, 2}), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  Tensor s = scalar_tensor(7.0), t = scalar_tensor(8.0, DType::i64);
  EXPECT_EQ(values(stack({s, t}), DType::f32, {2}), (std::vector<double>{7, 8}));
  expect_error<ShapeError>([&] { (void)stack({a, zeros({4})}); }, {"[stack]", "f32[3]", "f32[4]"});
  expect_error<ShapeError>([&] { (void)stack({a, b}, 3); }, {"[stack]"});
  expect_error<ValueError>([&] { (void)stack({}); }, {"[stack]"});
}

TEST(TrilMask, LowerTriangleIncludingDiagonal) {
  Tensor m = tril_mask(3, 4);
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) want.push_back(j <= i);
  EXPECT_EQ(values(m, DType::boolean, {3, 4}), want);
  EXPECT_EQ(tril_mask(0, 2).sizes(), (std::vector<int64_t>{0, 2}));
  expect_error<ValueError>([&] { (void)tril_mask(-1, 2); }, {"[tril_mask]"});
}
