// Internal to the parser: the syntax pass (parser.cc, parse_values.cc) reads tokens into one
// FuncAst per function, with values already resolved to ValueRefs and types checked against the
// signature; the build pass (parse_build.cc) orders the functions by their references and makes
// them with Builder, which runs every shape rule.
#pragma once
#include <string>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/ir/function.h"
#include "lexer.h"

namespace lazax::text {

struct Pos {
  int line = 1;
  int column = 1;
};

// A reference to a function by name, filled in by the build pass: `field` is the index of the
// attribute field (in `visit` order) and `element` the position in a list of functions.
struct FuncRef {
  std::string name;
  Pos pos;
  size_t field = 0;
  size_t element = 0;
};

struct StmtAst {
  OpCode op = OpCode::constant;
  Pos op_pos;
  std::vector<ValueRef> operands;
  Attrs attrs;  // function fields are null until the build pass
  std::vector<FuncRef> callees;
  std::vector<TensorType> types;
  DebugInfo debug;
};

struct FuncAst {
  std::string name;
  Pos pos;
  std::vector<TensorType> params;
  std::vector<std::string> param_names;  // as written: "%x"
  std::vector<DebugInfo> param_debug;
  std::vector<TensorType> results;
  std::vector<StmtAst> stmts;
  std::vector<ValueRef> returns;
};

// Programs whose sub-functions nest deeper than this are rejected (recursive passes over the
// program, and destroying it, would otherwise risk the stack).
inline constexpr int kMaxNesting = 256;
// Largest rank of a type or shape, and largest element count of a type and of a constant.
inline constexpr size_t kMaxRank = 64;
inline constexpr int64_t kMaxElements = int64_t{1} << 60;
inline constexpr int64_t kMaxConstantElements = int64_t{1} << 28;

// A position in the token vector, with the reading helpers both syntax files use. Errors are
// ParseErrors at the offending token.
class Cursor {
 public:
  explicit Cursor(const std::vector<Token>& toks) : toks_(toks) {}

  const Token& peek() const { return toks_[i_]; }
  const Token& next() {
    const Token& t = toks_[i_];
    if (t.kind != Tok::eof) {
      ++i_;
    }
    return t;
  }
  // The token just consumed (call after next/accept/expect only).
  const Token& previous() const { return toks_[i_ - 1]; }
  size_t index() const { return i_; }
  const Token& token(size_t i) const { return toks_[i]; }
  const Token& expect(Tok kind, const std::string& what) {
    if (peek().kind != kind) {
      fail(peek(), "expected " + what + ", got " + describe(peek()));
    }
    return next();
  }
  bool accept(Tok kind) {
    if (peek().kind != kind) {
      return false;
    }
    next();
    return true;
  }

  static Pos pos(const Token& t) { return {t.line, t.column}; }
  [[noreturn]] static void fail(const Token& t, const std::string& msg) {
    throw ParseError(msg, t.line, t.column);
  }
  [[noreturn]] static void fail(Pos p, const std::string& msg) {
    throw ParseError(msg, p.line, p.column);
  }
  static bool is_word(const Token& t, std::string_view w) {
    return t.kind == Tok::ident && t.text == w;
  }

  // A 64-bit integer token (`what` is what the message says was expected).
  static int64_t integer(const Token& t, const std::string& what);
  // The next token as an integer in [lo, hi].
  int64_t integer_in(const std::string& what, int64_t lo, int64_t hi);
  Shape dims(const std::string& what, bool is_type);
  // dtype[d0,d1,...]
  TensorType type(const std::string& what);

 private:
  const std::vector<Token>& toks_;
  size_t i_ = 0;
};

// {name=value, ...} of `op_tok`'s op into stmt.attrs (function references into stmt.callees).
void parse_attributes(Cursor& p, StmtAst& stmt, const Token& op_tok);

std::vector<FuncAst> parse_syntax(const std::vector<Token>& tokens);
// Builds every function; returns @main (or the last one) and, when asked, its parameter names.
FunctionPtr build_program(std::vector<FuncAst>& funcs, std::vector<std::string>* param_names);

}  // namespace lazax::text
