#include "lazax/ir/literal.h"

#include <cmath>
#include <sstream>

namespace lazax {

Literal Literal::zeros(const TensorType& t) {
  for (int64_t d : t.shape)
    if (d < 0) throw ShapeError("[literal] negative dimension in " + t.str());
  return Literal(t, Buffer::allocate(t.bytes()));
}

Literal Literal::scalar_of(DType t, double v) {
  Literal l = zeros(TensorType{t, Shape{}});
  dispatch_dtype(t, [&]<class T>() {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      l.data<T>()[0] = T(static_cast<float>(v));
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // Through i64, so that a negative value wraps into an unsigned dtype (-1 -> 255 for u8, as
      // torch.full) instead of the undefined double -> unsigned cast; NaN and |v| >= 2^63 give 0.
      const bool fits = std::fabs(v) < 9223372036854775808.0;  // false for NaN
      l.data<T>()[0] = static_cast<T>(fits ? static_cast<int64_t>(v) : int64_t{0});
    } else {
      l.data<T>()[0] = static_cast<T>(v);
    }
  });
  return l;
}

double Literal::at(int64_t i) const {
  return dispatch_dtype(type.dtype, [&]<class T>() -> double {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      return static_cast<double>(static_cast<float>(data<T>()[i]));
    } else {
      return static_cast<double>(data<T>()[i]);
    }
  });
}

bool Literal::bit_equal(const Literal& o) const {
  if (type != o.type) return false;
  if (type.bytes() == 0) return true;
  return std::memcmp(buffer.data(), o.buffer.data(), type.bytes()) == 0;
}

Literal Literal::clone() const {
  Literal l = zeros(type);
  if (type.bytes()) std::memcpy(l.buffer.data(), buffer.data(), type.bytes());
  return l;
}

std::string Literal::str(int64_t max_elements) const {
  std::ostringstream os;
  os << type.str() << " [";
  int64_t n = numel();
  for (int64_t i = 0; i < n && i < max_elements; ++i) {
    if (i) os << ", ";
    os << at(i);
  }
  if (n > max_elements) os << ", ...";
  os << "]";
  return os.str();
}

}  // namespace lazax
