// Reductions: values against loops, dims handling, keepdim, PyTorch result dtypes, errors.
#include <limits>

#include "api_test_util.h"

using namespace lazax;
using namespace lazax::testing;

namespace {
// x[i][j][k] of shape [2, 3, 4] as data_f(24, 7).
struct Cube {
  std::vector<float> v = data_f(24, 7);
  Tensor t = from_vector<float>(v, {2, 3, 4});
  float at(int i, int j, int k) const { return v[static_cast<size_t>(i * 12 + j * 4 + k)]; }
};
}  // namespace

TEST(Sum, OverDimsAndAll) {
  Cube c;
  std::vector<double> want;  // sum over dim 1
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) {
      double s = 0;
      for (int j = 0; j < 3; ++j) s += c.at(i, j, k);
      want.push_back(s);
    }
  expect_near(values(c.t.sum({1}), DType::f32, {2, 4}), want, 1e-5);
  expect_near(values(sum(c.t, {-2}, true), DType::f32, {2, 1, 4}), want, 1e-5);

  want.clear();  // sum over dims 0 and 2
  for (int j = 0; j < 3; ++j) {
    double s = 0;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) s += c.at(i, j, k);
    want.push_back(s);
  }
  expect_near(values(sum(c.t, {2, 0}), DType::f32, {3}), want, 1e-5);
  expect_near(values(sum(c.t, {0, -1}, true), DType::f32, {1, 3, 1}), want, 1e-5);

  double all = 0;
  for (float x : c.v) all += x;
  expect_near(values(c.t.sum(), DType::f32, {}), {all}, 1e-5);
  expect_near(values(c.t.sum({}, true), DType::f32, {1, 1, 1}), {all}, 1e-5);
  EXPECT_EQ(values(sum(zeros({0, 3})), DType::f32, {}), std::vector<double>{0});
}

TEST(Sum, IntegerAndBoolGiveI64) {
  Tensor b = from_vector<bool>({true, false, true, true}, {2, 2});
  EXPECT_EQ(values(b.sum(), DType::i64, {}), std::vector<double>{3});
  EXPECT_EQ(values(b.sum({0}), DType::i64, {2}), (std::vector<double>{2, 1}));
  Tensor i = from_vector<int32_t>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(values(i.sum({1}), DType::i64, {2}), (std::vector<double>{3, 7}));
  Tensor u = from_vector<uint8_t>({200, 100}, {2});
  EXPECT_EQ(values(u.sum(), DType::i64, {}), std::vector<double>{300});  // no u8 wraparound
  Tensor d = from_vector<double>({0.25, 0.5}, {2});
  EXPECT_EQ(values(d.sum(), DType::f64, {}), std::vector<double>{0.75});
}

TEST(Sum, ZeroDimTensors) {
  Tensor s = scalar_tensor(2.5);
  EXPECT_EQ(values(s.sum(), DType::f32, {}), std::vector<double>{2.5});
  EXPECT_EQ(values(s.sum({0}), DType::f32, {}), std::vector<double>{2.5});
  EXPECT_EQ(values(s.sum({-1}, true), DType::f32, {}), std::vector<double>{2.5});
  EXPECT_EQ(values(scalar_tensor(3, DType::i32).sum(), DType::i64, {}), std::vector<double>{3});
}

TEST(Sum, Errors) {
  Cube c;
  expect_error<ShapeError>([&] { (void)c.t.sum({3}); }, {"[sum]", "rank 3"});
  expect_error<ValueError>([&] { (void)c.t.sum({1, -2}); }, {"[sum]", "more than once"});
  expect_error<ShapeError>([&] { (void)scalar_tensor(1.0).sum({1}); }, {"[sum]"});
  EXPECT_EQ(c.t.sum({0}).sizes(), (std::vector<int64_t>{3, 4}));
}

TEST(Mean, FloatingOnly) {
  Cube c;
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    double s = 0;
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) s += c.at(i, j, k);
    want.push_back(s / 12);
  }
  expect_near(values(c.t.mean({1, 2}), DType::f32, {2}), want, 1e-5);
  expect_near(values(mean(c.t, {-1, -2}, true), DType::f32, {2, 1, 1}), want, 1e-5);
  expect_near(values(c.t.mean(), DType::f32, {}), {(want[0] + want[1]) / 2}, 1e-5);
  expect_near(values(mean(zeros({0})), DType::f32, {}), {std::nan("")});  // as PyTorch
  Tensor i = from_vector<int64_t>({1, 2}, {2});
  expect_error<DTypeError>([&] { (void)i.mean(); }, {"[mean]", "floating", "i64[2]"});
  EXPECT_EQ(values(i.to(DType::f32).mean(), DType::f32, {}), std::vector<double>{1.5});
}

