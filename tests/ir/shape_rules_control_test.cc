// Shape rules of call, cond, while and scan (sub-functions made with Builder), and a random
// sweep checking that no rule crashes or throws anything but a lazax::Error on any input.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "lazax/ir/builder.h"
#include "shape_rules_test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

using BodyFn = std::function<std::vector<ValueRef>(Builder&, const std::vector<ValueRef>&)>;

FunctionPtr make_fn(const std::string& name, const std::vector<TensorType>& params,
                    const BodyFn& body) {
  Builder b(name);
  std::vector<ValueRef> ps;
  for (const auto& t : params) ps.push_back(b.param(t));
  return b.build(body(b, ps));
}
// Returns its parameters unchanged.
FunctionPtr identity_fn(const std::string& name, const std::vector<TensorType>& params) {
  return make_fn(name, params, [](Builder&, const std::vector<ValueRef>& p) { return p; });
}

}  // namespace

TEST(ShapeRulesControl, Call) {
  auto f = make_fn("sum_rows", {f32({2, 3})}, [](Builder& b, const std::vector<ValueRef>& p) {
    return std::vector<ValueRef>{b.add(OpCode::reduce_sum, {p[0]}, ReduceAttrs{{1}}), p[0]};
  });
  EXPECT_EQ(infer(OpCode::call, {f32({2, 3})}, CallAttrs{f}), types({f32({2}), f32({2, 3})}));
  expect_err<ShapeError>(OpCode::call, {f32({3, 2})}, CallAttrs{f},
                         {"@sum_rows", "f32[2,3]", "f32[3,2]"});
  expect_err<ShapeError>(OpCode::call, {f32({2, 3}), f32({1})}, CallAttrs{f},
                         {"@sum_rows", "f32[1]"});
  expect_err<ShapeError>(OpCode::call, {}, CallAttrs{nullptr}, {"callee", "null"});
  auto none = identity_fn("nothing", {});
  EXPECT_EQ(infer(OpCode::call, {}, CallAttrs{none}), types({}));
}

TEST(ShapeRulesControl, Cond) {
  auto neg = make_fn("neg", {f32({3}), i32({})}, [](Builder& b, const std::vector<ValueRef>& p) {
    return std::vector<ValueRef>{b.add(OpCode::neg, {p[0]}), p[1]};
  });
  auto id = identity_fn("id", {f32({3}), i32({})});
  auto swapped =
      make_fn("swapped", {f32({3}), i32({})}, [](Builder&, const std::vector<ValueRef>& p) {
        return std::vector<ValueRef>{p[1], p[0]};
      });
  std::vector<TensorType> ops = {f32({3}), i32({})};
  auto with_index = [&](TensorType index) {
    std::vector<TensorType> in = {std::move(index)};
    in.insert(in.end(), ops.begin(), ops.end());
    return in;
  };
  EXPECT_EQ(infer(OpCode::cond, with_index(boolean({})), CondAttrs{{id, neg}}), ops);
  EXPECT_EQ(infer(OpCode::cond, with_index(i32({})), CondAttrs{{id, neg, id}}), ops);
  EXPECT_EQ(infer(OpCode::cond, with_index(i32({})), CondAttrs{{neg}}), ops);
  expect_err<ShapeError>(OpCode::cond, with_index(i32({})), CondAttrs{{id, neg, swapped}},
                         {"branch 2", "@swapped", "i32[], f32[3]", "f32[3], i32[]"});
  expect_err<ShapeError>(OpCode::cond, with_index(i32({})), CondAttrs{{}}, {"at least one"});
  expect_err<ShapeError>(OpCode::cond, with_index(i32({2})), CondAttrs{{id}}, {"i32[2]"});
  expect_err<DTypeError>(OpCode::cond, with_index(i64({})), CondAttrs{{id}}, {"i64[]"});
  expect_err<DTypeError>(OpCode::cond, with_index(f32({})), CondAttrs{{id}}, {"f32[]"});
  expect_err<ShapeError>(OpCode::cond, {i32({}), f32({3})}, CondAttrs{{id}},
                         {"branch 0", "@id", "f32[3]"});
  expect_err<ShapeError>(OpCode::cond, with_index(i32({})), CondAttrs{{id, nullptr}},
                         {"branch 1", "null"});
  expect_err<ShapeError>(OpCode::cond, {}, CondAttrs{{id}}, {"index"});
}

