// The verifier: well-formed functions (made with Builder) pass; malformed ones (made directly
// with the Function constructor) throw VerifyError naming the function, the node and the fault.
#include <gtest/gtest.h>

#include "lazax/ir/builder.h"
#include "shape_rules_test_util.h"

using namespace lazax;
using namespace lazax::test;

namespace {

Node param_node(int64_t index, TensorType t) {
  Node n;
  n.op = OpCode::parameter;
  n.attrs = ParameterAttrs{index};
  n.outputs = {std::move(t)};
  return n;
}

Node op_node(OpCode op, std::vector<ValueRef> operands, std::vector<TensorType> outs,
             Attrs attrs = NoAttrs{}) {
  Node n;
  n.op = op;
  n.attrs = std::move(attrs);
  n.operands.assign(operands.begin(), operands.end());
  n.outputs = std::move(outs);
  return n;
}

Function fn(std::vector<Node> nodes, int num_params, std::vector<ValueRef> results,
            std::string name = "f") {
  return Function(std::move(name), std::move(nodes), num_params, std::move(results));
}

void expect_verify_err(const Function& f, std::vector<std::string> parts) {
  try {
    verify(f);
    ADD_FAILURE() << "verify did not throw";
  } catch (const VerifyError& e) {
    std::string m = e.what();
    EXPECT_TRUE(m.starts_with("[verify] @")) << m;
    for (const auto& p : parts)
      EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong error type: " << e.what();
  }
}

// f(x: f32[3], y: f32[3]) = x + y, written by hand.
std::vector<Node> add_nodes() {
  return {param_node(0, f32({3})), param_node(1, f32({3})),
          op_node(OpCode::add, {{0, 0}, {1, 0}}, {f32({3})})};
}

}  // namespace

TEST(Verifier, AcceptsWellFormed) {
  EXPECT_NO_THROW(verify(fn(add_nodes(), 2, {{2, 0}})));
  EXPECT_NO_THROW(verify(fn({}, 0, {})));
  // A constant, a multi-output node, results that are parameters.
  Builder b("g");
  auto key = b.param(i64({2}));
  auto bits = b.add_multi(OpCode::random_bits, {key}, RandomBitsAttrs{Shape{4}, DType::u8});
  auto c = b.constant(Literal::scalar<float>(1.5f));
  EXPECT_NO_THROW(verify(*b.build({bits[0], bits[1], c, key})));
}

TEST(Verifier, AcceptsNestedBodies) {
  Builder inner("inner");
  auto p = inner.param(f32({3}));
  auto inner_f = inner.build({inner.add(OpCode::neg, {p})});
  Builder cb("is_pos");
  auto cp = cb.param(f32({3}));
  auto s = cb.add(OpCode::reduce_sum, {cp}, ReduceAttrs{{0}});
  auto z = cb.constant(Literal::scalar<float>(0));
  auto cond_f = cb.build({cb.add(OpCode::compare, {s, z}, CompareAttrs{CompareDir::gt})});
  Builder sb("scan_body");
  auto sc = sb.param(f32({3}));
  auto sx = sb.param(f32({3}));
  auto scan_f = sb.build({sb.add(OpCode::add, {sc, sx}), sx});

  Builder b("outer");
  auto x = b.param(f32({3}));
  auto xs = b.param(f32({4, 3}));
  auto pred = b.param(boolean({}));
  auto called = b.add(OpCode::call, {x}, CallAttrs{inner_f});
  auto chosen = b.add(OpCode::cond, {pred, called}, CondAttrs{{inner_f, inner_f}});
  auto looped = b.add(OpCode::while_, {chosen}, WhileAttrs{cond_f, inner_f});
  auto scanned = b.add_multi(OpCode::scan, {looped, xs}, ScanAttrs{scan_f, 4, 1, false});
  EXPECT_NO_THROW(verify(*b.build({scanned[0], scanned[1]})));
}

TEST(Verifier, Parameters) {
  // Wrong index.
  auto nodes = add_nodes();
  nodes[1].attrs = ParameterAttrs{0};
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"@f node %1 (parameter)", "index 1"});
  // A non-parameter where a parameter must be.
  expect_verify_err(fn(add_nodes(), 3, {{2, 0}}), {"@f node %2 (add)", "parameter 2"});
  // A parameter after the parameters.
  nodes = add_nodes();
  nodes.push_back(param_node(2, f32({3})));
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %3 (parameter)", "must come first"});
  // Too many parameters for the nodes.
  expect_verify_err(fn({}, 2, {}), {"@f", "2 parameters"});
  // A parameter with operands, with two outputs, with a negative dimension.
  nodes = add_nodes();
  nodes[0].operands.push_back(ValueRef{1, 0});
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %0 (parameter)", "no operands"});
  nodes = add_nodes();
  nodes[0].outputs.push_back(f32({3}));
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %0 (parameter)", "one output"});
  nodes = {param_node(0, f32({-1}))};
  expect_verify_err(fn(nodes, 1, {{0, 0}}), {"node %0 (parameter)", "f32[-1]"});
  // Parameter attrs of another struct.
  nodes = add_nodes();
  nodes[0].attrs = NoAttrs{};
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %0 (parameter)", "index 0"});
}