TEST(MaxMin, AmaxAminMaxProd) {
  Cube c;
  std::vector<double> mx, mn, pr;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double a = -1e30, b = 1e30, p = 1;
      for (int k = 0; k < 4; ++k) {
        a = std::max<double>(a, c.at(i, j, k));
        b = std::min<double>(b, c.at(i, j, k));
        p *= c.at(i, j, k);
      }
      mx.push_back(a);
      mn.push_back(b);
      pr.push_back(p);
    }
  EXPECT_EQ(values(c.t.amax({2}), DType::f32, {2, 3}), mx);
  EXPECT_EQ(values(amin(c.t, {-1}), DType::f32, {2, 3}), mn);
  EXPECT_EQ(values(c.t.max(2), DType::f32, {2, 3}), mx);
  EXPECT_EQ(values(max(c.t, -1, true), DType::f32, {2, 3, 1}), mx);
  expect_near(values(prod(c.t, {2}), DType::f32, {2, 3}), pr, 1e-5);
  EXPECT_EQ(values(amax(c.t), DType::f32, {}),
            (std::vector<double>{*std::max_element(mx.begin(), mx.end())}));
  Tensor i = from_vector<int32_t>({3, -2, 4}, {3});
  EXPECT_EQ(values(prod(i), DType::i64, {}), std::vector<double>{-24});
  EXPECT_EQ(values(amax(i), DType::i32, {}), std::vector<double>{4});
  Tensor b = from_vector<bool>({false, true}, {2});
  EXPECT_EQ(values(amax(b), DType::boolean, {}), std::vector<double>{1});
  EXPECT_EQ(values(amin(b), DType::boolean, {}), std::vector<double>{0});
  Tensor n = from_vector<float>({1, std::nanf(""), 3}, {3});
  expect_near(values(amax(n), DType::f32, {}), {std::nan("")});  // NaN propagates, as PyTorch
}

TEST(MaxMin, EmptyAxisIsAnError) {
  Tensor e = zeros({2, 0});
  expect_error<ValueError>([&] { (void)amax(e, {1}); }, {"[amax]", "f32[2,0]", "empty"});
  expect_error<ValueError>([&] { (void)amin(e); }, {"[amin]", "empty"});
  expect_error<ValueError>([&] { (void)e.max(1); }, {"[max]"});
  expect_error<ValueError>([&] { (void)e.argmax(1); }, {"[argmax]"});
  EXPECT_EQ(amax(e, {0}).sizes(), (std::vector<int64_t>{0}));  // reducing a non-empty dim is fine
}

// `if (t)` on several elements says what to write instead, and it works.
TEST(AnyAll, AsTheBoolMessageSays) {
  Tensor t = from_vector<float>({0, 2, 0, 1}, {2, 2});
  expect_error<ValueError>([&] { (void)static_cast<bool>(t); },
                           {"[bool]", "f32[2,2]", "t.any()", "t.all()"});
  EXPECT_EQ(values(t.any(1), DType::boolean, {2}), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(all(t, 0), DType::boolean, {2}), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(any(t, -1, true), DType::boolean, {2, 1}), (std::vector<double>{1, 1}));
  EXPECT_TRUE(static_cast<bool>(t.any()));
  EXPECT_FALSE(static_cast<bool>(all(t)));
  Tensor u = from_vector<uint8_t>({3, 0}, {2});  // u8 stays u8, as torch
  EXPECT_EQ(values(u.any(), DType::u8, {}), std::vector<double>{1});
  EXPECT_EQ(values(all(zeros({0, 3}), 1), DType::boolean, {0}), std::vector<double>{});
  expect_error<ShapeError>([&] { (void)t.all(2); }, {"[all]"});
}

TEST(Argmin, FirstMinimumAndMinValues) {
  Tensor x = from_vector<float>({1, 0, 0, 2, -9, 0, 3, -9}, {2, 4});
  EXPECT_EQ(values(x.argmin(1), DType::i64, {2}), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(argmin(x, 0, true), DType::i64, {1, 4}), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values(x.min(1), DType::f32, {2}), (std::vector<double>{0, -9}));
  EXPECT_EQ(values(min(x), DType::f32, {}), std::vector<double>{-9});
  EXPECT_EQ(values(max(x), DType::f32, {}), std::vector<double>{3});
  Tensor e = zeros({2, 0});
  expect_error<ValueError>([&] { (void)argmin(e, 1); }, {"[argmin]", "f32[2,0]", "empty"});
  expect_error<ValueError>([&] { (void)e.min(1); }, {"[min]", "empty"});
  expect_error<ValueError>([&] { (void)min(e); }, {"[min]", "f32[2,0]", "empty"});
  expect_error<ShapeError>([&] { (void)x.argmin(2); }, {"[argmin]"});
}

