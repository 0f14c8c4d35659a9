// Helpers of the autodiff tests: deterministic random inputs and check_grads shorthands.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/autodiff/check_grads.h"
#include "lazax/autodiff/tape.h"
#include "lazax/autodiff/transforms.h"

namespace lazax::test {

using Tensors = std::vector<Tensor>;

// Normal values (seeded), optionally shifted away from 0: |x| >= min_abs.
inline Tensor rnd(const std::vector<int64_t>& shape, uint64_t seed, DType dtype = DType::f64,
                  double min_abs = 0.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    x = normal(rng);
    if (min_abs > 0) x = (x < 0 ? -1 : 1) * (min_abs + std::abs(x));
  }
  return from_vector<double>(v, shape).to(dtype);
}

// Uniform values in [lo, hi) (seeded).
inline Tensor uniform(const std::vector<int64_t>& shape, uint64_t seed, double lo, double hi,
                      DType dtype = DType::f64) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(rng);
  return from_vector<double>(v, shape).to(dtype);
}

template <class T>
Tensor ints(const std::vector<T>& values, const std::vector<int64_t>& shape) {
  return from_vector<T>(values, shape);
}

// A single-output function as check_grads wants it.
template <class F>
FlatFn one(F f) {
  return [f](const Tensors& a) { return Tensors{f(a)}; };
}

// check_grads order 2, both modes; reports the failure through gtest.
inline void expect_grads(const FlatFn& f, const Tensors& args, int order = 2,
                         Modes modes = Modes::fwd | Modes::rev) {
  try {
    check_grads(f, args, order, modes);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
  }
}

// Records a primitive with explicit attributes.
inline Tensor op(OpCode code, const Tensors& in, Attrs attrs = NoAttrs{}) {
  return record_op(code, in, std::move(attrs))[0];
}

inline std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

}  // namespace lazax::test
