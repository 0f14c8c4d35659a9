// The IR text form: every op round-trips exactly (print(parse(text)) == text and equal hashes),
// constants of every dtype keep their bits, debug info survives, names are made unique, and the
// DOT export mentions every node.
#include "lazax/ir/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "lazax/ir/builder.h"

using namespace lazax;

namespace {

// Parses `text`, which must be in printed (canonical) form, and checks the exact round trip.
FunctionPtr round_trip(const std::string& text) {
  FunctionPtr f = parse_program(text);
  std::string printed = print_program(*f);
  EXPECT_EQ(printed, text);
  FunctionPtr g = parse_program(printed);
  EXPECT_EQ(g->hash(), f->hash());
  EXPECT_EQ(print_program(*g), printed);
  return f;
}

std::string elementwise_program(OpCode op) {
  const OpInfo& info = op_info(op);
  // The bitwise ops take integers; is_finite returns bool.
  const bool integer = op == OpCode::and_ || op == OpCode::or_ || op == OpCode::xor_ ||
                       op == OpCode::not_ || op == OpCode::shift_left ||
                       op == OpCode::shift_right_logical || op == OpCode::shift_right_arithmetic;
  const std::string in = integer ? "i32[2,3]" : "f32[2,3]";
  const std::string out = op == OpCode::is_finite ? "bool[2,3]" : in;
  std::string params, args;
  for (int i = 0; i < info.arity; ++i) {
    params += (i ? ", " : "") + ("%arg" + std::to_string(i)) + ": " + in;
    args += (i ? ", " : "") + ("%arg" + std::to_string(i));
  }
  return "func @main(" + params + ") -> (" + out + ") {\n  %0 = " + std::string(info.name) + "(" +
         args + ") : " + out + "\n  return %0\n}\n";
}

// One program per op with attributes or sub-functions, in printed form.
const std::vector<std::string>& op_programs() {
  // Each program is one string made of adjacent literals, one per line of text.
  static const std::vector<std::string> programs = {
      "func @main(%arg0: f32[4,2]) -> (f32[4,2], f32[4,2], f32[4,2], f32[4,2], i32[]) {\n"
      "  %0 = all_reduce(%arg0) {reduce=mean, group_size=1} : f32[4,2]\n"
      "  %1 = all_gather(%0) {axis=1, group_size=1} : f32[4,2]\n"
      "  %2 = reduce_scatter(%1) {reduce=max, axis=0, group_size=1} : f32[4,2]\n"
      "  %3 = all_to_all(%2) {split_axis=0, concat_axis=1, group_size=1} : f32[4,2]\n"
      "  %4 = collective_broadcast(%3) {root=0, group_size=1} : f32[4,2]\n"
      "  %5 = axis_index() {group_size=1} : i32[]\n"
      "  return %1, %2, %3, %4, %5\n}\n",
      "func @main() -> (f32[2]) {\n"  // NOLINT(bugprone-suspicious-missing-comma)
      "  %0 = constant() {value=f32[2] [1.5, -inf]} : f32[2]\n"
      "  return %0\n}\n",
      "func @main() -> (i32[2,3]) {\n"
      "  %0 = iota() {dtype=i32, shape=[2,3], dimension=1} : i32[2,3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[3], %arg1: f32[3]) -> (bool[3]) {\n"
      "  %0 = compare(%arg0, %arg1) {dir=lt} : bool[3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: bool[3], %arg1: f32[3], %arg2: f32[3]) -> (f32[3]) {\n"
      "  %0 = select(%arg0, %arg1, %arg2) : f32[3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[3]) -> (bf16[3]) {\n"
      "  %0 = convert(%arg0) {dtype=bf16} : bf16[3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[3]) -> (f32[2,3]) {\n"
      "  %0 = broadcast_in_dim(%arg0) {shape=[2,3], broadcast_dimensions=[1]} : f32[2,3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[2,3]) -> (f32[3,2]) {\n"
      "  %0 = reshape(%arg0) {new_sizes=[3,2]} : f32[3,2]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[2,3]) -> (f32[3,2]) {\n"
      "  %0 = transpose(%arg0) {permutation=[1, 0]} : f32[3,2]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[5]) -> (f32[2]) {\n"
      "  %0 = slice(%arg0) {start_indices=[1], limit_indices=[5], strides=[2]} : f32[2]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[5], %arg1: i32[]) -> (f32[2]) {\n"
      "  %0 = dynamic_slice(%arg0, %arg1) {slice_sizes=[2]} : f32[2]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[5], %arg1: f32[2], %arg2: i64[]) -> (f32[5]) {\n"
      "  %0 = dynamic_update_slice(%arg0, %arg1, %arg2) : f32[5]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[2], %arg1: f32[3]) -> (f32[5]) {\n"
      "  %0 = concatenate(%arg0, %arg1) {dimension=0} : f32[5]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[3], %arg1: f32[]) -> (f32[8]) {\n"
      "  %0 = pad(%arg0, %arg1) {edge_padding_low=[1], edge_padding_high=[2], "
      "interior_padding=[1]} : f32[8]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[2,3]) -> (f32[2], f32[3], f32[2], f32[]) {\n"
      "  %0 = reduce_sum(%arg0) {axes=[1]} : f32[2]\n"
      "  %1 = reduce_max(%arg0) {axes=[0]} : f32[3]\n"
      "  %2 = reduce_min(%arg0) {axes=[1]} : f32[2]\n"
      "  %3 = reduce_prod(%arg0) {axes=[0, 1]} : f32[]\n"
      "  return %0, %1, %2, %3\n}\n",
      "func @main(%arg0: f32[2,3]) -> (i64[2]) {\n"
      "  %0 = argmax(%arg0) {axis=1, index_dtype=i64} : i64[2]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[2,3], %arg1: f32[3,4]) -> (f32[2,4]) {\n"
      "  %0 = dot_general(%arg0, %arg1) {lhs_batch=[], rhs_batch=[], lhs_contracting=[1], "
      "rhs_contracting=[0]} : f32[2,4]\n"
      "  %1 = tanh(%0) : f32[2,4]\n"
      "  return %1\n}\n",
      "func @main(%arg0: f32[5,3], %arg1: i32[4,1]) -> (f32[4,3]) {\n"
      "  %0 = gather(%arg0, %arg1) {offset_dims=[1], collapsed_slice_dims=[0], "
      "start_index_map=[0], slice_sizes=[1, 3], mode=fill} : f32[4,3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[5,3], %arg1: i32[4,1], %arg2: f32[4,3]) -> (f32[5,3]) {\n"
      "  %0 = scatter_add(%arg0, %arg1, %arg2) {update_window_dims=[1], "
      "inserted_window_dims=[0], scatter_dims_to_operand_dims=[0], mode=clip} : f32[5,3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: i32[3]) -> (i32[3]) {\n"
      "  %0 = cumsum(%arg0) {axis=0, reverse=true} : i32[3]\n"
      "  return %0\n}\n",
      "func @main(%arg0: f32[2,3]) -> (f32[2,3], f32[2,3], i64[2,3], f32[2,3], i64[2,3]) {\n"
      "  %0 = cumprod(%arg0) {axis=1, reverse=false} : f32[2,3]\n"
      "  %1:2 = cummax(%arg0) {axis=0, reverse=false} : (f32[2,3], i64[2,3])\n"
      "  %2:2 = cummin(%arg0) {axis=1, reverse=true} : (f32[2,3], i64[2,3])\n"
      "  return %0, %1#0, %1#1, %2#0, %2#1\n}\n",
      "func @main(%arg0: f32[2,3]) -> (i32[2], f32[2,3], f32[2,3], i64[2,3]) {\n"
      "  %0 = argmin(%arg0) {axis=1, index_dtype=i32} : i32[2]\n"
      "  %1 = rev(%arg0) {dimensions=[0, 1]} : f32[2,3]\n"
      "  %2:2 = sort(%arg0) {axis=1, descending=true} : (f32[2,3], i64[2,3])\n"
      "  return %0, %1, %2#0, %2#1\n}\n",
      "func @main(%arg0: bool[2,3]) -> (bool[2], bool[]) {\n"
      "  %0 = reduce_and(%arg0) {axes=[1]} : bool[2]\n"
      "  %1 = reduce_or(%arg0) {axes=[0, 1]} : bool[]\n"
      "  return %0, %1\n}\n",
      "func @main(%arg0: i64[2]) -> (i32[4], i64[2], i32[4]) {\n"
      "  %0:2 = random_bits(%arg0) {shape=[4], dtype=i32} : (i32[4], i64[2])\n"
      "  %1 = add(%0#0, %0#0) : i32[4]\n"
      "  return %0#0, %0#1, %1\n}\n",
      "func @inc(%arg0: f32[3]) -> (f32[3]) {\n"
      "  %0 = exp(%arg0) : f32[3]\n"
      "  return %0\n}\n\n"
      "func @main(%arg0: f32[3]) -> (f32[3]) {\n"
      "  %0 = call(%arg0) {callee=@inc} : f32[3]\n"
      "  return %0\n}\n",
      "func @on_false(%arg0: f32[3]) -> (f32[3]) {\n"
      "  %0 = neg(%arg0) : f32[3]\n"
      "  return %0\n}\n\n"
      "func @on_true(%arg0: f32[3]) -> (f32[3]) {\n"
      "  return %arg0\n}\n\n"
      "func @main(%arg0: bool[], %arg1: f32[3]) -> (f32[3]) {\n"
      "  %0 = cond(%arg0, %arg1) {branches=[@on_false, @on_true]} : f32[3]\n"
      "  return %0\n}\n",
      "func @cond(%arg0: i32[], %arg1: f32[3]) -> (bool[]) {\n"
      "  %0 = constant() {value=i32[] [10]} : i32[]\n"
      "  %1 = compare(%arg0, %0) {dir=lt} : bool[]\n"
      "  return %1\n}\n\n"
      "func @body(%arg0: i32[], %arg1: f32[3]) -> (i32[], f32[3]) {\n"
      "  %0 = constant() {value=i32[] [1]} : i32[]\n"
      "  %1 = add(%arg0, %0) : i32[]\n"
      "  %2 = mul(%arg1, %arg1) : f32[3]\n"
      "  return %1, %2\n}\n\n"
      "func @main(%arg0: i32[], %arg1: f32[3]) -> (i32[], f32[3]) {\n"
      "  %0:2 = while(%arg0, %arg1) {cond=@cond, body=@body} : (i32[], f32[3])\n"
      "  return %0#0, %0#1\n}\n",
      "func @body(%arg0: f32[], %arg1: f32[3]) -> (f32[], f32[3]) {\n"
      "  %0 = reduce_sum(%arg1) {axes=[0]} : f32[]\n"
      "  %1 = add(%arg0, %0) : f32[]\n"
      "  %2 = broadcast_in_dim(%1) {shape=[3], broadcast_dimensions=[]} : f32[3]\n"
      "  return %1, %2\n}\n\n"
      "func @main(%arg0: f32[], %arg1: f32[4,3]) -> (f32[], f32[4,3]) {\n"
      "  %0:2 = scan(%arg0, %arg1) {body=@body, length=4, num_carry=1, reverse=false} : "
      "(f32[], f32[4,3])\n"
      "  return %0#0, %0#1\n}\n",
      "func @main(%arg0: f32[3]) -> (f32[3], f32[3]) {\n"
      "  %0 = checkpoint_name(%arg0) {name=\"attn_out\"} : f32[3]\n"
      "  %1 = checkpoint_name(%0) {name=\"q\\\"uo\\\\te\\n\\t\\r\\x01\\xff\"} : f32[3]\n"
      "  return %0, %1\n}\n",
      "func @main(%arg0: f32[3], %arg1: i32[]) -> (f32[3], i32[]) {\n"
      "  %0:2 = optimization_barrier(%arg0, %arg1) : (f32[3], i32[])\n"
      "  %1:0 = optimization_barrier() : ()\n"
      "  return %0#0, %0#1\n}\n",
      "func @main(%arg0: f32[3]) -> (f32[3]) {\n"
      "  %0 = copy_to_memory_kind(%arg0) {kind=host} : f32[3]\n"
      "  %1 = copy_to_memory_kind(%0) {kind=device} : f32[3]\n"
      "  return %1\n}\n",
  };
  return programs;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(Printer, EveryElementwiseOpRoundTrips) {
  for (int i = 0; i < kNumOps; ++i) {
    auto op = static_cast<OpCode>(i);
    if (!has_flag(op, kElementwise) || op_info(op).attrs_index != 0) {
      continue;
    }
    if (op == OpCode::select) {
      continue;  // needs a bool predicate: in op_programs()
    }
    SCOPED_TRACE(std::string(op_name(op)));
    round_trip(elementwise_program(op));
  }
}

TEST(Printer, EveryOpWithAttributesOrBodiesRoundTrips) {
  for (const auto& text : op_programs()) {
    SCOPED_TRACE(text);
    round_trip(text);
  }
}

TEST(Printer, TheTestsCoverEveryOpOfTheTable) {
  std::set<OpCode> seen;
  auto collect = [&](const FunctionPtr& f, auto&& self) -> void {
    for (const auto& n : f->nodes()) {
      seen.insert(n.op);
    }
    for (const auto& c : f->callees()) {
      self(c, self);
    }
  };
  for (int i = 0; i < kNumOps; ++i) {
    auto op = static_cast<OpCode>(i);
    if (has_flag(op, kElementwise) && op_info(op).attrs_index == 0 && op != OpCode::select) {
      collect(parse_program(elementwise_program(op)), collect);
    }
  }
  for (const auto& text : op_programs()) {
    collect(parse_program(text), collect);
  }
  for (int i = 0; i < kNumOps; ++i) {
    EXPECT_TRUE(seen.count(static_cast<OpCode>(i))) << op_name(static_cast<OpCode>(i));
  }
}

TEST(Printer, IssueExampleParsesExactly) {
  const std::string text =
      "// a two-layer example\n"
      "func @main(%x: f32[2,3], %w: f32[3,4]) -> (f32[2,4]) {\n"
      "  %0 = dot_general(%x, %w) {lhs_batch=[], rhs_batch=[], lhs_contracting=[1], "
      "rhs_contracting=[0]} : f32[2,4]\n"
      "  %1 = tanh(%0) : f32[2,4]  // activation\n"
      "  return %1\n"
      "}\n";
  FunctionPtr f = parse_program(text);
  ASSERT_EQ(f->name(), "main");
  ASSERT_EQ(f->num_params(), 2);
  EXPECT_EQ(f->param_type(0), (TensorType{DType::f32, Shape{2, 3}}));
  EXPECT_EQ(f->param_type(1), (TensorType{DType::f32, Shape{3, 4}}));
  ASSERT_EQ(f->nodes().size(), 4u);
  const Node& dot = f->node(2);
  EXPECT_EQ(dot.op, OpCode::dot_general);
  EXPECT_EQ(dot.attr<DotGeneralAttrs>().lhs_contracting, IntList{1});
  EXPECT_EQ(dot.attr<DotGeneralAttrs>().rhs_contracting, IntList{0});
  EXPECT_EQ(dot.operands.size(), 2u);
  EXPECT_EQ(f->node(3).op, OpCode::tanh);
  EXPECT_EQ(f->node(3).operands[0], (ValueRef{2, 0}));
  ASSERT_EQ(f->results().size(), 1u);
  EXPECT_EQ(f->results()[0], (ValueRef{3, 0}));

  // The same program built by hand has the same hash.
  Builder b("main");
  auto x = b.param({DType::f32, Shape{2, 3}});
  auto w = b.param({DType::f32, Shape{3, 4}});
  DotGeneralAttrs da;
  da.lhs_contracting = {1};
  da.rhs_contracting = {0};
  auto y = b.add(OpCode::tanh, {b.add(OpCode::dot_general, {x, w}, da)});
  EXPECT_EQ(b.build({y})->hash(), f->hash());
  EXPECT_EQ(parse_program(read_file(LAZAX_SOURCE_DIR "/tests/ir/corpus/good/mlp.lzir"))->hash(),
            f->hash());
}

TEST(Printer, GoodCorpusRoundTrips) {
  for (const char* name : {"mlp", "scan_loop", "while_loop", "cond_switch", "random"}) {
    SCOPED_TRACE(name);
    std::string text =
        read_file(std::string(LAZAX_SOURCE_DIR "/tests/ir/corpus/good/") + name + ".lzir");
    ASSERT_FALSE(text.empty());
    FunctionPtr f = parse_program(text);
    std::string printed = print_program(*f);
    FunctionPtr g = parse_program(printed);
    EXPECT_EQ(g->hash(), f->hash());
    EXPECT_EQ(print_program(*g), printed);
  }
}

namespace {

// Builds `constant(lit)` returned by @main, prints it, parses it back and compares the bits.
void expect_constant_round_trip(const Literal& lit) {
  Builder b("main");
  auto c = b.constant(lit);
  FunctionPtr f = b.build({c});
  std::string text = print_program(*f);
  FunctionPtr g = parse_program(text);
  const Literal& back = g->node(0).attr<ConstantAttrs>().value;
  ASSERT_EQ(back.type, lit.type) << text;
  for (int64_t i = 0; i < lit.numel(); ++i) {
    size_t sz = dtype_size(lit.dtype());
    const auto* a =
        static_cast<const unsigned char*>(lit.buffer.data()) + i * static_cast<int64_t>(sz);
    const auto* o =
        static_cast<const unsigned char*>(back.buffer.data()) + i * static_cast<int64_t>(sz);
    ASSERT_EQ(std::memcmp(a, o, sz), 0) << "element " << i << " of " << text.substr(0, 400);
  }
  EXPECT_EQ(g->hash(), f->hash());
  EXPECT_EQ(print_program(*g), text);
}

template <class H>
Literal all_half_patterns() {
  std::vector<H> v;
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    H h;
    h.bits = static_cast<uint16_t>(bits);
    if (std::isnan(static_cast<float>(h))) {
      continue;  // NaN payloads are not kept
    }
    v.push_back(h);
  }
  v.push_back(H(std::numeric_limits<float>::quiet_NaN()));
  return Literal::from_vector(v, Shape{static_cast<int64_t>(v.size())});
}

}  // namespace

TEST(Printer, ConstantsOfEveryDTypeKeepTheirBits) {
  const float inf = std::numeric_limits<float>::infinity();
  const double dinf = std::numeric_limits<double>::infinity();
  expect_constant_round_trip(Literal::from_vector<float>(
      {1.5f, -inf, inf, std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f, 0.1f,
       std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
       std::numeric_limits<float>::lowest(), std::numeric_limits<float>::min(), 1e10f, 3.0f},
      Shape{13}));
  expect_constant_round_trip(Literal::from_vector<double>(
      {0.1, -0.0, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
       -dinf, dinf, std::numeric_limits<double>::quiet_NaN(), 1.0 / 3.0},
      Shape{2, 4}));
  expect_constant_round_trip(all_half_patterns<f16>());
  expect_constant_round_trip(all_half_patterns<bf16>());
  expect_constant_round_trip(Literal::from_vector<int32_t>(
      {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 0, -7},
      Shape{2, 2}));
  expect_constant_round_trip(Literal::from_vector<int64_t>(
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}, Shape{2}));
  expect_constant_round_trip(Literal::from_vector<uint8_t>({0, 1, 255}, Shape{3}));
  expect_constant_round_trip(Literal::from_vector<int8_t>({-128, -1, 0, 127}, Shape{2, 2}));
  expect_constant_round_trip(Literal::from_vector<uint32_t>({0, 1, 4294967295u}, Shape{3}));
  expect_constant_round_trip(Literal::from_vector<bool>({true, false}, Shape{2, 1}));
  expect_constant_round_trip(Literal::scalar<float>(-0.0f));
  expect_constant_round_trip(Literal::zeros(TensorType{DType::f32, Shape{0, 3}}));
}

