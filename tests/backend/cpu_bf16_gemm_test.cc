// bf16 dot_general on the cpu backend (oneDNN, bf16 inputs, f32 accumulation) against the
// reference interpreter, 2-D, transposed and batched; and a bf16 dot whose only use is a
// convert to f32, which the cpu plan folds into the dot (one step writing f32, no bf16 rounding).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "lazax/backend/backend.h"
#include "lazax/ir/printer.h"

using namespace lazax;

namespace {

std::vector<Literal> random_args(const Function& f, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  std::vector<Literal> args;
  for (const TensorType& t : f.param_types()) {
    Literal l = Literal::zeros(t);
    for (int64_t i = 0; i < l.numel(); ++i) l.data<bf16>()[i] = bf16(real(rng));
    args.push_back(std::move(l));
  }
  return args;
}

// |got - want| <= rel * |want| + abs, element by element.
void expect_near(const Literal& got, const Literal& want, double rel, double abs,
                 const std::string& what) {
  ASSERT_EQ(got.type, want.type) << what;
  int64_t exact = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.at(i), w = want.at(i);
    exact += g == w;
    ASSERT_LE(std::fabs(g - w), rel * std::fabs(w) + abs)
        << what << " element " << i << ": cpu " << g << ", reference " << w;
  }
  ::testing::Test::RecordProperty(what + "_exact",
                                  std::to_string(exact) + "/" + std::to_string(want.numel()));
}

std::string dot(const std::string& args, const std::string& attrs, const std::string& dt,
                const std::string& shape, bool convert) {
  std::string t = "func @main(" + args + ") -> (" + (convert ? "f32" : dt) + shape + ") {\n" +
                  "  %0 = dot_general(%x, %w) {" + attrs + "} : " + dt + shape + "\n";
  if (convert)
    t += "  %1 = convert(%0) {dtype=f32} : f32" + shape + "\n  return %1\n}";
  else
    t += "  return %0\n}";
  return t;
}

struct Shape3 {
  const char *name, *args, *attrs, *shape;
};
const Shape3 kCases[] = {
    {"matmul", "%x: bf16[33,64], %w: bf16[64,17]",
     "lhs_batch=[], rhs_batch=[], lhs_contracting=[1], rhs_contracting=[0]", "[33,17]"},
    {"matmul_t", "%x: bf16[64,33], %w: bf16[17,64]",
     "lhs_batch=[], rhs_batch=[], lhs_contracting=[0], rhs_contracting=[1]", "[33,17]"},
    {"batched", "%x: bf16[3,9,40], %w: bf16[3,40,11]",
     "lhs_batch=[0], rhs_batch=[0], lhs_contracting=[2], rhs_contracting=[1]", "[3,9,11]"},
    {"attention", "%x: bf16[2,5,3,16], %w: bf16[2,6,3,16]",
     "lhs_batch=[0, 2], rhs_batch=[0, 2], lhs_contracting=[3], rhs_contracting=[3]", "[2,3,5,6]"},
};

TEST(CpuBf16Gemm, MatchesTheReference) {
  for (const Shape3& c : kCases) {
    FunctionPtr f = parse_program(dot(c.args, c.attrs, "bf16", c.shape, false));
    auto exe = make_backend("cpu")->compile(f);
    EXPECT_EQ(exe->plan_stats().gemm, 1) << c.name;
    EXPECT_EQ(exe->plan_stats().fallback, 0) << c.name;
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      auto args = random_args(*f, seed);
      auto want = make_backend("reference")->compile(f)->run(args);
      // The reference sums in double and rounds once; oneDNN sums in f32 and rounds once: the
      // same bf16 value but where the f32 sum lands on the other side of a rounding boundary
      // (one bf16 ulp, 2^-7 relative at most).
      expect_near(exe->run(args)[0], want[0], 0x1p-7, 1e-3, std::string(c.name));
    }
  }
}

