// softmax, log_softmax, logsumexp, cross_entropy, embedding: values against loops in double.
#include <limits>

#include "api_test_util.h"

using namespace lazax;
using namespace lazax::testing;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();

// Row-wise log-softmax of an [n, c] matrix in double.
std::vector<double> ref_log_softmax(const std::vector<float>& x, int n, int c) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    double m = -kInf, s = 0;
    for (int j = 0; j < c; ++j) m = std::max<double>(m, x[static_cast<size_t>(i * c + j)]);
    for (int j = 0; j < c; ++j) s += std::exp(x[static_cast<size_t>(i * c + j)] - m);
    for (int j = 0; j < c; ++j) out.push_back(x[static_cast<size_t>(i * c + j)] - m - std::log(s));
  }
  return out;
}
}  // namespace

TEST(Softmax, RowsSumToOneAndMatchLoops) {
  auto v = data_f(12, 3);
  Tensor x = from_vector<float>(v, {3, 4});
  std::vector<double> lsm = ref_log_softmax(v, 3, 4), sm;
  for (double l : lsm) sm.push_back(std::exp(l));
  expect_near(values(softmax(x, 1), DType::f32, {3, 4}), sm, 1e-6);
  expect_near(values(softmax(x, -1), DType::f32, {3, 4}), sm, 1e-6);
  expect_near(values(log_softmax(x, 1), DType::f32, {3, 4}), lsm, 1e-6);
  // Along dim 0: the transpose of the row-wise result of the transpose.
  std::vector<float> vt;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) vt.push_back(v[static_cast<size_t>(i * 4 + j)]);
  std::vector<double> lt = ref_log_softmax(vt, 4, 3), want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) want.push_back(lt[static_cast<size_t>(j * 3 + i)]);
  expect_near(values(log_softmax(x, 0), DType::f32, {3, 4}), want, 1e-6);
}

TEST(Softmax, StableForLargeInputs) {
  Tensor x = from_vector<float>({1000, 1001, 1002, -1000, -1001, -kInfF}, {2, 3});
  std::vector<float> v = {0, 1, 2};
  std::vector<double> r = ref_log_softmax(v, 1, 3);
  std::vector<double> want = {std::exp(r[0]),
                              std::exp(r[1]),
                              std::exp(r[2]),
                              1 / (1 + std::exp(-1.0)),
                              std::exp(-1.0) / (1 + std::exp(-1.0)),
                              0};
  expect_near(values(softmax(x, 1), DType::f32, {2, 3}), want, 1e-6);
  expect_near(
      values(log_softmax(x, 1), DType::f32, {2, 3}),
      {r[0], r[1], r[2], -std::log1p(std::exp(-1.0)), -1 - std::log1p(std::exp(-1.0)), -kInf},
      1e-6);
  EXPECT_EQ(values(softmax(scalar_tensor(5.0), 0), DType::f32, {}), std::vector<double>{1});
}

// As PyTorch's CPU kernels: a bf16 softmax is computed in f32 and rounded once, and its
// backward is y * (g - sum(g * y)) over the bf16 output and cotangent, in f32, rounded once.
TEST(Softmax, Bf16RunsInF32AndRoundsOnce) {
  std::vector<float> v = data_f(12, 7), gv = data_f(12, 8);
  for (float& f : v) f *= 4.0F;
  Tensor x = from_vector<float>(v, {3, 4}).to(DType::bf16);
  Tensor g = from_vector<float>(gv, {3, 4}).to(DType::bf16);
  EXPECT_EQ(softmax(x, 1).to_vector<double>(),
            softmax(x.to(DType::f32), 1).to(DType::bf16).to_vector<double>());
  Tensor xr = x.detach();
  xr.requires_grad_(true);
  Tensor y = softmax(xr, 1);
  EXPECT_EQ(y.dtype(), DType::bf16);
  (y * g).sum().backward();  // y's cotangent is g
  Tensor yf = y.detach().to(DType::f32), gf = g.to(DType::f32);
  Tensor want = (yf * (gf - (gf * yf).sum({1}, true))).to(DType::bf16);
  EXPECT_EQ(xr.grad().dtype(), DType::bf16);
  EXPECT_EQ(xr.grad().to_vector<double>(), want.to_vector<double>());
}

TEST(Softmax, Errors) {
  Tensor i = from_vector<int64_t>({1, 2}, {2});
  expect_error<DTypeError>([&] { (void)softmax(i, 0); }, {"[softmax]", "i64[2]"});
  expect_error<DTypeError>([&] { (void)log_softmax(i, 0); }, {"[log_softmax]", "i64[2]"});
  expect_error<ShapeError>([&] { (void)softmax(zeros({2}), 1); }, {"[softmax]"});
}

