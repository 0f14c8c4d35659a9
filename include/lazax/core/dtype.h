// Element types, their sizes and names, and the 16-bit float storage types.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace lazax {

// New dtypes are appended, so that the values of the existing ones never change.
enum class DType : uint8_t { f32, f64, f16, bf16, i32, i64, u8, boolean, i8, u32 };
inline constexpr int kNumDTypes = 10;

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);  // "f32", ..., "bool" (the text-form spelling)
std::optional<DType> dtype_from_name(std::string_view name);
bool is_floating(DType t);
bool is_integer(DType t);         // i8, i32, i64, u8, u32 (not bool)
bool is_signed_integer(DType t);  // i8, i32, i64

// IEEE half and bfloat16 storage: arithmetic is done in float and rounded to nearest even.
struct f16 {
  uint16_t bits = 0;
  f16() = default;
  explicit f16(float f);
  explicit operator float() const;
};
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float f);
  explicit operator float() const;
};

template <DType T>
struct StorageOf;
template <>
struct StorageOf<DType::f32> {
  using type = float;
};
template <>
struct StorageOf<DType::f64> {
  using type = double;
};
template <>
struct StorageOf<DType::f16> {
  using type = f16;
};
template <>
struct StorageOf<DType::bf16> {
  using type = bf16;
};
template <>
struct StorageOf<DType::i32> {
  using type = int32_t;
};
template <>
struct StorageOf<DType::i64> {
  using type = int64_t;
};
template <>
struct StorageOf<DType::u8> {
  using type = uint8_t;
};
template <>
struct StorageOf<DType::boolean> {
  using type = bool;
};
template <>
struct StorageOf<DType::i8> {
  using type = int8_t;
};
template <>
struct StorageOf<DType::u32> {
  using type = uint32_t;
};

// Calls f.template operator()<T>() with T the storage type of `t`.
template <class F>
decltype(auto) dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32:
      return f.template operator()<float>();
    case DType::f64:
      return f.template operator()<double>();
    case DType::f16:
      return f.template operator()<f16>();
    case DType::bf16:
      return f.template operator()<bf16>();
    case DType::i32:
      return f.template operator()<int32_t>();
    case DType::i64:
      return f.template operator()<int64_t>();
    case DType::u8:
      return f.template operator()<uint8_t>();
    case DType::i8:
      return f.template operator()<int8_t>();
    case DType::u32:
      return f.template operator()<uint32_t>();
    case DType::boolean:
      break;
  }
  return f.template operator()<bool>();
}

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::f32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::f64;
}
template <>
constexpr DType dtype_of<f16>() {
  return DType::f16;
}
template <>
constexpr DType dtype_of<bf16>() {
  return DType::bf16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::i32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::i64;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::u8;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::boolean;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::i8;
}
template <>
constexpr DType dtype_of<uint32_t>() {
  return DType::u32;
}

}  // namespace lazax