TEST(CpuBf16Gemm, ConvertToF32FoldsIntoTheDot) {
  for (const Shape3& c : kCases) {
    FunctionPtr f = parse_program(dot(c.args, c.attrs, "bf16", c.shape, true));
    auto exe = make_backend("cpu")->compile(f);
    EXPECT_EQ(exe->plan_stats().steps, 1) << c.name << ": the convert is not a step of its own";
    EXPECT_EQ(exe->plan_stats().gemm, 1) << c.name;
    EXPECT_EQ(exe->plan_stats().fallback, 0) << c.name;
    // The folded result is the f32 sum of the bf16 products: the f32 dot of the same values
    // (converted on the reference) to f32 accuracy, and within half a bf16 ulp of the program's
    // rounded-then-converted result.
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      auto args = random_args(*f, seed);
      auto rounded = make_backend("reference")->compile(f)->run(args);
      auto got = exe->run(args);
      expect_near(got[0], rounded[0], 0x1p-8, 1e-3, std::string(c.name) + "_rounded");
      std::vector<Literal> wide_args;
      for (const Literal& a : args) {
        Literal w = Literal::zeros(TensorType{DType::f32, a.type.shape});
        for (int64_t i = 0; i < a.numel(); ++i)
          w.data<float>()[i] = static_cast<float>(a.data<bf16>()[i]);
        wide_args.push_back(std::move(w));
      }
      std::string text = dot(c.args, c.attrs, "f32", c.shape, false);
      for (size_t p = text.find("bf16"); p != std::string::npos; p = text.find("bf16"))
        text.replace(p, 4, "f32");
      auto exact = make_backend("reference")->compile(parse_program(text))->run(wide_args);
      expect_near(got[0], exact[0], 1e-5, 1e-4, std::string(c.name) + "_f32");
    }
  }
}

TEST(CpuBf16Gemm, ADotThatIsAlsoAResultIsNotFolded) {
  FunctionPtr f = parse_program(
      "func @main(%x: bf16[8,16], %w: bf16[16,4]) -> (bf16[8,4], f32[8,4]) {\n"
      "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], lhs_contracting=[1], "
      "rhs_contracting=[0]} : bf16[8,4]\n  %1 = convert(%0) {dtype=f32} : f32[8,4]\n"
      "  return %0, %1\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().steps, 2);
  auto args = random_args(*f, 7);
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe->run(args);
  expect_near(got[0], want[0], 0x1p-7, 1e-3, "bf16");
  for (int64_t i = 0; i < want[1].numel(); ++i)  // the convert of the cpu's own bf16 result
    EXPECT_EQ(got[1].at(i), got[0].at(i));
}

}  // namespace

namespace {

// f32 <-> bf16 converts (convert.cc) are the reference's bit for bit, specials and ties included.
TEST(CpuBf16Convert, BitForBitWithTheReference) {
  FunctionPtr f = parse_program(
      "func @main(%a: f32[100000]) -> (bf16[100000], f32[100000]) {\n"
      "  %0 = convert(%a) {dtype=bf16} : bf16[100000]\n"
      "  %1 = convert(%0) {dtype=f32} : f32[100000]\n  return %0, %1\n}");
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fallback, 0);
  Literal a = Literal::zeros(f->param_types()[0]);
  std::mt19937 rng(3);
  const float specials[] = {0.0f,       -0.0f,   INFINITY,
                            -INFINITY,  NAN,     1e-40f,
                            -1e-45f,    3.4e38f, 1.00390625f /* a tie: rounds to even */,
                            1.01171875f /* odd tie */};
  for (int64_t i = 0; i < a.numel(); ++i) {
    uint32_t bits = static_cast<uint32_t>(rng());
    float v;
    std::memcpy(&v, &bits, 4);
    a.data<float>()[i] = i < 10 ? specials[i] : v;
  }
  const std::vector<Literal> args = {a};
  auto want = make_backend("reference")->compile(f)->run(args);
  auto got = exe->run(args);
  for (size_t r = 0; r < 2; ++r) {
    ASSERT_EQ(got[r].type, want[r].type);
    EXPECT_EQ(std::memcmp(got[r].buffer.data(), want[r].buffer.data(), want[r].type.bytes()), 0)
        << "result " << r;
  }
}

}  // namespace
