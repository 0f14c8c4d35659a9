// export_stablehlo: every primitive of the op table exported, imported back and run gives the
// same values as the program it came from (the rejected ones are listed, each with its reason);
// the generic text parses with Debian's mlir-opt-16.
#include "lazax/stablehlo/export.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "lazax/ir/builder.h"
#include "lazax/lazax.h"
#include "lazax/stablehlo/load.h"
#include "lazax/stablehlo/stablehlo.h"

namespace lazax {
namespace {

using stablehlo::Form;

TensorType f32(std::vector<int64_t> d) { return TensorType{DType::f32, Shape(d)}; }
TensorType i32(std::vector<int64_t> d) { return TensorType{DType::i32, Shape(d)}; }

Tensor input(const TensorType& t, int seed) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (size_t k = 0; k < v.size(); ++k)
    v[k] = 0.37f * static_cast<float>((static_cast<int>(k) * 7 + seed * 3) % 11) - 1.6f;
  const auto& d = t.shape.dims();
  Tensor x = from_vector<float>(v, std::vector<int64_t>(d.begin(), d.end()));
  if (t.dtype == DType::f32) return x;
  if (t.dtype == DType::boolean) return x > 0.0f;
  return (x * 3.0f).to(t.dtype);
}

// One program per primitive (f32[2,3] inputs unless its row needs others).
struct Case {
  OpCode op;
  std::vector<TensorType> in;
  Attrs attrs;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  TensorType a = f32({2, 3}), ia = i32({2, 3});
  for (int k = 0; k < kNumOps; ++k) {
    auto op = static_cast<OpCode>(k);
    const OpInfo& info = op_info(op);
    if (!has_flag(op, OpFlags::kElementwise) || !stablehlo::why_not_exported(op).empty() ||
        op == OpCode::convert || op == OpCode::compare || op == OpCode::select)
      continue;
    bool bitwise = info.shape_rule == op_info(OpCode::and_).shape_rule;
    out.push_back({op, std::vector<TensorType>(static_cast<size_t>(info.arity), bitwise ? ia : a),
                   NoAttrs{}});
  }
  TensorType pred{DType::boolean, Shape({2, 3})}, s32 = i32({});
  out.push_back({OpCode::convert, {a}, ConvertAttrs{DType::i32}});
  out.push_back({OpCode::compare, {a, a}, CompareAttrs{CompareDir::le}});
  out.push_back({OpCode::select, {pred, a, a}, NoAttrs{}});
  out.push_back({OpCode::constant, {}, ConstantAttrs{input(a, 5).literal()}});
  out.push_back({OpCode::iota, {}, IotaAttrs{DType::f32, Shape({2, 3}), 1}});
  out.push_back({OpCode::broadcast_in_dim, {f32({3})}, BroadcastInDimAttrs{Shape({2, 3}), {1}}});
  out.push_back({OpCode::reshape, {a}, ReshapeAttrs{Shape({3, 2})}});
  out.push_back({OpCode::transpose, {a}, TransposeAttrs{{1, 0}}});
  out.push_back({OpCode::slice, {a}, SliceAttrs{{0, 1}, {2, 3}, {1, 2}}});
  out.push_back({OpCode::dynamic_slice, {a, s32, s32}, DynamicSliceAttrs{{1, 2}}});
  out.push_back({OpCode::dynamic_update_slice, {a, f32({1, 2}), s32, s32}, NoAttrs{}});
  out.push_back({OpCode::concatenate, {a, a}, ConcatenateAttrs{1}});
  out.push_back({OpCode::pad, {a, f32({})}, PadAttrs{{1, 0}, {0, 2}, {1, 1}}});
  for (OpCode r : {OpCode::reduce_sum, OpCode::reduce_max, OpCode::reduce_min, OpCode::reduce_prod})
    out.push_back({r, {a}, ReduceAttrs{{1}}});
  for (OpCode r : {OpCode::reduce_and, OpCode::reduce_or})
    out.push_back({r, {pred}, ReduceAttrs{{0}}});
  // input() repeats values along both axes: ties pick the first index.
  out.push_back({OpCode::argmax, {a}, ArgmaxAttrs{1, DType::i32}});
  out.push_back({OpCode::argmin, {a}, ArgmaxAttrs{0, DType::i64}});
  out.push_back({OpCode::argmax, {i32({4, 3})}, ArgmaxAttrs{0, DType::i32}});
  out.push_back({OpCode::dot_general, {a, f32({3, 4})}, DotGeneralAttrs{{}, {}, {1}, {0}}});
  out.push_back({OpCode::rev, {a}, RevAttrs{{0, 1}}});
  out.push_back({OpCode::checkpoint_name, {a}, CheckpointNameAttrs{"x"}});
  out.push_back({OpCode::optimization_barrier, {a, a}, NoAttrs{}});
  out.push_back({OpCode::copy_to_memory_kind, {a}, MemoryKindAttrs{}});
  // The indices input() makes (-1, 6, 1, -2, 5, 0, -3, 4) fall in and out of the [5, 3]
  // operand: fill masks (gather) or drops (scatter) a window that does not fit, clip clamps.
  TensorType x53 = f32({5, 3});
  out.push_back(
      {OpCode::gather, {x53, i32({4, 1})}, GatherAttrs{{1}, {0}, {0}, {1, 3}, GatherMode::fill}});
  out.push_back({OpCode::gather,
                 {x53, i32({4, 2})},
                 GatherAttrs{{1, 2}, {}, {0, 1}, {2, 2}, GatherMode::clip}});
  out.push_back({OpCode::gather,
                 {x53, i32({4, 2})},
                 GatherAttrs{{1, 2}, {}, {0, 1}, {2, 2}, GatherMode::fill}});
  out.push_back({OpCode::scatter_add,
                 {x53, i32({4, 1}), f32({4, 3})},
                 ScatterAttrs{{1}, {0}, {0}, GatherMode::fill}});
  out.push_back({OpCode::scatter_add,
                 {x53, i32({4, 2}), f32({4, 2, 2})},
                 ScatterAttrs{{1, 2}, {}, {0, 1}, GatherMode::clip}});
  return out;
}

FunctionPtr program(const Case& c) {
  Builder b(std::string(op_name(c.op)));
  std::vector<ValueRef> in;
  for (const TensorType& t : c.in) in.push_back(b.param(t));
  return b.build(b.add_multi(c.op, in, c.attrs));
}

void expect_same(const FunctionPtr& f, const std::vector<TensorType>& in, Form form,
                 const std::string& what) {
  std::vector<Tensor> args;
  for (size_t k = 0; k < in.size(); ++k) args.push_back(input(in[k], static_cast<int>(k)));
  if (in.size() >= 3 && in[1].numel() == 1 && in[1].dtype == DType::i32)  // in-range indices
    args[1] = args[2] = from_vector<int32_t>({1}, {});
  std::string text = stablehlo::export_stablehlo(*f, form);
  FunctionPtr back = stablehlo::import_stablehlo(text);
  std::vector<Tensor> want = call(f, args), got = call(back, args);
  ASSERT_EQ(want.size(), got.size()) << what << "\n" << text;
  for (size_t k = 0; k < want.size(); ++k) {
    Literal w = want[k].literal(), g = got[k].literal();
    ASSERT_TRUE(w.type == g.type) << what << "\n" << text;
    EXPECT_EQ(std::memcmp(w.buffer.data(), g.buffer.data(), w.type.bytes()), 0)
        << what << " result " << k << "\n"
        << text;
  }
}

TEST(StableHloExport, EveryExportablePrimitiveRoundTrips) {
  std::set<OpCode> covered;
  for (const Case& c : cases()) {
    FunctionPtr f = program(c);
    for (Form form : {Form::generic, Form::pretty})
      expect_same(f, c.in, form, std::string(op_name(c.op)));
    covered.insert(c.op);
  }
  // Every primitive is either round-tripped above or rejected with its reason (the control ops
  // have their own test below); this list is docs/STABLEHLO.md's.
  const std::set<std::string> rejected = {"relu",       "erf",
                                          "erf_inv",    "exp2",
                                          "sort",       "cumsum",
                                          "cumprod",    "cummax",
                                          "cummin",     "random_bits",
                                          "scan",       "all_reduce",
                                          "all_gather", "reduce_scatter",
                                          "all_to_all", "collective_broadcast",
                                          "axis_index"};
  for (int k = 0; k < kNumOps; ++k) {
    auto op = static_cast<OpCode>(k);
    std::string name(op_name(op)), why = stablehlo::why_not_exported(op);
    if (op == OpCode::parameter || op == OpCode::call || op == OpCode::cond || op == OpCode::while_)
      continue;
    if (rejected.count(name) != 0) {
      EXPECT_EQ(why.rfind("[stablehlo export] " + name + " has no StableHLO counterpart: ", 0), 0u)
          << why;
      EXPECT_EQ(covered.count(op), 0u) << name;
    } else {
      EXPECT_EQ(why, "") << name;
      EXPECT_EQ(covered.count(op), 1u) << name << " has no round-trip case";
    }
  }
  // A rejected primitive fails the export with that reason.
  Builder b("relu_fn");
  ValueRef x = b.param(f32({2}));
  FunctionPtr f = b.build({b.add(OpCode::relu, {x})});
  try {
    stablehlo::export_stablehlo(*f);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), stablehlo::why_not_exported(OpCode::relu));
  }
}

