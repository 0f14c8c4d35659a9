// The syntax tree of a StableHLO module, as parse.cc reads it and import.cc maps it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/core/shape.h"
#include "lazax/ir/literal.h"

namespace lazax::stablehlo {

struct Pos {
  int line = 1, col = 1;
};

// "[stablehlo] line L, column C: msg".
[[noreturn]] void fail(Pos p, const std::string& msg);

// An attribute value: an integer list (`[1, 2]`, `array<i64: 1, 2>`, dense<[1, 2]>), a pair of
// them (`[1] x [0]`), a word (GT, FLOAT, stablehlo.add) or a constant.
struct AttrValue {
  std::vector<int64_t> ints, ints2;
  bool pair = false;
  std::string word;
  std::optional<Literal> literal;
  Pos pos;
};

struct Use {
  std::string name;
  int index = 0;  // %x#1
  Pos pos;
};

struct FuncSyntax;

struct OpSyntax {
  std::string name;  // "stablehlo.add", "func.call", "func.return"
  std::string result;
  int num_results = 0;
  // `%a, %b = ...`: one name per result (then `result` is the first); empty for `%0:2 = ...`.
  std::vector<std::string> result_names;
  std::vector<Use> operands;
  std::map<std::string, AttrValue> attrs;
  std::vector<TensorType> in_types, out_types;
  std::string callee;
  Pos pos;
  std::string loc;  // the loc(...) text, for errors
  // while's cond and body, case's branches, if's true and false branch.
  std::vector<FuncSyntax> regions;
  // How many of its own types are ui64: lazax has no u64, so the parser reads tensor<Sxui64> as
  // tensor<Sx2xui32> (low word first), which only some ops may carry (import.cc).
  int u64_types = 0;
  // How many of its types are tuples (flattened into their elements): then one name may stand
  // for several results, which get_tuple_element (`%t[i]`, read as the use %t#i) takes apart.
  int tuple_types = 0;
};

// A func.func, or an op's region (`region` set: no result types; its block arguments, if any,
// are the params; it may use values of the enclosing blocks).
struct FuncSyntax {
  std::string name;
  bool region = false;
  bool is_public = true;
  std::vector<std::string> params;
  std::vector<TensorType> param_types, result_types;
  std::vector<OpSyntax> ops;  // the last is the return
  Pos pos;
};

struct ModuleSyntax {
  std::vector<FuncSyntax> funcs;
};

// Limits that keep hostile input bounded.
inline constexpr int64_t kMaxConstantElements = int64_t{1} << 26;
inline constexpr size_t kMaxNesting = 64;

ModuleSyntax parse_module(std::string_view text);

}  // namespace lazax::stablehlo
