// Every elementwise and rowwise primitive of the op table runs in the cpu backend's fused kernels
// (f32 or bf16, and bool where the op makes or reads a predicate), never the interpreter's kernel
// through run_fallback, and gives the reference interpreter's values (in bf16 its bits, but for
// bf16_contract.h's SIMD math and sums). The table it walks is fusible.h's,
// derived from LAZAX_OPS: an op added there without a fused form fails the build. The ops that
// do fall back (with their reason) are printed, and checked to really fall back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bf16_contract.h"
#include "fusible.h"
#include "lazax/backend/backend.h"
#include "lazax/ir/printer.h"

using namespace lazax;

namespace {

constexpr const char* kT = "f32[8,256]";  // 2048 elements: past the fusion threshold
constexpr const char* kB = "bool[8,256]";

std::string line(const std::string& s) { return "  " + s + "\n"; }

// A program in which `op` is a member of a fusion group (with an add or a select after it, so
// that the group has two members), over f32 inputs %a, %b, %c.
std::string program_for(OpCode op) {
  const std::string name(op_name(op)), t = kT, b = kB;
  std::string body, result = "%1", rtype = t;
  const int arity = op_info(op).arity;
  if (op == OpCode::compare) {
    body = line("%0 = compare(%a, %b) {dir=lt} : " + b) + line("%1 = select(%0, %a, %b) : " + t);
  } else if (op == OpCode::select) {
    body = line("%0 = compare(%a, %b) {dir=ge} : " + b) + line("%1 = select(%0, %c, %b) : " + t);
  } else if (op == OpCode::is_finite) {
    body = line("%d = div(%a, %b) : " + t) + line("%0 = is_finite(%d) : " + b) +
           line("%1 = select(%0, %a, %b) : " + t);
  } else if (op == OpCode::convert) {
    body = line("%p = compare(%a, %b) {dir=lt} : " + b) +
           line("%q = convert(%p) {dtype=f32} : " + t) +
           line("%0 = convert(%c) {dtype=bool} : " + b) + line("%1 = select(%0, %q, %b) : " + t);
  } else if (op == OpCode::broadcast_in_dim) {
    body = line("%s = reduce_sum(%a) {axes=[0, 1]} : f32[]") +
           line("%0 = broadcast_in_dim(%s) {shape=[8,256], broadcast_dimensions=[]} : " + t) +
           line("%1 = add(%0, %b) : " + t);
  } else if (op == OpCode::reduce_sum || op == OpCode::reduce_max || op == OpCode::reduce_min) {
    body = line("%0 = mul(%a, %b) : " + t) + line("%1 = " + name + "(%0) {axes=[1]} : f32[8]");
    rtype = "f32[8]";
  } else if (arity == 1) {
    body = line("%0 = " + name + "(%a) : " + t) + line("%1 = add(%0, %b) : " + t);
  } else if (arity == 2) {
    body = line("%0 = " + name + "(%a, %b) : " + t) + line("%1 = add(%0, %c) : " + t);
  } else {  // clamp
    body = line("%0 = " + name + "(%b, %a, %c) : " + t) + line("%1 = add(%0, %a) : " + t);
  }
  return "func @main(%a: " + t + ", %b: " + t + ", %c: " + t + ") -> (" + rtype + ") {\n" + body +
         "  return " + result + "\n}";
}

// `text` with every f32 replaced by bf16.
std::string in_bf16(std::string text) {
  for (size_t at = text.find("f32"); at != std::string::npos; at = text.find("f32", at))
    text.replace(at, 3, "bf16");
  return text;
}

std::vector<Literal> random_args(const Function& f, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> real(-3.0, 3.0);
  std::vector<Literal> args;
  for (const TensorType& t : f.param_types()) {
    Literal l = Literal::zeros(t);
    for (int64_t i = 0; i < l.numel(); ++i) {
      if (t.dtype == DType::f32 || t.dtype == DType::bf16) {
        // some exact zeros, integers and halves (sign, round, rem, compares see their edges)
        const double r = real(rng);
        const auto v = static_cast<float>(i % 7 == 0 ? std::round(r * 2) / 2 : r);
        if (t.dtype == DType::f32)
          l.data<float>()[i] = v;
        else
          l.data<bf16>()[i] = bf16(v);
      } else {
        l.data<int32_t>()[i] = static_cast<int32_t>(i * 2654435761u % 1000) - 500;
      }
    }
    args.push_back(std::move(l));
  }
  return args;
}

// `text` (the program of fused form `op`) on cpu, checked to run fused without a fallback, and
// on the reference, on random arguments: {cpu's results, the reference's}.
std::pair<std::vector<Literal>, std::vector<Literal>> run_fused_form(OpCode op,
                                                                     const std::string& text,
                                                                     uint32_t seed) {
  FunctionPtr f = parse_program(text);
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fallback, 0) << op_name(op) << " ran the interpreter's kernel";
  EXPECT_GE(exe->plan_stats().fused, 1) << op_name(op) << " was not fused";
  const auto args = random_args(*f, seed);
  return {exe->run(args), make_backend("reference")->compile(f)->run(args)};
}