// call, cond (an i32 index, clamped, and a bool) and while_ in one program.
FunctionPtr control_program(int32_t index) {
  FunctionPtr inner = [] {
    Builder b("inner");
    ValueRef x = b.param(f32({3}));
    return b.build({b.add(OpCode::tanh, {x})});
  }();
  auto branch = [&](OpCode op) {
    Builder b("branch");
    ValueRef x = b.param(f32({3}));
    return b.build({b.add(op, {x})});
  };
  FunctionPtr cond_fn = [] {
    Builder b("lt3");
    ValueRef i = b.param(i32({}));
    b.param(f32({3}));
    Literal three = Literal::from_vector<int32_t>({3}, Shape());
    return b.build({b.add(OpCode::compare, {i, b.constant(three)}, CompareAttrs{CompareDir::lt})});
  }();
  FunctionPtr body_fn = [] {
    Builder b("step");
    ValueRef i = b.param(i32({})), x = b.param(f32({3}));
    Literal one = Literal::from_vector<int32_t>({1}, Shape());
    return b.build({b.add(OpCode::add, {i, b.constant(one)}), b.add(OpCode::sin, {x})});
  }();
  Builder b("control");
  ValueRef x = b.param(f32({3}));
  ValueRef called = b.add_multi(OpCode::call, {x}, CallAttrs{inner})[0];
  ValueRef idx = b.constant(Literal::from_vector<int32_t>({index}, Shape()));
  std::vector<FunctionPtr> three{branch(OpCode::exp), branch(OpCode::cos), branch(OpCode::neg)};
  ValueRef c = b.add_multi(OpCode::cond, {idx, called}, CondAttrs{three})[0];
  ValueRef p = b.add(OpCode::compare, {idx, b.constant(Literal::zeros(i32({})))},
                     CompareAttrs{CompareDir::gt});
  std::vector<FunctionPtr> two{branch(OpCode::abs), branch(OpCode::sqrt)};
  ValueRef d = b.add_multi(OpCode::cond, {p, c}, CondAttrs{two})[0];
  ValueRef zero = b.constant(Literal::zeros(i32({})));
  ValueRef w = b.add_multi(OpCode::while_, {zero, d}, WhileAttrs{cond_fn, body_fn})[1];
  return b.build({w});
}

