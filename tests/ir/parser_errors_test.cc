// Malformed programs: every file of tests/ir/corpus/bad must give a ParseError (never another
// exception, never a crash) at the position its first line names ("// expect LINE:COLUMN").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lazax/core/error.h"
#include "lazax/ir/printer.h"

using namespace lazax;

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses `text` and returns the ParseError; fails the test on success or another exception.
ParseError parse_error(const std::string& text) {
  try {
    parse_program(text);
  } catch (const ParseError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ParseError: " << e.what();
    return ParseError("", 0, 0);
  }
  ADD_FAILURE() << "parsed without error:\n" << text;
  return ParseError("", 0, 0);
}

void expect_error(const std::string& text, int line, int column, const std::string& part) {
  ParseError e = parse_error(text);
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.column(), column) << e.what();
  EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
}

}  // namespace

TEST(ParserErrors, BadCorpus) {
  const std::filesystem::path dir = LAZAX_SOURCE_DIR "/tests/ir/corpus/bad";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".lzir") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  EXPECT_GE(files.size(), 40u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::string text = read_file(path);
    ParseError e = parse_error(text);
    EXPECT_GE(e.line(), 1);
    EXPECT_GE(e.column(), 1);
    EXPECT_TRUE(std::string(e.what()).starts_with("[parse] line ")) << e.what();
    int line = 0, column = 0;
    if (std::sscanf(text.c_str(), "// expect %d:%d", &line, &column) == 2) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_EQ(e.column(), column) << e.what();
    }
  }
}

TEST(ParserErrors, MessagesSayWhatWasExpected) {
  const std::string sig = "func @main(%x: f32[2]) -> (f32[2]) {\n";
  expect_error("", 1, 1, "empty program");
  expect_error(sig + "  %0 = tanhh(%x) : f32[2]\n  return %0\n}\n", 2, 8, "unknown op 'tanhh'");
  expect_error(sig + "  %0 = add(%x) : f32[2]\n  return %0\n}\n", 2, 8,
               "add takes 2 operands, got 1");
  expect_error(sig + "  %0 = tanh(%x : f32[2]\n  return %0\n}\n", 2, 16,
               "expected ',' or ')' after an operand, got ':'");
  expect_error(sig + "  %0 = tanh(%y) : f32[2]\n  return %0\n}\n", 2, 13,
               "use of undefined value %y");
  expect_error(sig + "  %0 = cumsum(%x) {axis=0} : f32[2]\n  return %0\n}\n", 2, 26,
               "cumsum is missing attribute 'reverse'");
  expect_error(sig + "  %0 = cumsum(%x) {axis=0, reverse=false, rev=1} : f32[2]\n  return %0\n}\n",
               2, 43, "cumsum has no attribute 'rev'; its attributes are axis, reverse");
  // Shape rule errors keep the rule's message and point at the op.
  expect_error(
      "func @main(%x: f32[2], %y: f32[3]) -> (f32[2]) {\n  %0 = add(%x, %y) : f32[2]\n"
      "  return %0\n}\n",
      2, 8, "[add] operands must have the same shape");
  expect_error("func @main(%x: f32[2]) -> (f32[3]) {\n  %0 = tanh(%x) : f32[3]\n  return %0\n}\n",
               2, 8, "declared result type (f32[3]) does not match the shape rule's (f32[2])");
  expect_error(sig + "  %0 = call(%x) {callee=@main} : f32[2]\n  return %0\n}\n", 2, 25,
               "recursion: @main -> @main");
  expect_error(sig + "  return %x\n}\nfunc @main() -> () {\n  return\n}\n", 4, 6,
               "function @main is defined twice (first at line 1)");
  expect_error(sig + "  %0 = tanh(%x) : f32[2]\n  %0 = tanh(%x) : f32[2]\n  return %0\n}\n", 3, 3,
               "value %0 is defined twice (first at line 2)");
  expect_error(
      "func @main() -> (f32[2]) {\n  %0 = constant() {value=f32[2] [1]} : f32[2]\n"
      "  return %0\n}\n",
      2, 33, "constant f32[2] needs 2 values, got 1");
  expect_error(
      "func @main() -> (i64[1]) {\n  %0 = constant() {value=i64[1] "
      "[9223372036854775808]} : i64[1]\n  return %0\n}\n",
      2, 34, "does not fit in 64 bits");
  expect_error("func @main(%x: f32[2]) -> (f32[2]) {\n  return %x\n", 3, 1,
               "expected '}' to end @main after return, got end of input");
}

TEST(ParserErrors, GoodInputVariantsAreAccepted) {
  // Comments anywhere, names other than the printer's, #0 on a single result, empty functions.
  auto f = parse_program(
      "// leading comment\n"
      "func @empty() -> () { return }  // trailing comment\n"
      "func @main(%input.0: f32[2]) -> (f32[2], f32[2]) {\n"
      "  %t = tanh(%input.0) : (f32[2])\n"
      "  %_1 = exp(%t#0) : f32[2]\n"
      "  return %t, %_1\n"
      "}\n");
  EXPECT_EQ(f->name(), "main");
  EXPECT_EQ(f->nodes().size(), 3u);
  // Attributes in any order.
  auto g = parse_program(
      "func @main(%x: f32[2]) -> (f32[2]) {\n"
      "  %0 = cumsum(%x) {reverse=true, axis=0} : f32[2]\n  return %0\n}\n");
  EXPECT_TRUE(g->node(1).attr<CumsumAttrs>().reverse);
}

TEST(ParserErrors, NoInputCrashes) {
  // Every prefix of a valid program is either valid or a ParseError.
  const std::string text =
      "func @body(%c: f32[], %x: f32[3]) -> (f32[], f32[3]) {\n"
      "  %0 = reduce_sum(%x) {axes=[0]} : f32[] loc(\"a.cc\":3) scope(\"s\")\n"
      "  %1 = add(%c, %0) : f32[]\n"
      "  %2 = broadcast_in_dim(%1) {shape=[3], broadcast_dimensions=[]} : f32[3]\n"
      "  return %1, %2\n}\n"
      "func @main(%c: f32[], %xs: f32[4,3], %k: i64[2]) -> (f32[], f32[4,3], i32[2]) {\n"
      "  %0:2 = scan(%c, %xs) {body=@body, length=4, num_carry=1, reverse=false} : "
      "(f32[], f32[4,3])\n"
      "  %1:2 = random_bits(%k) {shape=[2], dtype=i32} : (i32[2], i64[2])\n"
      "  %2 = constant() {value=f32[2] [1.5, -inf]} : f32[2]\n"
      "  %3 = checkpoint_name(%2) {name=\"a\\n\"} : f32[2]\n"
      "  return %0#0, %0#1, %1#0\n}\n";
  for (size_t n = 0; n < text.size(); ++n) {
    try {
      parse_program(text.substr(0, n));
    } catch (const ParseError& e) {
      EXPECT_GE(e.line(), 1);
      EXPECT_GE(e.column(), 1);
    }
  }
  EXPECT_NO_THROW(parse_program(text));
}
