// The syntax pass of the IR parser: a recursive-descent reader over the token vector for
// functions, statements, value names and debug info (values and attributes: parse_values.cc).
#include "parser.h"

#include <unordered_map>

namespace lazax::text {
namespace {

struct ValueInfo {
  int32_t node = 0;
  size_t num_outputs = 1;
  Pos pos;
};

class Parser : public Cursor {
 public:
  explicit Parser(const std::vector<Token>& toks) : Cursor(toks) {}

  std::vector<FuncAst> program() {
    std::vector<FuncAst> funcs;
    std::unordered_map<std::string, Pos> defined;
    while (peek().kind != Tok::eof) {
      if (!is_word(peek(), "func")) {
        fail(peek(), "expected 'func' to start a function, got " + describe(peek()));
      }
      next();
      const Token& name = expect(Tok::func, "a function name like @main after 'func'");
      auto [it, fresh] = defined.emplace(std::string(name.text), pos(name));
      if (!fresh) {
        fail(name, "function @" + std::string(name.text) + " is defined twice (first at line " +
                       std::to_string(it->second.line) + "); rename one of them");
      }
      funcs.push_back(function(name));
    }
    if (funcs.empty()) {
      fail(peek(), "empty program: expected at least one 'func @name(...) -> (...) { ... }'");
    }
    return funcs;
  }

 private:
  // --- values -----------------------------------------------------------------------------
  ValueRef use() {
    const Token& t = expect(Tok::value, "a value like %0 or %x");
    auto it = values_.find(t.text);
    if (it == values_.end()) {
      fail(t, "use of undefined value %" + std::string(t.text) +
                  " (a value must be defined above its first use in the same function)");
    }
    const ValueInfo& v = it->second;
    if (accept(Tok::hash)) {
      const Token& idx = peek();
      int64_t k = integer(next(), "a result index (an integer) after '#'");
      if (k < 0 || static_cast<uint64_t>(k) >= v.num_outputs) {
        fail(idx, "%" + std::string(t.text) + " has " + std::to_string(v.num_outputs) +
                      " results; #" + std::to_string(k) + " does not exist");
      }
      return ValueRef{v.node, static_cast<int32_t>(k)};
    }
    if (v.num_outputs != 1) {
      fail(t, "%" + std::string(t.text) + " has " + std::to_string(v.num_outputs) +
                  " results: pick one with %" + std::string(t.text) + "#0 ... %" +
                  std::string(t.text) + "#" +
                  std::to_string(static_cast<int64_t>(v.num_outputs) - 1));
    }
    return ValueRef{v.node, 0};
  }

  void check_fresh(const Token& name) const {
    auto it = values_.find(name.text);
    if (it != values_.end()) {
      fail(name, "value %" + std::string(name.text) + " is defined twice (first at line " +
                     std::to_string(it->second.pos.line) + ")");
    }
  }
  void define(const Token& name, size_t num_outputs) {
    check_fresh(name);
    values_.emplace(name.text, ValueInfo{next_node_, num_outputs, pos(name)});
    ++next_node_;
  }

  const TensorType& type_of(const FuncAst& f, ValueRef v) const {
    size_t n = static_cast<size_t>(v.node);
    if (n < f.params.size()) {
      return f.params[n];
    }
    return f.stmts[n - f.params.size()].types[static_cast<size_t>(v.index)];
  }

  // --- debug info ---------------------------------------------------------------------------
  std::string debug_string(const char* what) {
    const Token& t = expect(Tok::string, std::string("a quoted ") + what);
    if (t.value.find('\0') != std::string::npos) {
      fail(t, std::string(what) + " cannot contain a NUL byte");
    }
    return t.value;
  }

  DebugInfo debug_info() {
    DebugInfo d;
    bool has_loc = false, has_scope = false;
    for (;;) {
      const Token& t = peek();
      if (is_word(t, "loc")) {
        if (has_loc) {
          fail(t, "loc(...) given twice");
        }
        has_loc = true;
        next();
        expect(Tok::lparen, "'(' after loc");
        d.file = intern_string(debug_string("file name"));
        expect(Tok::colon, "':' and a line number after the file name of loc");
        d.line = static_cast<uint32_t>(integer_in("the line of loc", 0, UINT32_MAX));
        expect(Tok::rparen, "')' to close loc(\"file\":line)");
      } else if (is_word(t, "scope")) {
        if (has_scope) {
          fail(t, "scope(...) given twice");
        }
        has_scope = true;
        next();
        expect(Tok::lparen, "'(' after scope");
        d.scope = intern_string(debug_string("scope path"));
        expect(Tok::rparen, "')' to close scope(\"a/b\")");
      } else {
        return d;
      }
    }
  }

