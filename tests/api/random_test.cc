// Random numbers: reproducible after a seed, different on every call, right distributions, lazy,
// and no recompiles in a loop.
#include "lazax/api/random.h"

#include <cmath>

#include "api_test_util.h"
#include "lazax/core/metrics.h"

using namespace lazax;
using namespace lazax::testing;

namespace {
int64_t counter(const char* name) { return metrics::counter(name).get(); }

void mean_std(const std::vector<double>& v, double* mean, double* std) {
  double s = 0, q = 0;
  for (double x : v) s += x;
  *mean = s / static_cast<double>(v.size());
  for (double x : v) q += (x - *mean) * (x - *mean);
  *std = std::sqrt(q / static_cast<double>(v.size()));
}
}  // namespace

TEST(Random, SameSeedSameNumbers) {
  manual_seed(42);
  auto a = randn({100}).to_vector<float>();
  auto b = rand({3, 4}).to_vector<float>();
  auto c = randint(0, 10, {20}).to_vector<int64_t>();
  manual_seed(42);
  EXPECT_EQ(randn({100}).to_vector<float>(), a);
  EXPECT_EQ(rand({3, 4}).to_vector<float>(), b);
  EXPECT_EQ(randint(0, 10, {20}).to_vector<int64_t>(), c);
  manual_seed(43);
  EXPECT_NE(randn({100}).to_vector<float>(), a);
}

TEST(Random, ConsecutiveCallsDiffer) {
  manual_seed(1);
  Tensor a = randn({64}), b = randn({64});  // both pending: drawn in one graph
  EXPECT_TRUE(a.is_pending());
  EXPECT_NE(a.to_vector<float>(), b.to_vector<float>());
  Tensor c = randn({64});  // after a sync: the key moved on
  EXPECT_NE(c.to_vector<float>(), a.to_vector<float>());
  EXPECT_NE(c.to_vector<float>(), b.to_vector<float>());
}

TEST(Random, LazyOrEagerGiveTheSameStream) {
  manual_seed(5);
  Tensor a = rand({10}), b = rand({10});
  lazax::sync();
  manual_seed(5);
  Tensor c = rand({10});
  lazax::sync();
  Tensor d = rand({10});
  EXPECT_EQ(a.to_vector<float>(), c.to_vector<float>());
  EXPECT_EQ(b.to_vector<float>(), d.to_vector<float>());
}

TEST(Random, RandnMoments) {
  manual_seed(123);
  double m, s;
  mean_std(randn({10000}).to_vector<double>(), &m, &s);
  EXPECT_NEAR(m, 0.0, 0.04);  // 4 standard errors
  EXPECT_NEAR(s, 1.0, 0.03);
  std::vector<double> v = randn({100, 100}, DType::f64).to_vector<double>();
  mean_std(v, &m, &s);
  EXPECT_NEAR(m, 0.0, 0.04);
  EXPECT_NEAR(s, 1.0, 0.03);
  int64_t within_one = 0;
  for (double x : v) within_one += std::abs(x) < 1.0;
  EXPECT_NEAR(static_cast<double>(within_one) / 10000.0, 0.6827, 0.02);
}

TEST(Random, RandIsInUnitInterval) {
  manual_seed(7);
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    Tensor r = rand({10000}, t);
    EXPECT_EQ(r.dtype(), t);
    std::vector<double> v = r.to_vector<double>();
    for (double x : v) {
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
    }
    double m, s;
    mean_std(v, &m, &s);
    EXPECT_NEAR(m, 0.5, 0.02);
    EXPECT_NEAR(s, std::sqrt(1.0 / 12), 0.02);
  }
}

TEST(Random, RandintRange) {
  manual_seed(9);
  Tensor r = randint(-3, 4, {5000});
  EXPECT_EQ(r.dtype(), DType::i64);
  std::vector<int64_t> counts(7, 0);
  for (int64_t x : r.to_vector<int64_t>()) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 4);
    ++counts[static_cast<size_t>(x + 3)];
  }
  for (int64_t c : counts) EXPECT_NEAR(static_cast<double>(c), 5000.0 / 7, 120.0);
  EXPECT_EQ(values(randint(5, 6, {3}), DType::i64, {3}), (std::vector<double>{5, 5, 5}));
  int64_t big = int64_t{1} << 40;
  for (int64_t x : randint(big, big + 3, {50}).to_vector<int64_t>()) {
    EXPECT_GE(x, big);
    EXPECT_LT(x, big + 3);
  }
}

TEST(Random, Errors) {
  expect_error<ValueError>([] { (void)randint(3, 3, {2}); }, {"[randint]", "low < high"});
  expect_error<DTypeError>([] { (void)rand({2}, DType::i64); }, {"[rand]", "i64"});
  expect_error<DTypeError>([] { (void)randn({2}, DType::boolean); }, {"[randn]", "bool"});
  // A failed draw does not move the key: the next numbers are those a fresh seed gives.
  manual_seed(11);
  Tensor want = rand({4});
  manual_seed(11);
  EXPECT_THROW((void)rand({-1}), ShapeError);
  EXPECT_EQ(rand({4}).to_vector<float>(), want.to_vector<float>());
}

TEST(Random, GeneratorsAreIndependent) {
  Generator g1(99), g2(99), g3(100);
  auto a = g1.normal({16}).to_vector<float>();
  EXPECT_EQ(g2.normal({16}).to_vector<float>(), a);
  EXPECT_NE(g3.normal({16}).to_vector<float>(), a);
  EXPECT_NE(g1.normal({16}).to_vector<float>(), a);
  EXPECT_EQ(g1.initial_seed(), 99u);
  // Drawing from a generator does not touch the default one.
  manual_seed(3);
  auto d = rand({8}).to_vector<float>();
  manual_seed(3);
  (void)g1.uniform({8});
  EXPECT_EQ(rand({8}).to_vector<float>(), d);
  Tensor u = g1.uniform({4}, DType::f64);
  EXPECT_EQ(u.dtype(), DType::f64);
  EXPECT_EQ(g1.bits({3}, DType::u8).dtype(), DType::u8);
}

TEST(Random, TrainingLoopDoesNotRecompile) {
  manual_seed(0);
  Tensor w = zeros({8});
  auto step = [&] {
    Tensor noise = randn({8}) * 0.01;  // e.g. dropout noise or a perturbation
    w.add_(noise + rand({8}));
    lazax::sync();
  };
  step();
  step();  // warm: the key is now a data leaf, as in every later step
  int64_t uncached = counter("UncachedCompile");
  std::vector<float> last = w.to_vector<float>();
  for (int i = 0; i < 5; ++i) {
    step();
    std::vector<float> now = w.to_vector<float>();
    EXPECT_NE(now, last);
    last = now;
  }
  EXPECT_EQ(counter("UncachedCompile"), uncached);
}
