// Helpers the tests of tests/pure share: a tensor's values, and elementwise closeness.
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "lazax/api/tensor.h"

namespace lazax::pure_test {

inline std::vector<float> vec(const Tensor& t) { return t.to_vector<float>(); }

inline void expect_near(const std::vector<float>& a, const std::vector<float>& b,
                        float tol = 1e-5f) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}

}  // namespace lazax::pure_test
