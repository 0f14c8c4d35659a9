// Helpers for the shape-rule and verifier tests: short type constructors and an expectation that
// a rule throws a given error whose message starts with "[op]" and names given strings.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/ir/op.h"

namespace lazax::test {

inline TensorType f32(std::initializer_list<int64_t> d) { return {DType::f32, Shape(d)}; }
inline TensorType f64(std::initializer_list<int64_t> d) { return {DType::f64, Shape(d)}; }
inline TensorType f16t(std::initializer_list<int64_t> d) { return {DType::f16, Shape(d)}; }
inline TensorType bf16t(std::initializer_list<int64_t> d) { return {DType::bf16, Shape(d)}; }
inline TensorType i32(std::initializer_list<int64_t> d) { return {DType::i32, Shape(d)}; }
inline TensorType i64(std::initializer_list<int64_t> d) { return {DType::i64, Shape(d)}; }
inline TensorType u8(std::initializer_list<int64_t> d) { return {DType::u8, Shape(d)}; }
inline TensorType boolean(std::initializer_list<int64_t> d) { return {DType::boolean, Shape(d)}; }
inline TensorType i8t(std::initializer_list<int64_t> d) { return {DType::i8, Shape(d)}; }
inline TensorType u32t(std::initializer_list<int64_t> d) { return {DType::u32, Shape(d)}; }
inline std::vector<TensorType> types(std::vector<TensorType> ts) { return ts; }

inline std::vector<TensorType> infer(OpCode op, std::vector<TensorType> in,
                                     const Attrs& attrs = NoAttrs{}) {
  return infer_types(op, in, attrs);
}

// The call must throw exactly an E (not another lazax::Error) whose message starts with
// "[opname]" and contains every string of `parts`.
template <class E>
void expect_err(OpCode op, std::vector<TensorType> in, const Attrs& attrs,
                std::vector<std::string> parts) {
  const std::string prefix = "[" + std::string(op_name(op)) + "]";
  try {
    auto out = infer_types(op, in, attrs);
    ADD_FAILURE() << prefix << " did not throw";
  } catch (const E& e) {
    std::string m = e.what();
    EXPECT_TRUE(m.starts_with(prefix)) << m;
    for (const auto& p : parts)
      EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
  } catch (const std::exception& e) {
    ADD_FAILURE() << prefix << " threw the wrong error type: " << e.what();
  }
}

}  // namespace lazax::test