// The i8 and u32 dtypes in types, constants and dtype attributes.
TEST(Printer, Int8AndUint32RoundTrip) {
  const std::string text =
      "func @main(%arg0: i8[2], %arg1: u32[2]) -> (u32[2], i8[2], u32[3]) {\n"
      "  %0 = convert(%arg0) {dtype=u32} : u32[2]\n"
      "  %1 = add(%0, %arg1) : u32[2]\n"
      "  %2 = constant() {value=i8[2] [-128, 127]} : i8[2]\n"
      "  %3 = iota() {dtype=u32, shape=[3], dimension=0} : u32[3]\n"
      "  return %1, %2, %3\n"
      "}\n";
  FunctionPtr f = round_trip(text);
  EXPECT_EQ(f->param_type(0), (TensorType{DType::i8, Shape{2}}));
  EXPECT_EQ(f->param_type(1), (TensorType{DType::u32, Shape{2}}));
  const Node& c = f->node(4);
  ASSERT_EQ(c.op, OpCode::constant);
  EXPECT_EQ(c.attr<ConstantAttrs>().value.to_vector<int>(), (std::vector<int>{-128, 127}));
}

TEST(Printer, RandomFloatBitsRoundTrip) {
  std::mt19937_64 rng(7);
  std::vector<float> fs;
  std::vector<double> ds;
  for (int i = 0; i < 20000; ++i) {
    auto b32 = static_cast<uint32_t>(rng());
    uint64_t b64 = rng();
    float f;
    double d;
    std::memcpy(&f, &b32, 4);
    std::memcpy(&d, &b64, 8);
    if (!std::isnan(f)) {
      fs.push_back(f);
    }
    if (!std::isnan(d)) {
      ds.push_back(d);
    }
  }
  expect_constant_round_trip(Literal::from_vector(fs, Shape{static_cast<int64_t>(fs.size())}));
  expect_constant_round_trip(Literal::from_vector(ds, Shape{static_cast<int64_t>(ds.size())}));
}

