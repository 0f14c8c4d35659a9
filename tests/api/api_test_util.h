// Helpers shared by the api tests: value checks against plain C++ references and error checks.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/core/error.h"

namespace lazax::testing {

// Values of `t` (any dtype) as doubles, after checking its dtype and shape.
inline std::vector<double> values(const Tensor& t, DType dtype, const std::vector<int64_t>& shape) {
  EXPECT_EQ(t.dtype(), dtype) << t.type_str();
  EXPECT_EQ(t.sizes(), shape) << t.type_str();
  return t.to_vector<double>();
}

inline void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                        double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "element " << i;
    }
  }
}

// `f` throws exactly an E (or a subclass), whose message contains every one of `needles`.
template <class E, class F>
void expect_error(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
    ADD_FAILURE() << "expected an exception";
  } catch (const E& e) {
    std::string msg = e.what();
    for (const std::string& n : needles)
      EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

// Row-major linear index helpers for reference loops.
inline std::vector<float> iota_f(int64_t n, float start = 0.0f, float step = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

// Deterministic pseudo-random test data (no dependence on lazax's generator).
inline std::vector<float> data_f(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int32_t>(s >> 8) % 2001 - 1000) / 250.0f;
  }
  return v;
}

}  // namespace lazax::testing
