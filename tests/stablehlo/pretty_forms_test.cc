// The pretty forms of ops with regions: reduce with a `reducer(...) { ... }` body (as the
// StableHLO printer writes a reduce whose body is not one op), case and if as other tools print
// them, and results named one by one (`%a, %b = ...`); values against sums and branches worked
// out by hand.
#include <gtest/gtest.h>

#include "lazax/lazax.h"
#include "lazax/stablehlo/stablehlo.h"

namespace lazax {
namespace {

std::string error_of(const std::string& text) {
  try {
    stablehlo::import_stablehlo(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(StableHloPretty, ReduceWithAReducerBody) {
  // x = [[1, 5, 2], [-3, -1, -7]]: row sums 8, -11; column maxima 1, 5, 2 (init -inf).
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %0 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<2x3xf32>, "
      "tensor<f32>) -> tensor<2xf32>\n"
      "   reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n"
      "    %s = stablehlo.add %a, %b : tensor<f32>\n"
      "    stablehlo.return %s : tensor<f32>\n"
      "  }\n"
      "  %1 = stablehlo.reduce(%x init: %m) across dimensions = [0] : (tensor<2x3xf32>, "
      "tensor<f32>) -> tensor<3xf32>\n"
      "   reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n"
      "    %s = stablehlo.maximum %a, %b : tensor<f32>\n"
      "    stablehlo.return %s : tensor<f32>\n"
      "  }\n"
      "  return %0, %1 : tensor<2xf32>, tensor<3xf32>\n}");
  std::vector<Tensor> out = call(f, {from_vector<float>({1, 5, 2, -3, -1, -7}, {2, 3})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{8, -11}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{1, 5, 2}));
  // A body that is not one binary op on its two arguments is refused where it starts.
  std::string e = error_of(
      "func.func @main(%x: tensor<3xf32>) -> tensor<f32> {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %0 = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<3xf32>, "
      "tensor<f32>) -> tensor<f32>\n"
      "   reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n"
      "    %s = stablehlo.multiply %b, %b : tensor<f32>\n"
      "    %t = stablehlo.add %a, %s : tensor<f32>\n"
      "    stablehlo.return %t : tensor<f32>\n  }\n"
      "  return %0 : tensor<f32>\n}");
  EXPECT_EQ(e.rfind("[stablehlo] line 4, column 47: a reduce body other than one binary op", 0), 0u)
      << e;
  e = error_of(
      "func.func @main(%x: tensor<3xf32>) -> tensor<f32> {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %0 = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<3xf32>, "
      "tensor<f32>) -> tensor<f32>\n"
      "  return %0 : tensor<f32>\n}");
  EXPECT_EQ(e.rfind("[stablehlo] line 4, column 3: stablehlo.reduce needs `applies OP` or a", 0),
            0u)
      << e;
}

// Branch k of the case gives x * (k + 1) summed, so the index picked is readable off the value;
// a negative or too large index runs the last branch (the spec's rule).
TEST(StableHloPretty, CaseAndIfWithoutQuotes) {
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%i: tensor<i32>, %p: tensor<i1>, %x: tensor<2xf32>) -> (tensor<f32>, "
      "tensor<2xf32>) {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %0 = stablehlo.case(%i) ({\n"
      "    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : "
      "(tensor<2xf32>, tensor<f32>) -> tensor<f32>\n"
      "    stablehlo.return %s : tensor<f32>\n"
      "  }, {\n"
      "    %d = stablehlo.add %x, %x : tensor<2xf32>\n"
      "    %s = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [0] : "
      "(tensor<2xf32>, tensor<f32>) -> tensor<f32>\n"
      "    stablehlo.return %s : tensor<f32>\n"
      "  }, {\n"
      "    %d = stablehlo.add %x, %x : tensor<2xf32>\n"
      "    %t = stablehlo.add %d, %x : tensor<2xf32>\n"
      "    %s = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [0] : "
      "(tensor<2xf32>, tensor<f32>) -> tensor<f32>\n"
      "    stablehlo.return %s : tensor<f32>\n"
      "  }) : tensor<f32>\n"
      "  %1 = stablehlo.if %p -> (tensor<2xf32>) {\n"
      "    %n = stablehlo.negate %x : tensor<2xf32>\n"
      "    stablehlo.return %n : tensor<2xf32>\n"
      "  } else {\n"
      "    stablehlo.return %x : tensor<2xf32>\n"
      "  }\n"
      "  return %0, %1 : tensor<f32>, tensor<2xf32>\n}");
  Tensor x = from_vector<float>({1.5f, 2.0f}, {2});
  const std::pair<int32_t, float> want[] = {{-1, 10.5f}, {0, 3.5f}, {1, 7}, {2, 10.5f}, {7, 10.5f}};
  for (auto [i, sum] : want) {
    std::vector<Tensor> out =
        call(f, {from_vector<int32_t>({i}, {}), from_vector<bool>({i == 0}, {}), x});
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{sum})) << "index " << i;
    std::vector<float> branch = i == 0 ? std::vector<float>{-1.5f, -2.0f} : x.to_vector<float>();
    EXPECT_EQ(out[1].to_vector<float>(), branch) << "pred " << (i == 0);
  }
}

// `%a, %b = "stablehlo.case"(...)`, as StableHLO's interpreter tests write it: each name is one
// result.
TEST(StableHloPretty, ResultsNamedOneByOne) {
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%i: tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>) {\n"
      "  %b0 = stablehlo.constant dense<0> : tensor<2xi64>\n"
      "  %b1 = stablehlo.constant dense<1> : tensor<2xi64>\n"
      "  %r0, %r1 = \"stablehlo.case\"(%i) ({\n"
      "    \"stablehlo.return\"(%b0, %b1) : (tensor<2xi64>, tensor<2xi64>) -> ()\n"
      "  }, {\n"
      "    \"stablehlo.return\"(%b1, %b0) : (tensor<2xi64>, tensor<2xi64>) -> ()\n"
      "  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)\n"
      "  %s = stablehlo.add %r0, %r1 : tensor<2xi64>\n"
      "  return %r1, %s : tensor<2xi64>, tensor<2xi64>\n}");
  std::vector<Tensor> out = call(f, {from_vector<int32_t>({1}, {})});
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  out = call(f, {from_vector<int32_t>({0}, {})});
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  std::string e = error_of(
      "func.func @main() -> tensor<i32> {\n"
      "  %a, %b = stablehlo.constant dense<1> : tensor<i32>\n  return %a : tensor<i32>\n}");
  EXPECT_NE(e.find("line 2, column 12: stablehlo.constant has 1 results, 2 are named"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace lazax
