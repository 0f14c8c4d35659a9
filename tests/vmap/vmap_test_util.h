// Helpers of the vmap tests: random inputs with the batch at a random axis, and the reference
// every vmap result is checked against: the function run on each example and the results
// stacked.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "lazax/lazax.h"

namespace lazax::vmap_test {

using Tensors = std::vector<Tensor>;
using FlatFn = std::function<Tensors(const Tensors&)>;

// One input of a case: its per-example shape and dtype, the range of its values, and whether
// it is batched.
struct Input {
  std::vector<int64_t> shape;
  DType dtype = DType::f32;
  double lo = -2, hi = 2;
  bool batched = true;
};

inline Tensor random_tensor(const std::vector<int64_t>& shape, const Input& in, std::mt19937& rng) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> real(in.lo, in.hi);
  std::uniform_int_distribution<int64_t> integer(static_cast<int64_t>(in.lo),
                                                 static_cast<int64_t>(in.hi));
  const bool is_int = !is_floating(in.dtype);
  for (double& x : v) x = is_int ? static_cast<double>(integer(rng)) : real(rng);
  return from_vector(v, shape).to(in.dtype);
}

// Every element as a double (bool and integers included), after a sync.
inline std::vector<double> values(const Tensor& t) { return t.to(DType::f64).to_vector<double>(); }

// vmap(fn) on random inputs (batch `size`, each batched input's batch at a random axis, negative
// ones included) against fn on each example, stacked.
inline void expect_vmap_matches_loop(const std::string& name, const FlatFn& fn,
                                     const std::vector<Input>& inputs, std::mt19937& rng,
                                     int64_t size = 3, double tol = 1e-5) {
  SCOPED_TRACE(name);
  Tensors args;
  std::vector<Axis> axes;
  for (const Input& in : inputs) {
    if (!in.batched) {
      args.push_back(random_tensor(in.shape, in, rng));
      axes.push_back(std::nullopt);
      continue;
    }
    const auto rank = static_cast<int64_t>(in.shape.size());
    int64_t axis = std::uniform_int_distribution<int64_t>(0, rank)(rng);
    std::vector<int64_t> shape = in.shape;
    shape.insert(shape.begin() + axis, size);
    args.push_back(random_tensor(shape, in, rng));
    // Half the time written from the end.
    axes.push_back(std::uniform_int_distribution<int>(0, 1)(rng) ? axis : axis - rank - 1);
  }
  std::vector<Tensors> per_example;
  for (int64_t b = 0; b < size; ++b) {
    Tensors ex;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!axes[i]) {
        ex.push_back(args[i]);
        continue;
      }
      int64_t a = *axes[i] < 0 ? *axes[i] + args[i].dim() : *axes[i];
      ex.push_back(args[i].select(a, b));
    }
    per_example.push_back(fn(ex));
  }
  Tensors got = vmap(fn, {.in_axes = {AxisSpec(axes)}})(args);
  ASSERT_EQ(got.size(), per_example[0].size());
  for (size_t r = 0; r < got.size(); ++r) {
    Tensors col;
    for (const Tensors& ex : per_example) col.push_back(ex[r]);
    Tensor want = stack(col, 0);
    ASSERT_EQ(got[r].type_str(), want.type_str()) << "result " << r;
    std::vector<double> g = values(got[r]), w = values(want);
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isnan(w[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << "result " << r << " at " << i;
      } else {
        EXPECT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << "result " << r << " at " << i;
      }
    }
  }
}

}  // namespace lazax::vmap_test
