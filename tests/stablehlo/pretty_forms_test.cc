// The pretty forms of ops with regions: reduce with a `reducer(...) { ... }` body (as the
// StableHLO printer writes a reduce whose body is not one op), case and if as other tools print
// them, results named one by one (`%a, %b = ...`), and JAX's argmax/argmin reduce of two
// operands; values against sums, branches and extremes worked out here.
#include <gtest/gtest.h>

#include <cmath>

#include "lazax/lazax.h"
#include "lazax/stablehlo/load.h"
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

// jnp.argmax / argmin as JAX prints them (a private function: the reduce of the values and
// their iota, the comparator keeping the accumulator when beyond or NaN, the lower index on a
// tie), against the first extreme and the first NaN found by a loop here.
std::string argminmax_text(const char* dir, const char* init) {
  return std::string(
             "func.func @main(%x: tensor<3x4xf32>) -> (tensor<3xi32>, tensor<3xf32>) {\n"
             "  %0 = stablehlo.iota dim = 1 : tensor<3x4xi32>\n"
             "  %1 = stablehlo.constant dense<") +
         init +
         "> : tensor<f32>\n"
         "  %2 = stablehlo.constant dense<0> : tensor<i32>\n"
         "  %3:2 = stablehlo.reduce(%x init: %1), (%0 init: %2) across dimensions = [1] : "
         "(tensor<3x4xf32>, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, "
         "tensor<3xi32>)\n"
         "   reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: "
         "tensor<i32>)  {\n"
         "    %4 = stablehlo.compare  " +
         dir +
         ", %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "    %5 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> "
         "tensor<i1>\n"
         "    %6 = stablehlo.or %4, %5 : tensor<i1>\n"
         "    %7 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> "
         "tensor<i1>\n"
         "    %8 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> "
         "tensor<i1>\n"
         "    %9 = stablehlo.and %7, %8 : tensor<i1>\n"
         "    %10 = stablehlo.or %6, %9 : tensor<i1>\n"
         "    %11 = stablehlo.select %6, %arg1, %arg3 : tensor<i1>, tensor<f32>\n"
         "    %12 = stablehlo.select %10, %arg2, %arg4 : tensor<i1>, tensor<i32>\n"
         "    stablehlo.return %11, %12 : tensor<f32>, tensor<i32>\n"
         "  }\n"
         "  return %3#1, %3#0 : tensor<3xi32>, tensor<3xf32>\n}";
}

TEST(StableHloPretty, ArgmaxAndArgminAsJaxPrintsThem) {
  const float nan = std::nanf("");
  const std::vector<float> x{1, 3, 3, -2, /**/ nan, 5, nan, 0, /**/ -1, -4, 2, -4};
  for (bool is_min : {false, true}) {
    FunctionPtr f = stablehlo::import_stablehlo(
        argminmax_text(is_min ? "LT" : "GT", is_min ? "0x7F800000" : "0xFF800000"));
    std::vector<Tensor> out = call(f, {from_vector<float>(x, {3, 4})});
    std::vector<int32_t> idx = out[0].to_vector<int32_t>();
    std::vector<float> val = out[1].to_vector<float>();
    for (int r = 0; r < 3; ++r) {
      int best = 0;
      for (int k = 1; k < 4; ++k) {
        float c = x[static_cast<size_t>(r * 4 + best)], v = x[static_cast<size_t>(r * 4 + k)];
        if (!std::isnan(c) && (std::isnan(v) || (is_min ? v < c : v > c))) best = k;
      }
      auto want = x[static_cast<size_t>(r * 4 + best)];
      EXPECT_EQ(idx[static_cast<size_t>(r)], best) << "row " << r << (is_min ? " argmin" : "");
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(val[static_cast<size_t>(r)]));
      else
        EXPECT_EQ(val[static_cast<size_t>(r)], want) << "row " << r;
    }
  }
  // Another init, or another body, is not argmax: refused, saying so.
  std::string e = error_of(argminmax_text("GT", "0.0"));
  EXPECT_NE(e.find("line 5, column 10: a reduce of two operands is imported only as JAX's "
                   "argmax/argmin"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("the inits are not -inf"), std::string::npos) << e;
  e = error_of(argminmax_text("GE", "0xFF800000"));
  EXPECT_NE(e.find("the body is not that comparator"), std::string::npos) << e;
}

// The fixture with all these forms at once (also mutated by MutatedFixturesFailCleanly).
TEST(StableHloPretty, PrettyRegionsFixture) {
  StableHloFunction f =
      load_stablehlo(std::string(LAZAX_STABLEHLO_FIXTURES) + "/pretty_regions.mlir");
  Tensor x = from_vector<float>({-1, 3, 3, 2, /**/ 0, -5, 4, 4, /**/ 7, 1, 7, -9}, {3, 4});
  for (int32_t i : {0, 1, 5}) {
    std::vector<Tensor> out = f({x, from_vector<int32_t>({i}, {})});
    EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 0}));
    EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{7, 3, 6}));
    EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{i == 0 ? 10.0f : 20.0f}));
    EXPECT_EQ(out[3].to_vector<float>(), (std::vector<float>{-1}));
  }
}

}  // namespace
}  // namespace lazax