TEST(CpuFusible, EveryFusedFormRunsFusedAndAgreesWithTheReference) {
  int checked = 0;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpCode>(i);
    if (cpu::fused_form(op).op == cpu::FOp::none) continue;
    const std::string text = program_for(op);
    SCOPED_TRACE(text);
    const auto [got, want] = run_fused_form(op, text, 7u + static_cast<uint32_t>(i));
    ASSERT_EQ(got.size(), want.size());
    for (int64_t k = 0; k < want[0].numel(); ++k) {
      const double g = got[0].at(k), w = want[0].at(k);
      if ((std::isnan(w) && std::isnan(g)) || g == w) continue;
      // exp, tanh, logistic, sin and cos are Highway's (within 2 ulp); the others the same bits
      ASSERT_LE(std::fabs(g - w), 4e-6 * std::max(1.0, std::fabs(w)))
          << op_name(op) << " element " << k << ": cpu " << g << ", reference " << w;
    }
    ++checked;
  }
  EXPECT_GE(checked, 39);  // (the table has 39 fused forms today)
}

// The same programs in bf16: each runs fused (widened on load, rounded after each op, narrowed on
// store) and gives the reference's bits, or for the ops whose f32 value may differ (SIMD math,
// sums in another order) a value within one bf16 epsilon.
TEST(CpuFusible, EveryFusedFormRunsFusedInBf16WithTheReferencesBits) {
  int checked = 0, exact = 0;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpCode>(i);
    if (cpu::fused_form(op).op == cpu::FOp::none) continue;
    const std::string text = in_bf16(program_for(op));
    SCOPED_TRACE(text);
    const auto [got, want] = run_fused_form(op, text, 7u + static_cast<uint32_t>(i));
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(got[0].dtype(), want[0].dtype());
    bool same = true;
    for (int64_t k = 0; k < want[0].numel(); ++k) {
      const double g = got[0].at(k), w = want[0].at(k);
      if ((std::isnan(w) && std::isnan(g)) || g == w) continue;
      same = false;
      ASSERT_TRUE(lazax::testing::bf16_may_differ(op))
          << op_name(op) << " element " << k << ": cpu " << g << ", reference " << w;
      ASSERT_LE(lazax::testing::bf16_epsilons_apart(g, w), 1.0)
          << op_name(op) << " element " << k << ": cpu " << g << ", reference " << w;
    }
    exact += same;
    ++checked;
  }
  EXPECT_GE(checked, 39);
  EXPECT_GE(exact, 25);  // every op outside the may-differ list, and some inside it
}

// A bf16 chain between f32 values (converts in, an op, a row reduction and its broadcast, a
// convert out) is one fused kernel: no convert is written out, and the bits are the reference's.
TEST(CpuFusible, ConvertsBetweenF32AndBf16FuseIntoTheGroup) {
  const std::string text = R"(func @main(%a: f32[8,256], %b: bf16[8,256]) -> (f32[8,256], bf16[8]) {
  %0 = convert(%a) {dtype=bf16} : bf16[8,256]
  %1 = mul(%0, %b) : bf16[8,256]
  %2 = reduce_max(%1) {axes=[1]} : bf16[8]
  %3 = broadcast_in_dim(%2) {shape=[8,256], broadcast_dimensions=[0]} : bf16[8,256]
  %4 = sub(%1, %3) : bf16[8,256]
  %5 = reduce_sum(%4) {axes=[1]} : bf16[8]
  %6 = convert(%4) {dtype=f32} : f32[8,256]
  %7 = add(%6, %a) : f32[8,256]
  return %7, %5
})";
  FunctionPtr f = parse_program(text);
  auto exe = make_backend("cpu")->compile(f);
  EXPECT_EQ(exe->plan_stats().fallback, 0);
  EXPECT_EQ(exe->plan_stats().fused, 1);
  EXPECT_EQ(exe->plan_stats().steps, 1) << "the converts ran as kernels of their own";
  const auto args = random_args(*f, 11);
  const auto want = make_backend("reference")->compile(f)->run(args);
  const auto got = exe->run(args);
  ASSERT_EQ(got.size(), 2u);
  for (int64_t k = 0; k < want[0].numel(); ++k)
    ASSERT_EQ(got[0].at(k), want[0].at(k)) << "element " << k;
  for (int64_t k = 0; k < want[1].numel(); ++k)  // a sum: within one bf16 epsilon
    ASSERT_LE(lazax::testing::bf16_epsilons_apart(got[1].at(k), want[1].at(k)), 1.0) << "row " << k;
}

TEST(CpuFusible, TheListedFallbacksFallBack) {
  std::string listed;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpCode>(i);
    const cpu::FusedForm form = cpu::fused_form(op);
    if (!form.fallback) continue;
    listed += "  " + std::string(op_name(op)) + ": " + form.fallback + "\n";
    const std::string name(op_name(op));
    const std::string text =
        op_info(op).arity == 1
            ? "func @main(%i: i32[8,256]) -> (i32[8,256]) {\n  %0 = " + name +
                  "(%i) : i32[8,256]\n  return %0\n}"
            : "func @main(%i: i32[8,256], %j: i32[8,256]) -> (i32[8,256]) {\n  %0 = " + name +
                  "(%i, %j) : i32[8,256]\n  return %0\n}";
    auto exe = make_backend("cpu")->compile(parse_program(text));
    EXPECT_EQ(exe->plan_stats().fallback, 1) << name << " is listed as a fallback but is not one";
  }
  std::printf("[cpu] elementwise primitives that run the interpreter's kernel:\n%s",
              listed.c_str());
}

}  // namespace
