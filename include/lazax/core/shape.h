// Shapes (any rank, 0 upwards) and tensor types (dtype + shape), printed as f32[2,3].
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "lazax/core/dtype.h"
#include "lazax/core/small_vec.h"

namespace lazax {

using Dims = SmallVec<int64_t, 6>;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims.begin(), dims.end()) {}
  explicit Shape(Dims dims) : dims_(std::move(dims)) {}

  size_t rank() const { return dims_.size(); }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  int64_t numel() const;
  const Dims& dims() const { return dims_; }
  Dims& dims() { return dims_; }
  std::vector<int64_t> vec() const { return {dims_.begin(), dims_.end()}; }
  const int64_t* begin() const { return dims_.begin(); }
  const int64_t* end() const { return dims_.end(); }
  // Row-major (C order) element strides.
  Dims strides() const;
  std::string str() const;  // "[2,3]"

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  Dims dims_;
};

struct TensorType {
  DType dtype = DType::f32;
  Shape shape;

  int64_t numel() const { return shape.numel(); }
  size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  std::string str() const;  // "f32[2,3]"
  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
  friend bool operator!=(const TensorType& a, const TensorType& b) { return !(a == b); }
};

std::string dims_str(const Dims& d);
std::string vec_str(const std::vector<int64_t>& v);

}  // namespace lazax