TEST(SortTopkFlip, ValuesIndicesAndErrors) {
  Tensor x = from_vector<float>({3, 1, 2, 1}, {4});
  auto [v, i] = sort(x);
  EXPECT_EQ(values(v, DType::f32, {4}), (std::vector<double>{1, 1, 2, 3}));
  EXPECT_EQ(values(i, DType::i64, {4}), (std::vector<double>{1, 3, 2, 0}));  // stable
  EXPECT_EQ(values(x.argsort(0, true), DType::i64, {4}), (std::vector<double>{0, 2, 1, 3}));
  auto [tv, ti] = x.topk(2);
  EXPECT_EQ(values(tv, DType::f32, {2}), (std::vector<double>{3, 2}));
  EXPECT_EQ(values(ti, DType::i64, {2}), (std::vector<double>{0, 2}));
  EXPECT_EQ(values(x.flip({0}), DType::f32, {4}), (std::vector<double>{1, 2, 1, 3}));
  expect_error<ValueError>([&] { (void)topk(x, 5); }, {"[topk]", "f32[4]", "k=5"});
  expect_error<ValueError>([&] { (void)flip(x, {0, -1}); }, {"[flip]", "more than once"});
  expect_error<ShapeError>([&] { (void)sort(x, 1); }, {"[sort]"});
  expect_error<ShapeError>([&] { (void)flip(x, {1}); }, {"[flip]"});
}

TEST(CumulativeOps, CumprodCummaxCummin) {
  Tensor x = from_vector<float>({2, 1, 3, 0}, {4});
  EXPECT_EQ(values(cumprod(x, 0), DType::f32, {4}), (std::vector<double>{2, 2, 6, 0}));
  Tensor b = from_vector<bool>({true, true, false}, {3});
  EXPECT_EQ(values(b.cumprod(0), DType::i64, {3}), (std::vector<double>{1, 1, 0}));
  auto [mv, mi] = cummax(x, 0);
  EXPECT_EQ(values(mv, DType::f32, {4}), (std::vector<double>{2, 2, 3, 3}));
  EXPECT_EQ(values(mi, DType::i64, {4}), (std::vector<double>{0, 0, 2, 2}));
  auto [nv, ni] = x.cummin(-1);
  EXPECT_EQ(values(nv, DType::f32, {4}), (std::vector<double>{2, 1, 1, 0}));
  EXPECT_EQ(values(ni, DType::i64, {4}), (std::vector<double>{0, 1, 1, 3}));
  expect_error<ShapeError>([&] { (void)cummax(x, 1); }, {"[cummax]"});
  expect_error<ShapeError>([&] { (void)cumprod(x, 1); }, {"[cumprod]"});
}

TEST(Argmax, FirstMaximumAsI64) {
  Tensor x = from_vector<float>({1, 5, 5, 2, 9, 0, 3, 9}, {2, 4});
  EXPECT_EQ(values(x.argmax(1), DType::i64, {2}), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(argmax(x, 0), DType::i64, {4}), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values(argmax(x, -1, true), DType::i64, {2, 1}), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(argmax(scalar_tensor(3.0), 0), DType::i64, {}), std::vector<double>{0});
  Tensor n = from_vector<float>({1, std::nanf(""), 3}, {3});
  EXPECT_EQ(values(argmax(n, 0), DType::i64, {}), std::vector<double>{1});  // NaN is the max
  Tensor i = from_vector<int64_t>({-5, -2, -9}, {3});
  EXPECT_EQ(values(argmax(i, 0), DType::i64, {}), std::vector<double>{1});
  expect_error<ShapeError>([&] { (void)x.argmax(2); }, {"[argmax]"});
}

TEST(Cumsum, PrefixSums) {
  Tensor x = from_vector<float>(iota_f(6, 1), {2, 3});
  EXPECT_EQ(values(cumsum(x, 1), DType::f32, {2, 3}), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(cumsum(x, -2), DType::f32, {2, 3}), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  Tensor b = from_vector<bool>({true, false, true}, {3});
  EXPECT_EQ(values(cumsum(b, 0), DType::i64, {3}), (std::vector<double>{1, 1, 2}));
  Tensor u = from_vector<uint8_t>({200, 100}, {2});
  EXPECT_EQ(values(cumsum(u, 0), DType::i64, {2}), (std::vector<double>{200, 300}));
  EXPECT_EQ(values(cumsum(scalar_tensor(2.0), 0), DType::f32, {}), std::vector<double>{2});
  expect_error<ShapeError>([&] { (void)cumsum(x, 2); }, {"[cumsum]"});
}