TEST(Logsumexp, MatchesLoopsAndHandlesInfinities) {
  auto v = data_f(12, 5);
  Tensor x = from_vector<float>(v, {3, 4});
  std::vector<double> want;
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int j = 0; j < 4; ++j)
      s += std::exp(static_cast<double>(v[static_cast<size_t>(i * 4 + j)]));
    want.push_back(std::log(s));
  }
  expect_near(values(logsumexp(x, {1}), DType::f32, {3}), want, 1e-6);
  expect_near(values(logsumexp(x, {-1}, true), DType::f32, {3, 1}), want, 1e-6);
  double all = 0;
  for (float f : v) all += std::exp(static_cast<double>(f));
  expect_near(values(logsumexp(x, {}), DType::f32, {}), {std::log(all)}, 1e-6);
  expect_near(values(logsumexp(x, {0, 1}, true), DType::f32, {1, 1}), {std::log(all)}, 1e-6);

  Tensor big = from_vector<float>({1000, 1000, -kInfF, -kInfF, kInfF, 0}, {3, 2});
  expect_near(values(logsumexp(big, {1}), DType::f32, {3}), {1000 + std::log(2.0), -kInf, kInf});
  Tensor ints = from_vector<int32_t>({0, 0}, {2});
  expect_near(values(logsumexp(ints, {0}), DType::f32, {}), {std::log(2.0)});
  EXPECT_EQ(values(logsumexp(zeros({0}), {0}), DType::f32, {}), std::vector<double>{-kInf});
}

TEST(CrossEntropy, MeanNegativeLogLikelihood) {
  auto v = data_f(12, 9);
  Tensor logits = from_vector<float>(v, {4, 3});
  std::vector<int64_t> t = {2, 0, 1, 2};
  std::vector<double> lsm = ref_log_softmax(v, 4, 3);
  double want = 0;
  for (size_t i = 0; i < 4; ++i) want -= lsm[i * 3 + static_cast<size_t>(t[i])] / 4;
  expect_near(values(cross_entropy(logits, from_vector<int64_t>(t, {4})), DType::f32, {}), {want},
              1e-6);
  std::vector<int32_t> t32(t.begin(), t.end());
  expect_near(values(cross_entropy(logits, from_vector<int32_t>(t32, {4})), DType::f32, {}), {want},
              1e-6);
  // A -inf logit in another class (a masked-out class) does not make the loss NaN.
  Tensor masked = from_vector<float>({0, 0, -kInfF}, {1, 3});
  expect_near(values(cross_entropy(masked, from_vector<int64_t>({1}, {1})), DType::f32, {}),
              {std::log(2.0)}, 1e-6);
}

TEST(CrossEntropy, Errors) {
  Tensor logits = zeros({4, 3});
  Tensor t = from_vector<int64_t>({0, 1, 2, 0}, {4});
  expect_error<DTypeError>([&] { (void)cross_entropy(logits, t.to(DType::f32)); },
                           {"[cross_entropy]", "f32[4,3]", "f32[4]"});
  expect_error<DTypeError>([&] { (void)cross_entropy(logits.to(DType::i64), t); },
                           {"[cross_entropy]", "i64[4,3]"});
  expect_error<ShapeError>([&] { (void)cross_entropy(logits, t.slice(0, 0, 3)); },
                           {"[cross_entropy]", "f32[4,3]", "i64[3]", "[N, C]"});
  expect_error<ShapeError>([&] { (void)cross_entropy(zeros({4}), t); }, {"[cross_entropy]"});
  expect_error<ShapeError>(
      [&] {
        (void)cross_entropy(logits, t.reshape({4, 1}));
      },
      {"[cross_entropy]", "i64[4,1]"});
  expect_near(values(cross_entropy(logits, t), DType::f32, {}), {std::log(3.0)}, 1e-6);
}

TEST(Embedding, PicksRows) {
  Tensor w = from_vector<float>(iota_f(12), {4, 3});  // row r = [3r, 3r+1, 3r+2]
  Tensor ids = from_vector<int64_t>({3, 0, 0, 2, 1, 3}, {2, 3});
  std::vector<double> want;
  for (int64_t id : std::vector<int64_t>{3, 0, 0, 2, 1, 3})
    for (int d = 0; d < 3; ++d) want.push_back(static_cast<double>(3 * id + d));
  EXPECT_EQ(values(embedding(w, ids), DType::f32, {2, 3, 3}), want);
  EXPECT_EQ(values(embedding(w, from_vector<int32_t>({2}, {1})), DType::f32, {1, 3}),
            (std::vector<double>{6, 7, 8}));
  EXPECT_EQ(values(embedding(w, scalar_tensor(1, DType::i64)), DType::f32, {3}),
            (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(embedding(w, zeros({0}, DType::i64)).sizes(), (std::vector<int64_t>{0, 3}));
  // Ids are not checked on the host (that would need a sync): out-of-range rows are NaN
  // (gather's fill mode), where PyTorch raises.
  std::vector<double> nan(3, std::nan(""));
  expect_near(values(embedding(w, from_vector<int64_t>({4, -1}, {2})), DType::f32, {2, 3}),
              {nan[0], nan[1], nan[2], nan[0], nan[1], nan[2]});
}

TEST(Embedding, Errors) {
  Tensor w = zeros({4, 3});
  expect_error<DTypeError>([&] { (void)embedding(w, zeros({2})); },
                           {"[embedding]", "f32[4,3]", "f32[2]"});
  expect_error<DTypeError>([&] { (void)embedding(w, from_vector<bool>({true}, {1})); },
                           {"[embedding]", "bool[1]"});
  expect_error<ShapeError>([&] { (void)embedding(zeros({12}), zeros({2}, DType::i64)); },
                           {"[embedding]", "f32[12]"});
}
