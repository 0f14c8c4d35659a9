// Helpers of the reference-interpreter kernel tests (interp_{elementwise,layout,reduce}_test):
// run a one-node program built with Builder, make and read f16/bf16 literals.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lazax/interp/interpreter.h"
#include "lazax/ir/builder.h"

namespace lazax::interp_test {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// Runs a program with one `op` node over parameters of the args' types; checks that no input
// was written to (literals share buffers).
inline std::vector<Literal> run_op(OpCode op, const std::vector<Literal>& args,
                                   Attrs attrs = NoAttrs{}) {
  Builder b;
  std::vector<ValueRef> params;
  for (const auto& a : args) params.push_back(b.param(a.type));
  auto outs = b.add_multi(op, params, std::move(attrs));
  auto f = b.build(outs);
  std::vector<Literal> before;
  for (const auto& a : args) before.push_back(a.clone());
  auto result = interpret(*f, args);
  for (size_t i = 0; i < args.size(); ++i)
    EXPECT_TRUE(args[i].bit_equal(before[i])) << op_name(op) << " wrote into input " << i;
  EXPECT_EQ(result.size(), f->results().size());
  for (size_t i = 0; i < result.size(); ++i) EXPECT_EQ(result[i].type, f->type(f->results()[i]));
  return result;
}
inline Literal run1(OpCode op, const std::vector<Literal>& args, Attrs attrs = NoAttrs{}) {
  return run_op(op, args, std::move(attrs)).at(0);
}

template <class T>
Literal lit(const std::vector<T>& v, Shape s) {
  return Literal::from_vector<T>(v, std::move(s));
}
template <class T>
Literal lit(const std::vector<T>& v) {
  return Literal::from_vector<T>(v, Shape{static_cast<int64_t>(v.size())});
}

// An f16 or bf16 literal from floats (rounded to nearest even).
template <class H>
Literal halfs(const std::vector<float>& v, Shape s) {
  std::vector<H> h;
  for (float f : v) h.push_back(H(f));
  return Literal::from_vector<H>(h, std::move(s));
}
template <class H>
Literal halfs(const std::vector<float>& v) {
  return halfs<H>(v, Shape{static_cast<int64_t>(v.size())});
}

// Rounds a float to H and back.
template <class H>
float round_to(float f) {
  return static_cast<float>(H(f));
}

inline std::vector<float> floats(const Literal& l) { return l.to_vector<float>(); }
inline std::vector<double> doubles(const Literal& l) { return l.to_vector<double>(); }
template <class T>
std::vector<T> raw(const Literal& l) {
  const T* p = l.data<T>();
  return std::vector<T>(p, p + l.numel());
}

// Element-wise equality where NaN equals NaN and the sign of zero matters; with rel > 0,
// finite nonzero values may differ by rel * |want| (libm results may differ in the last bit
// from the compiler's constant folding).
inline void expect_same(const std::vector<double>& got, const std::vector<double>& want,
                        double rel = 0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    } else if (rel > 0 && std::isfinite(want[i]) && want[i] != 0) {
      EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i])) << "element " << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of element " << i;
    }
  }
}
inline void expect_same(const Literal& got, const std::vector<double>& want, double rel = 0) {
  expect_same(got.to_vector<double>(), want, rel);
}

}  // namespace lazax::interp_test
