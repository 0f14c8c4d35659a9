// The indexing ops and everyday composites of tensor.h (index_select, gather, scatter_add,
// index_put, Tensor::index, Tensor::index_put_, var, std, linspace, eye, tril, triu, one_hot,
// layer_norm, dropout): errors (named op, shapes, what to do; nothing recorded), pending index
// tensors, in-place semantics. Values against PyTorch: tests/api/torch_ops (cases_index.py).
#include "api_test_util.h"
#include "lazax/api/random.h"

using namespace lazax;
using namespace lazax::testing;
using namespace lazax::indexing;

namespace {
Tensor i64(const std::vector<int64_t>& v, const std::vector<int64_t>& shape) {
  return from_vector<int64_t>(v, shape);
}
}  // namespace

TEST(Index, GatherLikeErrors) {
  Tensor x = zeros({3, 4});
  expect_error<DTypeError>(
      [&] {
        (void)gather(x, 0, zeros({3, 4}));
      },
      {"[gather]", "f32[3,4]", "i64"});
  expect_error<ShapeError>([&] { (void)gather(x, 2, i64({0}, {1, 1})); }, {"[gather]", "2"});
  expect_error<ShapeError>([&] { (void)gather(x, 0, i64({0}, {1})); },
                           {"[gather]", "dimensions", "i64[1]"});
  expect_error<ShapeError>(
      [&] {
        (void)gather(x, 0, i64({0, 0, 0, 0, 0}, {1, 5}));
      },
      {"[gather]", "5 vs 4"});
  expect_error<ValueError>(
      [&] {
        (void)gather(x, -1, i64({4}, {1, 1}));
      },
      {"[gather]", "index 4", "size 4"});
  expect_error<ValueError>([&] { (void)index_select(x, 0, i64({-1}, {1})); },
                           {"[index_select]", "index -1"});
  expect_error<ShapeError>(
      [&] {
        (void)index_select(x, 0, i64({0}, {1, 1}));
      },
      {"[index_select]", "vector"});
  expect_error<DTypeError>(
      [&] {
        (void)scatter_add(x, 0, i64({0}, {1, 1}), zeros({1, 1}, DType::f64));
      },
      {"[scatter_add]", "f64[1,1]", ".to("});
  expect_error<ShapeError>(
      [&] {
        (void)scatter_add(x, 0, i64({0, 0}, {1, 2}), zeros({1, 1}));
      },
      {"[scatter_add]", "src"});
}

TEST(Index, PendingIndexIsNotRead) {
  // A pending index is not checked (no graph break): out of range gathers NaN.
  Tensor x = from_vector<float>({1, 2, 3}, {3});
  Tensor i = i64({0, 5}, {2}) + int64_t{0};
  ASSERT_TRUE(i.is_pending());
  std::vector<float> r = index_select(x, 0, i).to_vector<float>();
  EXPECT_EQ(r[0], 1.0f);
  EXPECT_TRUE(std::isnan(r[1]));
  // In range, the values are right.
  Tensor j = i64({2, 0, 2}, {3}) * int64_t{1};
  EXPECT_EQ(gather(x, 0, j).to_vector<float>(), (std::vector<float>{3, 1, 3}));
  EXPECT_EQ(scatter_add(x, 0, j, ones({3})).to_vector<float>(), (std::vector<float>{2, 2, 5}));
}

TEST(Index, SliceIndexing) {
  Tensor x = arange(24).reshape({2, 3, 4});
  EXPECT_EQ(values(x.index({1, Slice(None, 2), -1}), DType::i64, {2}),
            (std::vector<double>{15, 19}));
  EXPECT_EQ(x.index({Ellipsis, None, Slice(1, None, 2)}).sizes(),
            (std::vector<int64_t>{2, 3, 1, 2}));
  EXPECT_EQ(x.index({i64({1, 0, 1}, {3}), 2}).sizes(), (std::vector<int64_t>{3, 4}));
  expect_error<ValueError>([&] { (void)x.index({2}); }, {"[index]", "index 2", "size 2"});
  expect_error<ValueError>([&] { (void)x.index({0, 0, 0, 0}); }, {"[index]", "too many"});
  expect_error<ValueError>([&] { (void)x.index({Ellipsis, Ellipsis}); }, {"[index]", "Ellipsis"});
  expect_error<ValueError>([&] { (void)x.index({Slice(None, None, -1)}); }, {"[index]", "step"});
  expect_error<DTypeError>([&] { (void)x.index({x > int64_t{3}}); }, {"[index]", "bool"});
}

