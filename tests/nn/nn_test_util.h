// Helpers of the nn tests: a small Llama configuration and tensor comparisons.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lazax/lazax.h"

namespace lazax::test {

// dim 32, 2 layers, 4 heads, hidden 48, seq 8, batch 2: small enough for the reference backend.
inline nn::LlamaConfig small_llama() {
  nn::LlamaConfig c;
  c.dim = 32;
  c.n_layers = 2;
  c.n_heads = 4;
  c.hidden = 48;
  c.seq = 8;
  c.batch = 2;
  return c;
}

inline std::vector<double> values(const Tensor& t) { return t.to(DType::f64).to_vector<double>(); }

// max |a - b| <= rtol * max |b| + atol.
inline void expect_close(const Tensor& a, const Tensor& b, double rtol, const std::string& what,
                         double atol = 1e-7) {
  ASSERT_TRUE(a.defined()) << what;
  ASSERT_TRUE(b.defined()) << what;
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  std::vector<double> x = values(a), y = values(b);
  double err = 0, scale = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err = std::max(err, std::abs(x[i] - y[i]));
    scale = std::max(scale, std::abs(y[i]));
  }
  EXPECT_LE(err, rtol * scale + atol) << what << ": max error " << err << ", max |b| " << scale;
}

}  // namespace lazax::test
