// The StableHLO importer: a hand-written MLP fixture (pretty and generic forms, a private
// func.call) against the same computation written with Tensor ops, values and gradients; the
// errors for hostile input name line and column.
#include "lazax/stablehlo/stablehlo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "lazax/lazax.h"
#include "lazax/stablehlo/load.h"

namespace lazax {
namespace {

std::string fixture(const std::string& name) {
  return std::string(LAZAX_STABLEHLO_FIXTURES) + "/" + name;
}

Tensor ramp(const std::vector<int64_t>& shape, float scale, float offset) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(scale * float(i) + offset);
  return from_vector<float>(v, shape);
}

void expect_close(const Tensor& a, const Tensor& b) {
  std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-5f) << "element " << i;
}

TEST(StableHlo, MlpValuesAndGradientsMatchTensorOps) {
  StableHloFunction f = load_stablehlo(fixture("mlp.mlir"));
  EXPECT_EQ(f.program()->num_params(), 4);
  auto make = [] {
    return std::vector<Tensor>{
        ramp({4, 3}, 0.7f, 0.1f).requires_grad_(), ramp({3, 5}, 0.3f, 0.5f).requires_grad_(),
        ramp({5}, 1.1f, 0.2f).requires_grad_(), ramp({5, 2}, 0.9f, 0.4f).requires_grad_()};
  };
  std::vector<Tensor> a = make(), b = make();
  Tensor loss = f(a)[0];
  Tensor h = tanh(matmul(b[0], b[1]) + b[2]);
  Tensor o = matmul(h, b[3]);
  Tensor ref = sum(o * o);
  expect_close(loss, ref);
  loss.backward();
  ref.backward();
  for (size_t i = 0; i < a.size(); ++i) expect_close(a[i].grad(), b[i].grad());
}

// Forward mode through the imported program agrees with reverse mode: for the scalar loss,
// jvp(x; t) = <grad, t>. Repeated calls reuse the one trace.
TEST(StableHlo, JvpAgreesWithGradAndTracesOnce) {
  StableHloFunction f = load_stablehlo(fixture("rms_norm.mlir"));
  Tensor x = ramp({3, 8}, 0.7f, 0.1f), w = ramp({8}, 0.3f, 0.5f);
  Tensor tx = ramp({3, 8}, 0.2f, 0.9f), tw = ramp({8}, 0.4f, 0.3f);
  auto fn = [&](const Tensor& a, const Tensor& b) { return f({a, b})[0]; };
  auto [out, tan] = jvp(fn, std::tuple{x, w}, std::tuple{tx, tw});
  Tensor xg = x.detach().requires_grad_(), wg = w.detach().requires_grad_();
  fn(xg, wg).backward();
  double want = sum(xg.grad() * tx).item() + sum(wg.grad() * tw).item();
  EXPECT_NEAR(tan.item(), want, 1e-4f);
  for (int i = 0; i < 3; ++i) fn(x, w).item();
  EXPECT_EQ(f.cache_size(), 1u);
}

TEST(StableHlo, SignatureMismatchNamesTheArgument) {
  StableHloFunction f = load_stablehlo(fixture("mlp.mlir"));
  std::vector<Tensor> a{ramp({4, 3}, 1, 0), ramp({3, 4}, 1, 0), ramp({5}, 1, 0),
                        ramp({5, 2}, 1, 0)};
  try {
    f(a);
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("argument 1"), std::string::npos) << m;
    EXPECT_NE(m.find("expected f32[3,5], given f32[3,4]"), std::string::npos) << m;
  }
}