TEST(ShapeRulesControl, While) {
  std::vector<TensorType> carry = {i32({}), f32({4})};
  auto cond = make_fn("lt10", carry, [](Builder& b, const std::vector<ValueRef>& p) {
    auto ten = b.constant(Literal::scalar<int32_t>(10));
    return std::vector<ValueRef>{b.add(OpCode::compare, {p[0], ten}, CompareAttrs{CompareDir::lt})};
  });
  auto body = make_fn("step", carry, [](Builder& b, const std::vector<ValueRef>& p) {
    auto one = b.constant(Literal::scalar<int32_t>(1));
    return std::vector<ValueRef>{b.add(OpCode::add, {p[0], one}), b.add(OpCode::exp, {p[1]})};
  });
  EXPECT_EQ(infer(OpCode::while_, carry, WhileAttrs{cond, body}), carry);
  expect_err<ShapeError>(OpCode::while_, {i32({}), f32({5})}, WhileAttrs{cond, body},
                         {"[while]", "cond @lt10", "f32[5]", "f32[4]"});
  auto bad_cond = identity_fn("ret_i32", carry);
  expect_err<ShapeError>(OpCode::while_, carry, WhileAttrs{bad_cond, body},
                         {"@ret_i32", "i32[], f32[4]", "bool[]"});
  auto bad_body = make_fn("drops", carry, [](Builder&, const std::vector<ValueRef>& p) {
    return std::vector<ValueRef>{p[0]};
  });
  expect_err<ShapeError>(OpCode::while_, carry, WhileAttrs{cond, bad_body},
                         {"body @drops", "i32[], f32[4]"});
  auto other_body = identity_fn("other", {i32({}), f32({4}), f32({})});
  expect_err<ShapeError>(OpCode::while_, carry, WhileAttrs{cond, other_body}, {"body @other"});
  expect_err<ShapeError>(OpCode::while_, carry, WhileAttrs{cond, nullptr}, {"body", "null"});
  expect_err<ShapeError>(OpCode::while_, carry, WhileAttrs{nullptr, body}, {"cond", "null"});
}

TEST(ShapeRulesControl, Scan) {
  // body(c: f32[3], x: f32[3], k: i32[]) -> (c + x, sum(x)): carry f32[3], ys f32[].
  auto body = make_fn(
      "cumulate", {f32({3}), f32({3}), i32({})}, [](Builder& b, const std::vector<ValueRef>& p) {
        auto c = b.add(OpCode::add, {p[0], p[1]});
        return std::vector<ValueRef>{c, b.add(OpCode::reduce_sum, {p[1]}, ReduceAttrs{{0}})};
      });
  std::vector<TensorType> in = {f32({3}), f32({5, 3}), i32({5})};
  EXPECT_EQ(infer(OpCode::scan, in, ScanAttrs{body, 5, 1, false}), types({f32({3}), f32({5})}));
  EXPECT_EQ(infer(OpCode::scan, in, ScanAttrs{body, 5, 1, true}), types({f32({3}), f32({5})}));
  // length 0 with empty xs.
  EXPECT_EQ(infer(OpCode::scan, {f32({3}), f32({0, 3}), i32({0})}, ScanAttrs{body, 0, 1, false}),
            types({f32({3}), f32({0})}));
  // No carry at all: a map.
  auto map = make_fn("sq", {f32({2})}, [](Builder& b, const std::vector<ValueRef>& p) {
    return std::vector<ValueRef>{b.add(OpCode::mul, {p[0], p[0]})};
  });
  EXPECT_EQ(infer(OpCode::scan, {f32({7, 2})}, ScanAttrs{map, 7, 0, false}), types({f32({7, 2})}));
  expect_err<ShapeError>(OpCode::scan, {f32({3}), f32({4, 3}), i32({5})},
                         ScanAttrs{body, 5, 1, false}, {"f32[4,3]", "length = 5"});
  expect_err<ShapeError>(OpCode::scan, {f32({3}), f32({5, 3}), i32({})},
                         ScanAttrs{body, 5, 1, false}, {"i32[]"});
  expect_err<ShapeError>(OpCode::scan, in, ScanAttrs{body, -1, 1, false}, {"length", "-1"});
  expect_err<ShapeError>(OpCode::scan, in, ScanAttrs{body, 5, 4, false}, {"num_carry 4"});
  expect_err<ShapeError>(OpCode::scan, in, ScanAttrs{body, 5, -1, false}, {"num_carry -1"});
  // num_carry 2 makes the body's second param a carry f32[5,3], which it is not.
  expect_err<ShapeError>(OpCode::scan, in, ScanAttrs{body, 5, 2, false}, {"@cumulate", "f32[5,3]"});
  auto bad_carry =
      make_fn("bad", {f32({3}), f32({3}), i32({})}, [](Builder& b, const std::vector<ValueRef>& p) {
        return std::vector<ValueRef>{b.add(OpCode::convert, {p[0]}, ConvertAttrs{DType::f64})};
      });
  expect_err<ShapeError>(OpCode::scan, in, ScanAttrs{bad_carry, 5, 1, false},
                         {"@bad", "f64[3]", "f32[3]"});
  expect_err<ShapeError>(OpCode::scan, in, ScanAttrs{nullptr, 5, 1, false}, {"null"});
}