TEST(Index, IndexPutInPlace) {
  Tensor x = zeros({3, 4});
  Tensor alias = x;
  x.index_put_({Slice(1, None), Slice(None, None, 2)}, 5.0);
  EXPECT_EQ(values(alias, DType::f32, {3, 4}),
            (std::vector<double>{0, 0, 0, 0, 5, 0, 5, 0, 5, 0, 5, 0}));
  x.index_put_({0}, arange(0.0, 4.0));
  EXPECT_EQ(values(x.index({0}), DType::f32, {4}), (std::vector<double>{0, 1, 2, 3}));
  x.index_put_({i64({2}, {1}), i64({-1}, {1})}, full({1}, 7.0));
  EXPECT_EQ(x.index({2, 3}).item(), 7.0);
  expect_error<ShapeError>([&] { x.index_put_({0}, zeros({3})); },
                           {"[index_put_]", "f32[3]", "[4]"});
  Tensor w = zeros({2}).requires_grad_();
  expect_error<ValueError>([&] { w.index_put_({0}, 1.0); }, {"[index_put_]", "leaf"});
  Tensor y = zeros({2, 2});
  y.index_put_({1, i64({0, -1}, {2})}, 1.0);  // a tensor entry among others
  EXPECT_EQ(values(y, DType::f32, {2, 2}), (std::vector<double>{0, 0, 1, 1}));
  expect_error<DTypeError>([&] { (void)index_put(y, {i64({0}, {1})}, zeros({2}, DType::f64)); },
                           {"[index_put]", "f64[2]"});
}

TEST(Index, IndexPutGradFlowsToValue) {
  Tensor x = zeros({2, 3});
  Tensor v = from_vector<float>({1, 2, 3}, {3}).requires_grad_();
  Tensor y = x.clone();
  y.index_put_({1}, v * 2.0);
  y.sum().backward();
  EXPECT_EQ(v.grad().to_vector<float>(), (std::vector<float>{2, 2, 2}));
}

TEST(Everyday, Errors) {
  expect_error<DTypeError>([&] { (void)var(arange(4)); }, {"[var]", "i64[4]", "to(DType::f32)"});
  expect_error<ShapeError>([&] { (void)lazax::std(zeros({2}), {1}); }, {"[std]", "dimension 1"});
  expect_error<ValueError>([&] { (void)linspace(0, 1, -1); }, {"[linspace]", "-1"});
  expect_error<ValueError>([&] { (void)eye(-1); }, {"[eye]"});
  expect_error<ShapeError>([&] { (void)tril(zeros({3})); }, {"[tril]", "f32[3]"});
  expect_error<ShapeError>([&] { (void)triu(zeros({})); }, {"[triu]", "f32[]"});
  expect_error<ValueError>([&] { (void)one_hot(i64({3}, {1}), 3); }, {"[one_hot]", "3"});
  expect_error<ValueError>([&] { (void)one_hot(i64({1}, {1}) + int64_t{0}); },
                           {"[one_hot]", "num_classes"});
  expect_error<ShapeError>(
      [&] {
        (void)layer_norm(zeros({2, 3}), {2});
      },
      {"[layer_norm]", "f32[2,3]", "[2]"});
  expect_error<ValueError>([&] { (void)dropout(zeros({2}), -0.1); }, {"[dropout]", "p"});
  // one_hot with a pending tensor and num_classes given.
  EXPECT_EQ(values(one_hot(i64({1}, {1}) + int64_t{0}, 3), DType::i64, {1, 3}),
            (std::vector<double>{0, 1, 0}));
}

TEST(Everyday, VarValues) {
  Tensor x = from_vector<double>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(values(var(x), DType::f64, {}), (std::vector<double>{5.0 / 3.0}));
  EXPECT_EQ(values(x.var({1}, 0, true), DType::f64, {2, 1}), (std::vector<double>{0.25, 0.25}));
  expect_near(values(x.std({0}), DType::f64, {2}), {std::sqrt(2.0), std::sqrt(2.0)});
}

TEST(Everyday, DropoutKeepsTheExpectation) {
  manual_seed(1);
  Tensor y = dropout(ones({100, 100}), 0.3);
  std::vector<float> v = y.to_vector<float>();
  int kept = 0;
  for (float e : v) {
    EXPECT_TRUE(e == 0.0f || std::abs(e - 1.0f / 0.7f) < 1e-6f) << e;
    kept += e != 0.0f;
  }
  EXPECT_NEAR(kept / 10000.0, 0.7, 0.03);
  EXPECT_EQ(values(dropout(ones({2}), 0.5, false), DType::f32, {2}), (std::vector<double>{1, 1}));
}
