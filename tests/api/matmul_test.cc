// matmul: PyTorch semantics (1-D promotion, batch broadcasting, dtype promotion) against loops.
#include "api_test_util.h"

using namespace lazax;
using namespace lazax::testing;

namespace {

// Reference: a [..., n, k] x b [..., k, m] with NumPy broadcasting of the batch dims, both given
// as full shapes (1-D promotion is done by the caller).
std::vector<double> ref_matmul(const std::vector<float>& a, std::vector<int64_t> as,
                               const std::vector<float>& b, std::vector<int64_t> bs,
                               std::vector<int64_t>* out_shape) {
  size_t nb = std::max(as.size(), bs.size()) - 2;
  while (as.size() < nb + 2) as.insert(as.begin(), 1);
  while (bs.size() < nb + 2) bs.insert(bs.begin(), 1);
  std::vector<int64_t> batch(nb);
  int64_t nbatch = 1;
  for (size_t i = 0; i < nb; ++i) nbatch *= batch[i] = std::max(as[i], bs[i]);
  int64_t n = as[nb], k = as[nb + 1], m = bs[nb + 1];
  *out_shape = batch;
  out_shape->push_back(n);
  out_shape->push_back(m);
  std::vector<double> out;
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    // Offsets of this batch element in a and b (size-1 batch dims broadcast).
    int64_t rem = bi, oa = 0, ob = 0, sa = 1, sb = 1;
    for (size_t d = nb; d-- > 0;) {
      int64_t idx = rem % batch[d];
      rem /= batch[d];
      oa += (as[d] == 1 ? 0 : idx) * sa;
      ob += (bs[d] == 1 ? 0 : idx) * sb;
      sa *= as[d];
      sb *= bs[d];
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += static_cast<double>(a[static_cast<size_t>(oa * n * k + i * k + p)]) *
                 b[static_cast<size_t>(ob * k * m + p * m + j)];
        out.push_back(acc);
      }
  }
  return out;
}

int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

void check(const std::vector<int64_t>& as, const std::vector<int64_t>& bs) {
  SCOPED_TRACE(vec_str(as) + " x " + vec_str(bs));
  auto a = data_f(numel(as), 1), b = data_f(numel(bs), 2);
  std::vector<int64_t> ra = as, rb = bs, shape;
  if (as.size() == 1) ra.insert(ra.begin(), 1);
  if (bs.size() == 1) rb.push_back(1);
  std::vector<double> want = ref_matmul(a, ra, b, rb, &shape);
  if (as.size() == 1) shape.erase(shape.end() - 2);
  if (bs.size() == 1) shape.pop_back();
  Tensor r = matmul(from_vector<float>(a, as), from_vector<float>(b, bs));
  expect_near(values(r, DType::f32, shape), want, 1e-5);
}

}  // namespace

TEST(Matmul, AllRankCombinations) {
  check({4}, {4});
  check({2, 3}, {3, 5});
  check({3}, {3, 5});
  check({2, 3}, {3});
  check({4, 2, 3}, {4, 3, 5});
  check({4, 2, 3}, {3, 5});        // N-D x 2-D
  check({2, 3}, {4, 3, 5});        // 2-D x N-D
  check({3}, {4, 3, 5});           // 1-D x N-D
  check({4, 2, 3}, {3});           // N-D x 1-D
  check({2, 1, 3, 4}, {5, 4, 2});  // batch broadcasting
  check({1, 3, 4}, {6, 4, 2});
  check({2, 0, 3}, {2, 3, 4});  // empty dimension
  check({2, 3, 0}, {2, 0, 4});  // empty contraction: zeros
}

TEST(Matmul, ScalarResultOfVectors) {
  Tensor r = matmul(from_vector<float>({1, 2, 3}, {3}), from_vector<float>({4, 5, 6}, {3}));
  EXPECT_EQ(values(r, DType::f32, {}), (std::vector<double>{32}));
}

TEST(Matmul, SameDtypeOnly) {
  Tensor i = from_vector<int64_t>({1, 2, 3, 4}, {2, 2});
  Tensor f = from_vector<float>({0.5f, 1.5f}, {2});
  EXPECT_EQ(values(matmul(i, i), DType::i64, {2, 2}), (std::vector<double>{7, 10, 15, 22}));
  EXPECT_EQ(values(matmul(i.to(DType::f32), f), DType::f32, {2}), (std::vector<double>{3.5, 7.5}));
  // As PyTorch: mixed dtypes are an error naming both, never a silent promotion.
  expect_error<DTypeError>([&] { (void)matmul(i, f); }, {"[matmul]", "i64[2,2]", "f32[2]", ".to("});
  Tensor j = from_vector<int32_t>({1, 1}, {2});
  expect_error<DTypeError>([&] { (void)matmul(j, i); }, {"[matmul]", "i32[2]", "i64[2,2]"});
  expect_error<DTypeError>([&] { (void)matmul(f, f.to(DType::f64)); }, {"[matmul]", "f64[2]"});
}

TEST(Matmul, Errors) {
  Tensor a = zeros({2, 3}), b = zeros({4, 5});
  expect_error<ShapeError>([&] { (void)matmul(a, b); }, {"[matmul]", "f32[2,3]", "f32[4,5]"});
  expect_error<ShapeError>([&] { (void)matmul(zeros({3}), zeros({4})); }, {"[matmul]", "3 vs 4"});
  expect_error<ShapeError>(
      [&] {
        (void)matmul(zeros({2, 2, 3}), zeros({3, 3, 1}));
      },
      {"[matmul]", "batch", "2 vs 3"});
  expect_error<ShapeError>([&] { (void)matmul(scalar_tensor(1.0), a); }, {"[matmul]", "f32[]"});
  Tensor t = from_vector<bool>({true, false}, {2});
  expect_error<DTypeError>([&] { (void)matmul(t, t); }, {"[matmul]", "bool"});
  EXPECT_EQ(matmul(a, a.t()).sizes(), (std::vector<int64_t>{2, 2}));
}