TEST(Printer, FloatsPrintShortest) {
  Builder b("main");
  auto c = b.constant(Literal::from_vector<float>(
      {0.1f, -0.0f, 1.0f, std::numeric_limits<float>::quiet_NaN(), -1e-45f}, Shape{5}));
  auto h = b.constant(Literal::from_vector<f16>({f16(0.1f), f16(100.0f), f16(-2.5f)}, Shape{3}));
  auto bf = b.constant(Literal::from_vector<bf16>({bf16(0.1f), bf16(1e30f)}, Shape{2}));
  std::string text = print_program(*b.build({c, h, bf}));
  EXPECT_NE(text.find("f32[5] [0.1, -0, 1, nan, -1e-45]"), std::string::npos) << text;
  EXPECT_NE(text.find("f16[3] [0.1, 100, -2.5]"), std::string::npos) << text;
  EXPECT_NE(text.find("bf16[2] [0.1, 1e+30]"), std::string::npos) << text;
}

TEST(Printer, DebugInfoRoundTrips) {
  Builder b("main");
  DebugInfo pd{.file = intern_string("model.py"), .line = 3};
  DebugInfo nd{
      .file = intern_string("mlp \"v2\".cc"), .line = 12, .scope = intern_string("mlp/layer1")};
  DebugInfo sd{.scope = intern_string("only/scope")};
  auto x = b.param({DType::f32, Shape{2}}, pd);
  auto y = b.add(OpCode::tanh, {x}, NoAttrs{}, nd);
  auto z = b.add(OpCode::exp, {y}, NoAttrs{}, sd);
  FunctionPtr f = b.build({z});
  std::string text = print_program(*f);
  EXPECT_EQ(text,
            "func @main(%arg0: f32[2] loc(\"model.py\":3)) -> (f32[2]) {\n"
            "  %0 = tanh(%arg0) : f32[2] loc(\"mlp \\\"v2\\\".cc\":12) scope(\"mlp/layer1\")\n"
            "  %1 = exp(%0) : f32[2] scope(\"only/scope\")\n"
            "  return %1\n}\n");
  FunctionPtr g = parse_program(text);
  EXPECT_EQ(print_program(*g), text);
  EXPECT_EQ(g->hash(), f->hash());
  EXPECT_STREQ(g->node(0).debug.file, "model.py");
  EXPECT_EQ(g->node(1).debug.line, 12u);
  EXPECT_STREQ(g->node(1).debug.scope, "mlp/layer1");
  EXPECT_EQ(g->node(2).debug.file, nullptr);

  std::string plain = print_program(*f, PrintOptions{.debug_info = false});
  EXPECT_EQ(plain.find("loc("), std::string::npos);
  EXPECT_EQ(plain.find("scope("), std::string::npos);
  EXPECT_EQ(parse_program(plain)->hash(), f->hash());
  // Either order is accepted on input.
  auto h = parse_program(
      "func @main(%a: f32[2]) -> (f32[2]) {\n"
      "  %0 = tanh(%a) : f32[2] scope(\"s\") loc(\"f.cc\":1)\n  return %0\n}\n");
  EXPECT_STREQ(h->node(1).debug.scope, "s");
  EXPECT_EQ(h->node(1).debug.line, 1u);
}

