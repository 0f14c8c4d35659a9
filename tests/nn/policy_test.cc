// lazax::Policy (lazax/nn/policy.h): jmp's policy strings, and the casts over trees (floating
// tensors only; converts recorded like any op, traced into programs, differentiated).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "lazax/ir/printer.h"
#include "nn_test_util.h"

namespace lazax {
namespace {

using test::values;

const Policy kMixed{DType::f32, DType::bf16, DType::f32};

TEST(Policy, ParsesJmpStrings) {
  EXPECT_EQ(Policy::parse("params=f32,compute=bf16,output=f32"), kMixed);
  EXPECT_EQ(Policy::parse("params=float32,compute=bfloat16,output=float32"), kMixed);
  EXPECT_EQ(Policy::parse(" p = float32 , c = bf16 , o = full "), kMixed);
  EXPECT_EQ(Policy::parse("compute=half"), kMixed);  // fields left out are f32
  EXPECT_EQ(Policy::parse("o=float16,c=f64"), (Policy{DType::f32, DType::f64, DType::f16}));
  EXPECT_EQ(Policy::parse("bfloat16"), (Policy{DType::bf16, DType::bf16, DType::bf16}));
  EXPECT_EQ(kMixed.str(), "params=f32,compute=bf16,output=f32");
  for (const char* s : {"p=bf16,c=f16,o=f64", "f16", "c=bf16,o=bf16"}) {
    Policy p = Policy::parse(s);
    EXPECT_EQ(Policy::parse(p.str()), p) << s;
  }
}

std::string parse_error(const std::string& s) {
  try {
    Policy::parse(s);
  } catch (const ValueError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Policy, ParseErrorsNameTheFieldAndListTheAccepted) {
  const std::string lists = "fields: params (p), compute (c), output (o)";
  const std::string dtypes = "f32 (float32, full), bf16 (bfloat16, half), f16 (float16)";
  std::string e = parse_error("params=f32,compute=i32");
  EXPECT_NE(e.find("[Policy::parse] unknown dtype 'i32' for compute"), std::string::npos) << e;
  EXPECT_NE(e.find(dtypes), std::string::npos) << e;
  e = parse_error("param=f32");
  EXPECT_NE(e.find("unknown field 'param'"), std::string::npos) << e;
  EXPECT_NE(e.find(lists), std::string::npos) << e;
  EXPECT_NE(parse_error("c=bf16,compute=f32").find("field 'compute' given twice"),
            std::string::npos);
  EXPECT_NE(parse_error("p=f32,,c=bf16").find("field '' has no '='"), std::string::npos);
  EXPECT_NE(parse_error("bf17").find("unknown dtype 'bf17' for the policy"), std::string::npos);
  EXPECT_NE(parse_error("  ").find("no fields"), std::string::npos);
  EXPECT_NE(parse_error("c=").find("unknown dtype '' for c"), std::string::npos);
  // A policy of an integer dtype, made by hand, cannot cast.
  EXPECT_THROW(cast_floating(ones({2}), DType::i32), DTypeError);
  EXPECT_THROW(nn::Linear(2, 2).set_policy(Policy{DType::f32, DType::i64, DType::f32}), DTypeError);
}

struct Batch {
  Tensor w;
  std::vector<Tensor> bs;
  Tensor ids;
  Tensor mask;
  int n = 0;
  LAZAX_TREE_FIELDS(w, bs, ids, mask, n)
};

TEST(Policy, CastsOnlyTheFloatingTensorsOfATree) {
  manual_seed(5);
  Batch b{randn({3, 4}),
          {randn({2}), randn({5}).to(DType::bf16)},
          randint(0, 9, {4}),
          randn({4}) > 0.0,
          7};
  auto [c, t] = kMixed.cast_to_compute(std::make_tuple(b, randn({2, 2}).to(DType::f64)));
  EXPECT_EQ(c.w.dtype(), DType::bf16);
  EXPECT_EQ(c.bs[0].dtype(), DType::bf16);
  EXPECT_EQ(c.bs[1].impl(), b.bs[1].impl());  // already bf16: the same tensor, no node
  EXPECT_EQ(c.ids.impl(), b.ids.impl());      // integer and bool tensors untouched
  EXPECT_EQ(c.mask.impl(), b.mask.impl());
  EXPECT_EQ(c.n, 7);
  EXPECT_EQ(t.dtype(), DType::bf16);
  EXPECT_EQ(values(c.w), values(b.w.to(DType::bf16)));
  Batch back = kMixed.cast_to_param(c);
  EXPECT_EQ(back.w.dtype(), DType::f32);
  EXPECT_EQ(back.bs[1].dtype(), DType::f32);
  EXPECT_EQ(back.ids.dtype(), DType::i64);
  EXPECT_EQ(Policy::parse("o=f16").cast_to_output(b).w.dtype(), DType::f16);
}

TEST(Policy, CastsAreTracedAndTheirGradientsAreF32) {
  manual_seed(6);
  Tensor w = randn({8, 3}), x = randn({4, 8});
  auto f = [](const Tensor& w, const Tensor& x) {
    auto [wc, xc] = kMixed.cast_to_compute(std::make_pair(w, x));
    return kMixed.cast_to_output(matmul(xc, wc)).sum();
  };
  const std::string text = print_program(*trace(f, w, x));
  size_t converts = 0;
  for (size_t at = text.find("= convert("); at != std::string::npos;
       at = text.find("= convert(", at + 1))
    ++converts;
  EXPECT_EQ(converts, 3u) << text;  // w and x to bf16, the product back to f32
  Tensor g = grad(f)(w, x);
  EXPECT_EQ(g.dtype(), DType::f32);
  // d/dw sum(x w) = x^T 1, in bf16 products of x.
  Tensor want = matmul(x.to(DType::bf16).t(), ones({4, 3}, DType::bf16)).to(DType::f32);
  EXPECT_EQ(values(g), values(want));
}

}  // namespace
}  // namespace lazax
