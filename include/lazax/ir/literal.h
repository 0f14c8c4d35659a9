// A Literal is a typed, immutable-by-convention array on the host: the value of a `constant`
// node and what the reference interpreter computes with.
#pragma once
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "lazax/core/buffer.h"
#include "lazax/core/error.h"
#include "lazax/core/shape.h"

namespace lazax {

struct Literal {
  TensorType type;
  Buffer buffer;

  Literal() = default;
  Literal(TensorType t, Buffer b) : type(std::move(t)), buffer(std::move(b)) {}
  // Zero-filled literal of the given type.
  static Literal zeros(const TensorType& t);
  template <class T>
  static Literal from_vector(const std::vector<T>& v, Shape shape) {
    TensorType t{dtype_of<T>(), std::move(shape)};
    if (static_cast<size_t>(t.numel()) != v.size())
      throw ShapeError("[literal] " + std::to_string(v.size()) + " values do not fill shape " +
                       t.shape.str());
    Literal l = zeros(t);
    for (size_t i = 0; i < v.size(); ++i) l.data<T>()[i] = v[i];
    return l;
  }
  template <class T>
  static Literal scalar(T v) {
    return from_vector<T>({v}, Shape{});
  }
  // Scalar of dtype `t` holding `v` converted to it.
  static Literal scalar_of(DType t, double v);

  int64_t numel() const { return type.numel(); }
  DType dtype() const { return type.dtype; }
  const Shape& shape() const { return type.shape; }
  template <class T>
  T* data() {
    return buffer.as<T>();
  }
  template <class T>
  const T* data() const {
    return buffer.as<T>();
  }
  // Element i (row-major) converted to double, whatever the dtype.
  double at(int64_t i) const;
  // Copies values (converted) into a vector.
  template <class T>
  std::vector<T> to_vector() const {
    std::vector<T> out(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) out[static_cast<size_t>(i)] = static_cast<T>(at(i));
    return out;
  }
  // Bitwise equality of type and contents.
  bool bit_equal(const Literal& o) const;
  // A deep copy with its own buffer.
  Literal clone() const;
  std::string str(int64_t max_elements = 64) const;
};

// Pointers to each of `values`, for the interfaces that read their arguments in place.
inline std::vector<const Literal*> pointers_to(std::span<const Literal> values) {
  std::vector<const Literal*> out;
  out.reserve(values.size());
  for (const Literal& v : values) out.push_back(&v);
  return out;
}

}  // namespace lazax