  // --- statements and functions -----------------------------------------------------------
  // %N = op(%a, %b) {attr=value, ...} : type loc("file":line) scope("a/b")
  // %N:K = op(...) {...} : (type, ...)
  StmtAst statement(const Token& name) {
    StmtAst st;
    check_fresh(name);
    const Token* count_tok = nullptr;
    int64_t count = 1;
    if (accept(Tok::colon)) {
      count_tok = &peek();
      count = integer(next(), "the number of results (an integer) after ':'");
      if (count < 0) {
        fail(*count_tok, "the number of results cannot be negative");
      }
    }
    expect(Tok::equals, "'=' after the value name");
    const Token& op_tok = expect(Tok::ident, "an op name");
    auto op = op_from_name(op_tok.text);
    if (!op) {
      fail(op_tok, "unknown op " + describe(op_tok) + " (the ops are listed in docs/IR.md)");
    }
    st.op = *op;
    st.op_pos = pos(op_tok);
    st.attrs = default_attrs(st.op);
    expect(Tok::lparen, "'(' and the operands of " + std::string(op_tok.text));
    if (!accept(Tok::rparen)) {
      for (;;) {
        st.operands.push_back(use());
        if (accept(Tok::rparen)) {
          break;
        }
        expect(Tok::comma, "',' or ')' after an operand");
      }
    }
    int arity = op_info(st.op).arity;
    if (arity >= 0 && st.operands.size() != static_cast<size_t>(arity)) {
      fail(op_tok, std::string(op_tok.text) + " takes " + std::to_string(arity) + " operand" +
                       (arity == 1 ? "" : "s") + ", got " + std::to_string(st.operands.size()));
    }
    parse_attributes(*this, st, op_tok);
    expect(Tok::colon, "':' and the result type");
    const Token& types_tok = peek();
    if (accept(Tok::lparen)) {
      if (!accept(Tok::rparen)) {
        for (;;) {
          st.types.push_back(type("a result type"));
          if (accept(Tok::rparen)) {
            break;
          }
          expect(Tok::comma, "',' or ')' in the result types");
        }
      }
    } else {
      st.types.push_back(type("the result type"));
    }
    if (static_cast<int64_t>(st.types.size()) != count) {
      if (count_tok) {
        fail(types_tok, "%" + std::string(name.text) + ":" + std::to_string(count) + " declares " +
                            std::to_string(count) + " results but " +
                            std::to_string(st.types.size()) + " types follow");
      }
      fail(name, "%" + std::string(name.text) + " has " + std::to_string(st.types.size()) +
                     " result types: write %" + std::string(name.text) + ":" +
                     std::to_string(st.types.size()) + " = ...");
    }
    st.debug = debug_info();
    define(name, st.types.size());
    return st;
  }

  FuncAst function(const Token& name) {
    FuncAst f;
    f.name = std::string(name.text);
    f.pos = pos(name);
    values_.clear();
    next_node_ = 0;
    expect(Tok::lparen, "'(' and the parameters of @" + f.name);
    if (!accept(Tok::rparen)) {
      for (;;) {
        const Token& p = expect(Tok::value, "a parameter like %x: f32[2]");
        expect(Tok::colon, "':' and the type of %" + std::string(p.text));
        f.param_names.push_back("%" + std::string(p.text));
        f.params.push_back(type("the parameter type"));
        f.param_debug.push_back(debug_info());
        define(p, 1);
        if (accept(Tok::rparen)) {
          break;
        }
        expect(Tok::comma, "',' or ')' after a parameter");
      }
    }
    expect(Tok::arrow, "'->' and the result types of @" + f.name);
    expect(Tok::lparen, "'(' and the result types of @" + f.name + ", like (f32[2])");
    if (!accept(Tok::rparen)) {
      for (;;) {
        f.results.push_back(type("a result type"));
        if (accept(Tok::rparen)) {
          break;
        }
        expect(Tok::comma, "',' or ')' in the result types");
      }
    }
    expect(Tok::lbrace, "'{' to start the body of @" + f.name);
    while (peek().kind == Tok::value) {
      f.stmts.push_back(statement(next()));
    }
    const Token& ret = peek();
    if (!is_word(ret, "return")) {
      fail(ret, "expected a statement '%N = op(...) : type' or 'return', got " + describe(ret));
    }
    next();
    std::vector<const Token*> ret_toks;
    if (peek().kind == Tok::value) {
      for (;;) {
        ret_toks.push_back(&peek());
        f.returns.push_back(use());
        if (!accept(Tok::comma)) {
          break;
        }
      }
    }
    if (f.returns.size() != f.results.size()) {
      fail(ret, "@" + f.name + " returns " + std::to_string(f.returns.size()) +
                    " values but its signature declares " + std::to_string(f.results.size()));
    }
    for (size_t i = 0; i < f.returns.size(); ++i) {
      const TensorType& got = type_of(f, f.returns[i]);
      if (got != f.results[i]) {
        fail(*ret_toks[i], "return value " + std::to_string(i) + " of @" + f.name + " has type " +
                               got.str() + " but the signature declares " + f.results[i].str());
      }
    }
    expect(Tok::rbrace, "'}' to end @" + f.name + " after return");
    return f;
  }

  std::unordered_map<std::string_view, ValueInfo> values_;
  int32_t next_node_ = 0;
};

}  // namespace

std::vector<FuncAst> parse_syntax(const std::vector<Token>& tokens) {
  return Parser(tokens).program();
}

}  // namespace lazax::text
