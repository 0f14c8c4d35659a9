#include "lazax/core/shape.h"

namespace lazax {

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

Dims Shape::strides() const {
  Dims s(dims_.size(), 1);
  for (size_t i = dims_.size(); i > 1; --i) s[i - 2] = s[i - 1] * dims_[i - 1];
  return s;
}

std::string dims_str(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

std::string vec_str(const std::vector<int64_t>& v) { return dims_str(Dims(v.begin(), v.end())); }

std::string Shape::str() const { return dims_str(dims_); }

std::string TensorType::str() const { return std::string(dtype_name(dtype)) + shape.str(); }

}  // namespace lazax