namespace {

FunctionPtr unary_fn(const std::string& name, OpCode op) {
  Builder b(name);
  auto x = b.param({DType::f32, Shape{3}});
  return b.build({b.add(op, {x})});
}

}  // namespace

TEST(Printer, SubFunctionsPrintedOnceCalleesFirstWithUniqueNames) {
  FunctionPtr body1 = unary_fn("body", OpCode::exp);
  FunctionPtr body2 = unary_fn("body", OpCode::log);
  FunctionPtr sub_main = unary_fn("main", OpCode::sin);
  FunctionPtr odd = unary_fn("my fn(x)", OpCode::cos);
  // @outer calls body1 twice and body2: body1 must be printed once, before @outer.
  Builder ob("outer");
  auto ox = ob.param({DType::f32, Shape{3}});
  auto o1 = ob.add(OpCode::call, {ox}, CallAttrs{body1});
  auto o2 = ob.add(OpCode::call, {o1}, CallAttrs{body1});
  FunctionPtr outer = ob.build({ob.add(OpCode::call, {o2}, CallAttrs{body2})});
  Builder b("entry");
  auto x = b.param({DType::f32, Shape{3}});
  auto a = b.add(OpCode::call, {x}, CallAttrs{outer});
  auto c = b.add(OpCode::call, {a}, CallAttrs{sub_main});
  auto d = b.add(OpCode::call, {c}, CallAttrs{odd});
  auto e = b.add(OpCode::call, {d}, CallAttrs{body1});
  FunctionPtr f = b.build({e});

  std::string text = print_program(*f);
  auto at = [&](const std::string& s) { return text.find(s); };
  EXPECT_NE(at("func @body("), std::string::npos) << text;
  EXPECT_NE(at("func @body_1("), std::string::npos) << text;
  EXPECT_NE(at("func @main_1("), std::string::npos) << text;
  EXPECT_NE(at("func @my_fn_x_("), std::string::npos) << text;
  EXPECT_EQ(at("func @main("), std::string::npos) << text;
  EXPECT_LT(at("func @body("), at("func @outer("));
  EXPECT_LT(at("func @outer("), at("func @entry("));
  EXPECT_EQ(text.find("func @body("), text.rfind("func @body(")) << "printed twice";

  // No function is named main, so the parser returns the last one: the entry.
  FunctionPtr g = parse_program(text);
  EXPECT_EQ(g->name(), "entry");
  EXPECT_EQ(g->hash(), f->hash());
  EXPECT_EQ(print_program(*g), text);
}