std::string error_of(const std::string& text) {
  try {
    stablehlo::import_stablehlo(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(StableHlo, HostileInputGivesPositionedErrors) {
  std::ifstream in(fixture("mlp.mlir"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string good = ss.str();
  // Every truncation is an error with a position, never a crash.
  for (size_t n = 0; n < good.size(); n += 7) {
    std::string m = error_of(good.substr(0, n));
    EXPECT_EQ(m.rfind("[stablehlo] line ", 0), 0u) << n << ": " << m;
  }
  const char* head = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n";
  EXPECT_EQ(error_of(std::string(head) + "  %0 = stablehlo.frobnicate %a : tensor<2xf32>\n"
                                         "  return %0 : tensor<2xf32>\n}"),
            "[stablehlo] line 2, column 8: unsupported op 'stablehlo.frobnicate' "
            "(docs/STABLEHLO.md lists the ops)");
  std::string m = error_of(std::string(head) +
                           "  %0 = stablehlo.custom_call @Sharding(%a) : (tensor<2xf32>) -> "
                           "tensor<2xf32>\n  return %0 : tensor<2xf32>\n}");
  EXPECT_NE(m.find("line 2, column 8: stablehlo.custom_call"), std::string::npos) << m;
  m = error_of(std::string(head) +
               "  %0 = stablehlo.add %a, %a : tensor<3xf32>\n"
               "  return %0 : tensor<2xf32>\n}");
  EXPECT_NE(m.find("line 2, column 22: stablehlo.add operand 0 is declared f32[3] but %a is "
                   "f32[2]"),
            std::string::npos)
      << m;
  m = error_of(std::string(head) +
               "  %0 = stablehlo.constant dense<1.0> : tensor<100000x100000x100000xf32>\n"
               "  return %a : tensor<2xf32>\n}");
  EXPECT_NE(m.find("line 2, column 33:"), std::string::npos) << m;
  EXPECT_NE(m.find("more than the 2^26"), std::string::npos) << m;
  m = error_of(std::string(head) +
               "  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : "
               "tensor<2xf32>\n  return %0 : tensor<2xf32>\n}");
  EXPECT_NE(m.find("more elements than its type"), std::string::npos) << m;
}

// Regions (while, case, if): every truncation of the fixtures fails with a position; malformed
// regions name what is wrong; deep nesting is bounded.
TEST(StableHlo, HostileRegionsGivePositionedErrors) {
  for (const char* name : {"while.mlir", "case.mlir"}) {
    std::ifstream in(fixture(name));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string good = ss.str();
    EXPECT_EQ(error_of(good), "no error") << name;
    for (size_t n = 0; n < good.size(); n += 5) {
      std::string m = error_of(good.substr(0, n));
      EXPECT_EQ(m.rfind("[stablehlo] line ", 0), 0u) << name << " " << n << ": " << m;
    }
  }
  const char* head = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n";
  std::string m = error_of(std::string(head) +
                           "  %0 = stablehlo.while(%x = %a) : tensor<f32>\n"
                           "  do {\n    stablehlo.return %x : tensor<f32>\n  }\n"
                           "  return %0 : tensor<f32>\n}");
  EXPECT_NE(m.find("line 3, column 3: expected 'cond {'"), std::string::npos) << m;
  m = error_of(std::string(head) +
               "  %0 = \"stablehlo.case\"(%a) ({\n    stablehlo.return %a : tensor<f32>\n"
               "  }) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}");
  EXPECT_NE(m.find("line 2, column 8: stablehlo.case: "), std::string::npos) << m;
  m = error_of(std::string(head) +
               "  %0 = \"stablehlo.case\"(%a) ({\n    stablehlo.return %zz : tensor<f32>\n"
               "  }) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}");
  EXPECT_NE(m.find("line 3, column 22: use of undefined value %zz"), std::string::npos) << m;
  std::string deep = std::string(head) + "  %0 = \"stablehlo.case\"(%a) ";
  for (int k = 0; k < 100; ++k) deep += "({ %0 = \"stablehlo.case\"(%a) ";
  m = error_of(deep);
  EXPECT_NE(m.find("regions nested too deep"), std::string::npos) << m;
}

// A deterministic in-process mutation run over every fixture: each mutant parses or fails with
// a positioned [stablehlo] error (a lazax shape rule's error is wrapped the same way).
TEST(StableHlo, MutatedFixturesFailCleanly) {
  uint64_t state = 29;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  const char* bytes = "%@:,()[]{}<>x0123456789-\"\n ";
  for (const char* name : {"mlp.mlir", "attention.mlir", "rms_norm.mlir", "cross_entropy.mlir",
                           "while.mlir", "case.mlir", "gather_scatter.mlir", "threefry.mlir",
                           "pretty_regions.mlir", "uniform_gpu.mlir"}) {
    std::ifstream in(fixture(name));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string good = ss.str();
    for (int k = 0; k < 500; ++k) {
      std::string m = good;
      for (uint64_t j = 0, n = 1 + next() % 3; j < n; ++j) {
        size_t at = next() % m.size();
        switch (next() % 3) {
          case 0:
            m[at] = bytes[next() % 28];
            break;
          case 1:
            m.erase(at, 1 + next() % 8);
            break;
          default:
            m.insert(at, 1, bytes[next() % 28]);
            break;
        }
      }
      std::string e = error_of(m);
      if (e != "no error") {
        EXPECT_EQ(e.rfind("[stablehlo] line ", 0), 0u) << name << ": " << e;
      }
    }
  }
}

TEST(StableHlo, ConstantsSplatListAndHex) {
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) {\n"
      "  %0 = stablehlo.constant dense<1.5> : tensor<2xf32>\n"
      "  %1 = stablehlo.constant dense<[2.0, -3.0]> : tensor<2xf32>\n"
      "  %2 = stablehlo.constant dense<\"0x0100000002000000\"> : tensor<2xi32>\n"
      "  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xi32>\n}");
  std::vector<Tensor> out = call(f, {});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1.5f, 1.5f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{2.0f, -3.0f}));
  EXPECT_EQ(out[2].to_vector<int32_t>(), (std::vector<int32_t>{1, 2}));
}

TEST(StableHlo, PadDynamicSliceAndUpdate) {
  // x = [1, 2, 3, 4]; pad one 0 low, two high, one between: [0 1 0 2 0 3 0 4 0 0];
  // dynamic_slice at 2 of size 3: [0 2 0]; written into x at 1 (clamped to 1): [1 0 2 0].
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%x: tensor<4xf32>, %i: tensor<i32>) -> (tensor<10xf32>, tensor<4xf32>) {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %0 = stablehlo.pad %x, %z, low = [1], high = [2], interior = [1] : (tensor<4xf32>, "
      "tensor<f32>) -> tensor<10xf32>\n"
      "  %1 = stablehlo.dynamic_slice %0, %i, sizes = [3] : (tensor<10xf32>, tensor<i32>) -> "
      "tensor<3xf32>\n"
      "  %c = stablehlo.constant dense<1> : tensor<i32>\n"
      "  %2 = stablehlo.dynamic_update_slice %x, %1, %c : (tensor<4xf32>, tensor<3xf32>, "
      "tensor<i32>) -> tensor<4xf32>\n"
      "  return %0, %2 : tensor<10xf32>, tensor<4xf32>\n}");
  std::vector<Tensor> out =
      call(f, {from_vector<float>({1, 2, 3, 4}, {4}), from_vector<int32_t>({2}, {})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 1, 0, 2, 0, 3, 0, 4, 0, 0}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{1, 0, 2, 0}));
  EXPECT_NE(error_of("func.func @main() -> tensor<i8> {\n  %0 = stablehlo.constant dense<300> : "
                     "tensor<i8>\n  return %0 : tensor<i8>\n}")
                .find("not an integer in the range of i8"),
            std::string::npos);
}

TEST(StableHlo, GenericReduceWithABody) {
  // The generic form JAX prints for a reduce: max over axis 1 of [[1, 5, 2], [-3, -1, -7]] with
  // the init -inf is [5, -1]; a body that is not one binary op on its arguments is refused.
  const std::string head =
      "func.func @main(%x: tensor<2x3xf32>) -> tensor<2xf32> {\n"
      "  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %0 = \"stablehlo.reduce\"(%x, %c) ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n";
  const std::string tail =
      "  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}";
  FunctionPtr f = stablehlo::import_stablehlo(
      head + "    %m = stablehlo.maximum %a, %b : tensor<f32>\n    stablehlo.return %m : " +
      "tensor<f32>\n" + tail);
  std::vector<Tensor> out = call(f, {from_vector<float>({1, 5, 2, -3, -1, -7}, {2, 3})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{5, -1}));
  std::string m = error_of(head + "    %m = stablehlo.maximum %a, %a : tensor<f32>\n" +
                           "    stablehlo.return %m : tensor<f32>\n" + tail);
  EXPECT_NE(m.find("line 3, column 36: a reduce body other than one binary op"), std::string::npos)
      << m;
}

// gather as JAX prints it: StableHLO clamps a start index so that the slice fits (7 -> 4 and
// -2 -> 0 in a [5, 2] operand), with the index vector in the last dimension or implicit
// (index_vector_dim equal to the rank). scatter with an add body: an update whose window falls
// outside the operand is dropped (XLA's behavior); other bodies are refused, naming the body.
TEST(StableHlo, GatherClampsScatterAddsAndDrops) {
  auto gather = [](const std::string& idx_type, const std::string& ivd) {
    return "func.func @main(%x: tensor<5x2xf32>, %i: " + idx_type +
           ") -> tensor<3x2xf32> {\n"
           "  %0 = \"stablehlo.gather\"(%x, %i) <{dimension_numbers = #stablehlo.gather<"
           "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
           "index_vector_dim = " +
           ivd + ">, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> : " +
           "(tensor<5x2xf32>, " + idx_type + ") -> tensor<3x2xf32>\n" +
           "  return %0 : tensor<3x2xf32>\n}";
  };
  Tensor x = arange(0.0, 10.0, 1.0).reshape({5, 2});
  std::vector<float> want{8, 9, 0, 1, 2, 3};
  FunctionPtr g2 = stablehlo::import_stablehlo(gather("tensor<3x1xi32>", "1"));
  EXPECT_EQ(call(g2, {x, from_vector<int32_t>({7, -2, 1}, {3, 1})})[0].to_vector<float>(), want);
  FunctionPtr g1 = stablehlo::import_stablehlo(gather("tensor<3xi32>", "1"));
  EXPECT_EQ(call(g1, {x, from_vector<int32_t>({7, -2, 1}, {3})})[0].to_vector<float>(), want);

  auto scatter = [](const std::string& body) {
    return std::string(
               "func.func @main(%z: tensor<5xf32>, %i: tensor<3x1xi32>, %u: tensor<3xf32>) -> "
               "tensor<5xf32> {\n"
               "  %0 = \"stablehlo.scatter\"(%z, %i, %u) <{indices_are_sorted = false, "
               "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], "
               "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
               "index_vector_dim = 1>, unique_indices = false}> ({\n"
               "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n") +
           body +
           "  }) : (tensor<5xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<5xf32>\n"
           "  return %0 : tensor<5xf32>\n}";
  };
  FunctionPtr s = stablehlo::import_stablehlo(
      scatter("    %r = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %r : "
              "tensor<f32>\n"));
  std::vector<Tensor> out = call(s, {zeros({5}), from_vector<int32_t>({1, 9, 1}, {3, 1}),
                                     from_vector<float>({10, 20, 30}, {3})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 40, 0, 0, 0}));
  std::string m = error_of(
      scatter("    %r = stablehlo.multiply %a, %b : tensor<f32>\n    stablehlo.return %r : "
              "tensor<f32>\n"));
  EXPECT_NE(m.find("scatter with the body stablehlo.multiply is not supported"), std::string::npos)
      << m;
  m = error_of(scatter("    stablehlo.return %b : tensor<f32>\n"));  // JAX's .at[].set
  EXPECT_NE(m.find("a scatter body other than one binary op"), std::string::npos) << m;
  m = error_of(gather("tensor<3x1xi32>", "1, operand_batching_dims = [0]"));
  EXPECT_NE(m.find("operand_batching_dims"), std::string::npos) << m;
}

}  // namespace
}  // namespace lazax