TEST(Verifier, OperandReferences) {
  auto nodes = add_nodes();
  nodes[2].operands[1] = ValueRef{2, 0};  // itself
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"@f node %2 (add)", "operand 1", "%2#0"});
  nodes = add_nodes();
  nodes.push_back(op_node(OpCode::neg, {{4, 0}}, {f32({3})}));  // forward
  nodes.push_back(op_node(OpCode::neg, {{0, 0}}, {f32({3})}));
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %3 (neg)", "%4#0"});
  nodes = add_nodes();
  nodes[2].operands[0] = ValueRef{0, 1};  // a missing output
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %2 (add)", "%0#1"});
  nodes = add_nodes();
  nodes[2].operands[0] = ValueRef{-1, 0};
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %2 (add)", "%-1#0"});
  nodes = add_nodes();
  nodes[2].operands[0] = ValueRef{0, -1};
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %2 (add)", "%0#-1"});
}

TEST(Verifier, OutputTypes) {
  auto nodes = add_nodes();
  nodes[2].outputs = {f32({4})};
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %2 (add)", "f32[4]", "f32[3]"});
  nodes = add_nodes();
  nodes[2].outputs = {f32({3}), f32({3})};
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %2 (add)", "declares outputs"});
  nodes = add_nodes();
  nodes[1].outputs = {f32({2})};  // the add no longer fits its rule
  expect_verify_err(fn(nodes, 2, {{2, 0}}),
                    {"node %2 (add)", "[add] operands must have the same shape", "f32[2]"});
  nodes = add_nodes();
  nodes[2].attrs = ReduceAttrs{};
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %2 (add)", "attributes of another op"});
  nodes = add_nodes();
  nodes[2].operands.pop_back();
  expect_verify_err(fn(nodes, 2, {{2, 0}}), {"node %2 (add)", "2 operands"});
}

TEST(Verifier, Results) {
  // A Function never holds a result that does not exist: its constructor checks them.
  auto expect_ctor_err = [](std::vector<ValueRef> results, const std::string& text) {
    try {
      fn(add_nodes(), 2, std::move(results));
      FAIL() << "expected VerifyError";
    } catch (const VerifyError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("@f"), std::string::npos) << e.what();
    }
  };
  expect_ctor_err({{2, 0}, {2, 1}}, "%2#1");
  expect_ctor_err({{1, -1}}, "%1#-1");
  expect_ctor_err({{7, 0}}, "%7#0");
}

TEST(Verifier, SubFunctions) {
  // A malformed callee is reported by its own name.
  auto bad = std::make_shared<Function>(
      "bad_callee",
      std::vector<Node>{param_node(0, f32({3})), op_node(OpCode::neg, {{0, 0}}, {f32({4})})}, 1,
      std::vector<ValueRef>{{1, 0}});
  std::vector<Node> nodes = {param_node(0, f32({3})),
                             op_node(OpCode::call, {{0, 0}}, {f32({4})}, CallAttrs{bad})};
  expect_verify_err(fn(nodes, 1, {{1, 0}}), {"@bad_callee node %1 (neg)", "f32[4]"});
  // A null callee.
  nodes[1].attrs = CallAttrs{nullptr};
  expect_verify_err(fn(nodes, 1, {{1, 0}}), {"@f node %1 (call)", "null"});
  // A well-formed callee whose signature does not fit the call.
  Builder cb("takes_i32");
  auto p = cb.param(i32({3}));
  nodes[1].attrs = CallAttrs{cb.build({p})};
  nodes[1].outputs = {i32({3})};
  expect_verify_err(fn(nodes, 1, {{1, 0}}), {"@f node %1 (call)", "@takes_i32", "f32[3]"});
  // A bad while body, nested two levels down.
  Builder wb("w");
  auto wp = wb.param(boolean({}));
  auto ok_cond = wb.build({wp});
  nodes = {param_node(0, boolean({})),
           op_node(OpCode::while_, {{0, 0}}, {boolean({})}, WhileAttrs{ok_cond, nullptr})};
  expect_verify_err(fn(nodes, 1, {{1, 0}}), {"node %1 (while)", "null"});
}

// Each sub-function is verified once, however often it is referenced: a chain where each level
// calls the one below twice would take 2^40 steps otherwise.
TEST(Verifier, SharedSubFunctionsVerifiedOnce) {
  Builder b0("level0");
  auto x0 = b0.param(f32({}));
  FunctionPtr f = b0.build({b0.add(OpCode::neg, {x0})});
  for (int level = 1; level <= 40; ++level) {
    Builder b("level" + std::to_string(level));
    auto x = b.param(f32({}));
    auto y = b.add(OpCode::call, {x}, CallAttrs{f});
    auto z = b.add(OpCode::call, {y}, CallAttrs{f});
    f = b.build({z});
  }
  EXPECT_NO_THROW(verify(*f));
}