// Random operand types and attributes for every op: a rule may accept or throw a lazax::Error,
// never anything else (and never crash; run under the sanitizer build to see memory errors).
TEST(ShapeRulesControl, RandomInputsNeverCrash) {
  std::mt19937_64 rng(1234);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto rand_shape = [&] {
    Shape s;
    for (int64_t r = pick(0, 3); r > 0; --r) s.dims().push_back(pick(-1, 4));
    return s;
  };
  auto rand_list = [&] {
    IntList v;
    for (int64_t r = pick(0, 3); r > 0; --r) v.push_back(pick(-2, 4));
    return v;
  };
  auto rand_type = [&] {
    auto t = TensorType{static_cast<DType>(pick(0, kNumDTypes - 1)), rand_shape()};
    for (auto& d : t.shape.dims()) d = std::max<int64_t>(d, 0);  // operands come from valid ops
    return t;
  };
  auto body = identity_fn("b", {f32({})});
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    auto op = static_cast<OpCode>(pick(0, kNumOps - 1));
    int arity = op_info(op).arity;
    std::vector<TensorType> in;
    for (int64_t k = arity >= 0 ? arity : pick(0, 4); k > 0; --k) in.push_back(rand_type());
    Attrs attrs = default_attrs(op);
    std::visit(
        [&](auto& a) {
          using A = std::decay_t<decltype(a)>;
          A::visit(a, [&](const char*, auto& field) {
            using T = std::decay_t<decltype(field)>;
            if constexpr (std::is_same_v<T, int64_t>)
              field = pick(-2, 5);
            else if constexpr (std::is_same_v<T, IntList>)
              field = rand_list();
            else if constexpr (std::is_same_v<T, Shape>)
              field = rand_shape();
            else if constexpr (std::is_same_v<T, DType>)
              field = static_cast<DType>(pick(0, kNumDTypes - 1));
            else if constexpr (std::is_same_v<T, FunctionPtr>)
              field = pick(0, 3) ? body : nullptr;
            else if constexpr (std::is_same_v<T, std::vector<FunctionPtr>>)
              field.assign(static_cast<size_t>(pick(0, 2)), body);
            else if constexpr (std::is_same_v<T, Literal>)
              field = Literal::zeros(rand_type());
          });
        },
        attrs);
    try {
      auto out = infer_types(op, in, attrs);
      ++accepted;
      for (const auto& t : out) {
        for (int64_t d : t.shape) EXPECT_GE(d, 0) << op_name(op);
      }
    } catch (const Error& e) {
      std::string m = e.what();
      EXPECT_TRUE(m.starts_with("[" + std::string(op_name(op)) + "]")) << m;
    }
  }
  EXPECT_GT(accepted, 1000);
}