TEST(Parser, ReturnsMainWhereverItIsDefined) {
  FunctionPtr f = parse_program(
      "func @main(%x: f32[3]) -> (f32[3]) {\n  %0 = call(%x) {callee=@later} : f32[3]\n"
      "  return %0\n}\n"
      "func @later(%x: f32[3]) -> (f32[3]) {\n  return %x\n}\n"
      "func @unused() -> () {\n  return\n}\n");
  EXPECT_EQ(f->name(), "main");
  ASSERT_EQ(f->callees().size(), 1u);
  EXPECT_EQ(f->callees()[0]->name(), "later");
  // Shared callees are built once: both calls refer to the same Function.
  FunctionPtr g = parse_program(
      "func @id(%x: f32[]) -> (f32[]) {\n  return %x\n}\n"
      "func @twice(%x: f32[]) -> (f32[]) {\n"
      "  %0 = call(%x) {callee=@id} : f32[]\n  %1 = call(%0) {callee=@id} : f32[]\n"
      "  return %1\n}\n");
  EXPECT_EQ(g->name(), "twice");
  EXPECT_EQ(g->node(1).attr<CallAttrs>().callee.get(), g->node(2).attr<CallAttrs>().callee.get());
}

TEST(Dot, MentionsEveryNodeAndIsBalanced) {
  FunctionPtr f = parse_program(op_programs()[op_programs().size() - 5]);  // while
  std::string dot = to_dot(*f);
  EXPECT_EQ(dot.rfind("digraph ", 0), 0u) << dot;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < dot.size(); ++i) {
    char ch = dot[i];
    if (in_string) {
      if (ch == '\\') {
        ++i;
      } else if (ch == '"') {
        in_string = false;
      }
      continue;
    }
    if (ch == '"') {
      in_string = true;
    }
    if (ch == '{') {
      ++depth;
    }
    if (ch == '}') {
      --depth;
    }
    ASSERT_GE(depth, 0) << dot;
  }
  EXPECT_EQ(depth, 0) << dot;
  EXPECT_FALSE(in_string);
  // Every node of main (f0) and of both sub-functions (f1, f2), each declared once.
  std::vector<const Function*> fns = {f.get(), f->callees()[0].get(), f->callees()[1].get()};
  for (size_t k = 0; k < fns.size(); ++k) {
    for (size_t i = 0; i < fns[k]->nodes().size(); ++i) {
      std::string decl = "f" + std::to_string(k) + "_n" + std::to_string(i) + " [label=";
      EXPECT_NE(dot.find(decl), std::string::npos) << decl << "\n" << dot;
      EXPECT_EQ(dot.find(decl), dot.rfind(decl)) << decl;
    }
  }
  EXPECT_NE(dot.find("subgraph cluster_f1"), std::string::npos);
  EXPECT_NE(dot.find("subgraph cluster_f2"), std::string::npos);
  EXPECT_NE(dot.find("while"), std::string::npos);
  EXPECT_NE(dot.find("compare"), std::string::npos);
  EXPECT_NE(dot.find("%arg1\\nf32[3]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("lhead=cluster_f1"), std::string::npos);
}