TEST(StableHloExport, ControlFlowRoundTrips) {
  for (int32_t index : {-2, 0, 1, 2, 9}) {
    for (Form form : {Form::generic, Form::pretty})
      expect_same(control_program(index), {f32({3})}, form,
                  "control at index " + std::to_string(index));
  }
}

// A C++ function and its VJP exported (lazax::export_stablehlo, export_vjp_stablehlo) and
// imported back: the forward gives f's values, the VJP program the gradients the tape gives
// for the same cotangent (an integer input gets none).
TEST(StableHloExport, TracedFunctionAndItsVjp) {
  auto f = [](const Tensor& x, const Tensor& w, const Tensor& ids) {
    Tensor h = tanh(matmul(x, w));
    return std::make_tuple(softmax(h, 1) * h, index_select(h, 1, ids).sum());
  };
  Tensor x = input(f32({2, 3}), 1), w = input(f32({3, 4}), 2);
  Tensor ids = from_vector<int64_t>({3, 0, 3}, {3});
  FunctionPtr fwd = stablehlo::import_stablehlo(export_stablehlo(f, x, w, ids));
  FunctionPtr vjp = stablehlo::import_stablehlo(export_vjp_stablehlo(f, x, w, ids));
  ASSERT_EQ(fwd->num_params(), 3);
  ASSERT_EQ(vjp->num_params(), 5);  // x, w, ids, then the cotangents of both results
  ASSERT_EQ(vjp->result_types().size(), 2u);
  auto [y, s] = f(x, w, ids);
  std::vector<Tensor> got = call(fwd, {x, w, ids});
  EXPECT_EQ(got[0].to_vector<float>(), y.to_vector<float>());
  EXPECT_EQ(got[1].to_vector<float>(), s.to_vector<float>());
  Tensor ct = input(f32({2, 4}), 3), ct_s = from_vector<float>({0.5f}, {});
  std::vector<Tensor> g = call(vjp, {x, w, ids, ct, ct_s});
  Tensor xa = x.detach().requires_grad_(), wa = w.detach().requires_grad_();
  auto [ya, sa] = f(xa, wa, ids);
  ((ya * ct).sum() + sa * ct_s).backward();
  for (auto [want, have] : {std::pair{xa.grad(), g[0]}, {wa.grad(), g[1]}}) {
    std::vector<float> a = want.to_vector<float>(), b = have.to_vector<float>();
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-6f) << k;
  }
}

TEST(StableHloExport, GenericTextParsesWithMlirOpt) {
  const char* tool = "/usr/bin/mlir-opt-16";
  if (std::FILE* probe = std::fopen(tool, "r")) {
    std::fclose(probe);
  } else {
    GTEST_SKIP() << tool << " is not installed (Debian package mlir-16-tools)";
  }
  // (The pretty form needs the StableHLO dialect registered, which Debian's tool has not.)
  std::vector<std::pair<std::string, FunctionPtr>> programs;
  for (const Case& c : cases()) programs.emplace_back(op_name(c.op), program(c));
  programs.emplace_back("control flow", control_program(1));
  for (const auto& [name, f] : programs) {
    std::string path = testing::TempDir() + "lazax_export_" + name.substr(0, 7) + ".mlir";
    std::ofstream(path) << stablehlo::export_stablehlo(*f);
    std::string cmd = std::string(tool) + " --allow-unregistered-dialect " + path +
                      " > /dev/null 2> " + path + ".err";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << name << ": see " << path << ".err";
  }
}

}  // namespace
}  // namespace lazax
