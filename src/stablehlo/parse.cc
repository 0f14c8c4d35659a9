// The StableHLO text parser, its top level: the module, `func.func`s and ops, in the pretty and
// the generic form, each becoming an OpSyntax (the tokens are in parse_lex.cc, the constants and
// attributes in parse_literals.cc).
#include "parser.h"

namespace lazax::stablehlo {

void fail(Pos p, const std::string& msg) {
  throw Error("[stablehlo] line " + std::to_string(p.line) + ", column " + std::to_string(p.col) +
              ": " + msg);
}

ModuleSyntax Parser::module() {
  ModuleSyntax m;
  aliases();
  bool braced = false;
  if (word_is("module")) {
    take_word();
    ws();
    if (peek() == '@') sym();
    ws();
    if (word_is("attributes")) {
      take_word();
      skip_balanced();
    }
    expect('{');
    braced = true;
  }
  for (;;) {
    ws();
    if (braced && peek() == '}') {
      ++i_;
      skip_loc();  // `} loc(#loc)`, as JAX prints with debug info
      break;
    }
    if (at_end()) {
      if (braced) fail(pos(), "the module's '{' is not closed (truncated file?)");
      break;
    }
    m.funcs.push_back(func());
  }
  aliases();
  if (!at_end()) fail(pos(), "unexpected text after the module");
  if (m.funcs.empty()) fail(pos(), "no func.func in the module");
  return m;
}

// `#loc3 = loc("f.py":3:0)` and other attribute aliases, before or after the module.
void Parser::aliases() {
  for (ws(); peek() == '#'; ws()) {
    ++i_;
    take_word();
    expect('=');
    ws();
    if (word_is("loc")) {
      skip_loc();
    } else {
      while (!at_end() && ident_char(s_[i_])) ++i_;
      if (peek() == '<' || peek() == '(') skip_balanced();
    }
  }
}

FuncSyntax Parser::func() {
  FuncSyntax f;
  ws();
  f.pos = pos();
  std::string kw = take_word();
  if (kw != "func.func") fail(f.pos, "expected 'func.func', got '" + kw + "'");
  ws();
  if (word_is("public") || word_is("private") || word_is("nested")) {
    f.is_public = take_word() == "public";
  }
  f.name = sym();
  expect('(');
  if (!accept(')')) {
    do {
      f.params.push_back(value_name());
      expect(':');
      f.param_types.push_back(type());
      skip_arg_attrs();
    } while (accept(','));
    expect(')');
  }
  ws();
  if (s_.substr(i_, 2) == "->") {
    i_ += 2;
    f.result_types = type_list();
  }
  ws();
  if (word_is("attributes")) {
    take_word();
    skip_balanced();
  }
  expect('{');
  body(f);
  skip_loc();
  return f;
}

void Parser::body(FuncSyntax& f) {
  for (;;) {
    ws();
    if (at_end()) fail(f.pos, "the body of @" + f.name + " is not closed (truncated file?)");
    f.ops.push_back(op());
    if (f.ops.back().name == "func.return") break;
  }
  expect('}');
}

// `{ ^bb0(%x: t, ...): ops }` (the generic form's block arguments) or `{ ops }` with `args`.
FuncSyntax Parser::region(const std::vector<std::string>& args,
                          const std::vector<TensorType>& types) {
  FuncSyntax r;
  ws();
  r.pos = pos();
  r.name = "region_" + std::to_string(r.pos.line) + "_" + std::to_string(r.pos.col);
  r.region = true;
  if (++depth_ > kMaxNesting) fail(r.pos, "regions nested too deep");
  expect('{');
  ws();
  if (peek() == '^') {
    ++i_;
    take_word();
    if (accept('(') && !accept(')')) {
      do {
        r.params.push_back(value_name());
        expect(':');
        r.param_types.push_back(type());
        skip_loc();
      } while (accept(','));
      expect(')');
    }
    expect(':');
  } else {
    r.params = args;
    r.param_types = types;
  }
  body(r);
  --depth_;
  return r;
}

void Parser::regions(OpSyntax& o) {
  expect('(');
  do o.regions.push_back(region({}, {}));
  while (accept(','));
  expect(')');
}

// `stablehlo.while(%iterArg = %a, ...) : t, ... cond { ... } do { ... }`
void Parser::while_pretty(OpSyntax& o) {
  std::vector<std::string> args;
  expect('(');
  if (!accept(')')) {
    do {
      args.push_back(value_name());
      expect('=');
      o.operands.push_back(use());
    } while (accept(','));
    expect(')');
  }
  expect(':');
  do o.in_types.push_back(type());
  while (accept(','));
  if (o.in_types.size() != args.size())
    fail(o.pos, "stablehlo.while has " + std::to_string(args.size()) + " operands but " +
                    std::to_string(o.in_types.size()) + " types");
  o.out_types = o.in_types;
  ws();
  if (word_is("attributes")) {
    take_word();
    attr_dict(o.attrs);
  }
  ws();
  if (!word_is("cond")) fail(pos(), "expected 'cond {' after stablehlo.while's types");
  take_word();
  o.regions.push_back(region(args, o.in_types));
  ws();
  if (!word_is("do")) fail(pos(), "expected 'do {' after stablehlo.while's cond region");
  take_word();
  o.regions.push_back(region(args, o.in_types));
}

// `stablehlo.reduce(%x init: %c), (%y init: %d) applies OP across dimensions = [...] : sig`,
// or with a body: `... across dimensions = [...] : sig reducer(%a: t, %b: t) (%c: u, %d: u) {
// ... }`, one (accumulator, element) pair per operand; the block takes the accumulators first.
void Parser::reduce_pretty(OpSyntax& o) {
  std::vector<Use> inits;
  do {
    expect('(');
    o.operands.push_back(use());
    expect_str("init:");
    inits.push_back(use());
    expect(')');
  } while (accept(','));
  o.operands.insert(o.operands.end(), inits.begin(), inits.end());
  ws();
  if (word_is("applies")) {
    take_word();
    ws();
    o.attrs["applies"].pos = pos();
    o.attrs["applies"].word = take_word();
  }
  ws();
  if (take_word() != "across") fail(pos(), "expected 'across' in stablehlo.reduce");
  if (take_word() != "dimensions") fail(pos(), "expected 'dimensions' in stablehlo.reduce");
  expect('=');
  o.attrs["dimensions"] = attr_value();
  signature(o);
  ws();
  if (o.attrs.count("applies") != 0) return;
  if (!word_is("reducer"))
    fail(pos(), "stablehlo.reduce needs `applies OP` or a `reducer(...) {...}` body");
  take_word();
  std::vector<std::string> acc, elem;
  std::vector<TensorType> acc_t, elem_t;
  for (ws(); peek() == '('; ws()) {
    expect('(');
    acc.push_back(value_name());
    expect(':');
    acc_t.push_back(type());
    expect(',');
    elem.push_back(value_name());
    expect(':');
    elem_t.push_back(type());
    expect(')');
  }
  acc.insert(acc.end(), elem.begin(), elem.end());
  acc_t.insert(acc_t.end(), elem_t.begin(), elem_t.end());
  o.regions.push_back(region(acc, acc_t));
}

// case and if as other tools print them (StableHLO's own printer writes them generic):
// `stablehlo.case(%i) ({...}, {...}) : types`, `stablehlo.if %p -> (types) {...} else {...}`,
// the regions in parentheses or bare, separated by commas or `else`.
void Parser::case_pretty(OpSyntax& o) {
  if (accept('(')) {
    uses(o.operands);
    expect(')');
  } else {
    uses(o.operands);
  }
  ws();
  if (s_.substr(i_, 2) == "->") {
    i_ += 2;
    o.out_types = type_list();
  }
  ws();
  if (peek() == '(') {
    regions(o);
  } else {
    do {
      o.regions.push_back(region({}, {}));
      ws();
      if (word_is("else")) {
        take_word();
        o.regions.push_back(region({}, {}));
        break;
      }
    } while (accept(','));
  }
  if (!accept(':')) return;
  ws();
  if (peek() == '(') {
    o.in_types = type_list();
    expect_str("->");
    o.out_types = type_list();
  } else {
    o.out_types.clear();
    do o.out_types.push_back(type());
    while (accept(','));
  }
}

Use Parser::use() {
  ws();
  Use u;
  u.pos = pos();
  u.name = value_name();
  if (peek() == '#') {
    ++i_;
    u.index = static_cast<int>(integer());
  }
  return u;
}

void Parser::uses(std::vector<Use>& out) {
  do {
    out.push_back(use());
    size_t before = i_;
    if (!accept(',')) break;
    ws();
    if (peek() != '%') {  // `%a, %b, dims = [...]`: the comma starts the attributes
      i_ = before;
      break;
    }
  } while (true);
}

OpSyntax Parser::op() {
  OpSyntax o;
  int outer_u64 = u64_types_, outer_tuples = tuple_types_;  // a region's ops count their own
  u64_types_ = tuple_types_ = 0;
  ws();
  o.pos = pos();
  if (peek() == '%') {
    o.result = value_name();
    o.num_results = 1;
    if (accept(',')) {  // %a, %b = ...
      o.result_names.push_back(o.result);
      do o.result_names.push_back(value_name());
      while (accept(','));
      if (o.result_names.size() > 4096) fail(o.pos, "bad result count");
      o.num_results = static_cast<int>(o.result_names.size());
    } else if (accept(':')) {
      int64_t n = integer();
      if (n < 0 || n > 4096) fail(o.pos, "bad result count");
      o.num_results = static_cast<int>(n);
    }
    expect('=');
    ws();
    o.pos = pos();
  }
  if (peek() == '"') {
    generic(o);
    if (o.name == "stablehlo.return" || o.name == "func.return") o.name = "func.return";
    auto index = o.attrs.find("index");  // get_tuple_element {index = i}: the use %t#i
    if (o.name == "stablehlo.get_tuple_element" && o.operands.size() == 1 &&
        index != o.attrs.end() && index->second.ints.size() == 1) {
      int64_t k = index->second.ints[0];
      if (k < 0 || k > 4096) fail(index->second.pos, "bad tuple index");
      o.operands[0].index = static_cast<int>(k);
    }
  } else {
    o.name = take_word();
    pretty(o);
  }
  o.loc = skip_loc();
  o.u64_types = u64_types_;
  o.tuple_types = tuple_types_;
  u64_types_ = outer_u64;
  tuple_types_ = outer_tuples;
  return o;
}

void Parser::generic(OpSyntax& o) {
  o.name = quoted();
  expect('(');
  if (!accept(')')) {
    uses(o.operands);
    expect(')');
  }
  ws();
  if (peek() == '<') {
    ++i_;
    attr_dict(o.attrs);
    expect('>');
  }
  ws();
  if (peek() == '(') regions(o);
  ws();
  if (peek() == '{') attr_dict(o.attrs);
  expect(':');
  o.in_types = type_list();
  expect_str("->");
  o.out_types = type_list();
}

// The pretty forms: `name operands[, key = value]* : types`, with the per-op prefixes JAX
// prints (compare's direction, reduce's `(x init: y) applies op across dimensions = [...]`).
void Parser::pretty(OpSyntax& o) {
  std::string& n = o.name;
  if (n == "return" || n == "func.return" || n == "stablehlo.return") {
    n = "func.return";
    ws();
    if (peek() == '%') {
      uses(o.operands);
      expect(':');
      do o.in_types.push_back(type());
      while (accept(','));
    }
    return;
  }
  if (n == "call" || n == "func.call") {
    n = "func.call";
    o.callee = sym();
    expect('(');
    if (!accept(')')) {
      uses(o.operands);
      expect(')');
    }
    expect(':');
    o.in_types = type_list();
    expect_str("->");
    o.out_types = type_list();
    return;
  }
  if (n == "stablehlo.while") {
    while_pretty(o);
    return;
  }
  if (n == "stablehlo.constant") {
    ws();
    o.attrs["value"] = dense_attr();
    o.out_types = {o.attrs["value"].literal->type};
    return;
  }
  if (n == "stablehlo.reduce") {
    reduce_pretty(o);
    return;
  }
  if (n == "stablehlo.case" || n == "stablehlo.if") {
    case_pretty(o);
    return;
  }
  if (n == "stablehlo.get_tuple_element") {  // %t[i]: the use %t#i
    o.operands.push_back(use());
    expect('[');
    int64_t k = integer();
    if (k < 0 || k > 4096) fail(o.operands[0].pos, "bad tuple index");
    o.operands[0].index = static_cast<int>(k);
    expect(']');
    signature(o);
    return;
  }
  if (n == "stablehlo.compare") {
    o.attrs["comparison_direction"].word = take_word();
    expect(',');
  }
  if (n == "stablehlo.iota") {
    if (take_word() != "dim") fail(pos(), "expected 'dim'");
    expect('=');
    o.attrs["iota_dimension"] = attr_value();
    expect(':');
    o.out_types = {type()};
    return;
  }
  ws();
  if (n == "stablehlo.custom_call" && peek() == '@') {
    o.attrs["call_target_name"].word = sym();
    expect('(');
    if (!accept(')')) {
      uses(o.operands);
      expect(')');
    }
  }
  if (peek() == '%') uses(o.operands);
  if (n == "stablehlo.slice" && accept('[')) {  // [0:2, 1:4:2]
    AttrValue &st = o.attrs["start_indices"], &li = o.attrs["limit_indices"],
              &sd = o.attrs["strides"];
    if (!accept(']')) {
      do {
        st.ints.push_back(integer());
        expect(':');
        li.ints.push_back(integer());
        sd.ints.push_back(accept(':') ? integer() : 1);
      } while (accept(','));
      expect(']');
    }
  }
  while (accept(',')) {
    ws();
    if (n == "stablehlo.compare" && !word_is("dim")) {  // the comparison type: FLOAT, SIGNED...
      o.attrs["compare_type"].word = take_word();
      continue;
    }
    std::string key = take_word();
    expect('=');
    o.attrs[key] = attr_value();
  }
  ws();
  if (peek() == '{') attr_dict(o.attrs);
  signature(o);
}

// `: t` (all operands and the result of type t), `: (ins) -> outs`, or `: t0, t1` (select).
void Parser::signature(OpSyntax& o) {
  expect(':');
  ws();
  if (peek() == '(') {
    o.in_types = type_list();
    expect_str("->");
    o.out_types = type_list();
    return;
  }
  std::vector<TensorType> ts{type()};
  while (accept(',')) ts.push_back(type());
  if (ts.size() == 1) {
    o.in_types.assign(o.operands.size(), ts[0]);
    o.out_types = ts;
  } else {  // select: pred type, then the value type
    o.in_types = {ts[0], ts.back(), ts.back()};
    o.out_types = {ts.back()};
  }
}

ModuleSyntax parse_module(std::string_view text) { return Parser(text).module(); }

}  // namespace lazax::stablehlo
