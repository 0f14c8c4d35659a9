// The StableHLO text parser: a hand-written recursive descent over the bytes, one token at a time,
// positions kept for errors. Pretty and generic op forms both become an OpSyntax.
#include <charconv>
#include <cmath>
#include <cstring>

#include "ast.h"

namespace lazax::stablehlo {

void fail(Pos p, const std::string& msg) {
  throw Error("[stablehlo] line " + std::to_string(p.line) + ", column " + std::to_string(p.col) +
              ": " + msg);
}

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  ModuleSyntax module() {
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

 private:
  // `#loc3 = loc("f.py":3:0)` and other attribute aliases, before or after the module.
  void aliases() {
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

  // ---- characters and tokens
  bool at_end() const { return i_ >= s_.size(); }
  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  Pos pos() const { return pos_at(i_); }
  Pos pos_at(size_t at) const {
    // Positions are asked for rarely (errors, one per op): counted from the start.
    Pos p;
    for (size_t k = 0; k < at && k < s_.size(); ++k) {
      if (s_[k] == '\n') {
        ++p.line;
        p.col = 1;
      } else {
        ++p.col;
      }
    }
    return p;
  }
  void ws() {
    while (!at_end()) {
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i_;
      } else if (c == '/' && peek(1) == '/') {
        while (!at_end() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }
  std::string describe() const {
    if (at_end()) return "the end of the input (truncated file?)";
    char c = s_[i_];
    if (std::isprint(static_cast<unsigned char>(c)) == 0) return "a non-printable byte";
    return std::string("'") + c + "'";
  }
  void expect(char c) {
    ws();
    if (peek() != c) fail(pos(), std::string("expected '") + c + "', got " + describe());
    ++i_;
  }
  bool accept(char c) {
    ws();
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void expect_str(std::string_view t) {
    ws();
    if (s_.substr(i_, t.size()) != t)
      fail(pos(), "expected '" + std::string(t) + "', got " + describe());
    i_ += t.size();
  }
  bool word_is(std::string_view w) const {
    return s_.substr(i_, w.size()) == w && !ident_char(peek(w.size()));
  }
  std::string take_word() {
    ws();
    size_t b = i_;
    while (!at_end() && ident_char(s_[i_]) && !(s_[i_] == '-' && peek(1) == '>')) ++i_;
    if (b == i_) fail(pos(), "expected a name, got " + describe());
    return std::string(s_.substr(b, i_ - b));
  }
  std::string value_name() {
    ws();
    if (peek() != '%') fail(pos(), "expected a value (%name), got " + describe());
    size_t b = i_++;
    while (!at_end() && (ident_char(s_[i_]) && s_[i_] != '-')) ++i_;
    if (i_ == b + 1) fail(pos_at(b), "empty value name");
    return std::string(s_.substr(b, i_ - b));
  }
  std::string sym() {
    ws();
    if (peek() != '@') fail(pos(), "expected a function name (@name), got " + describe());
    ++i_;
    if (peek() == '"') return quoted();
    return take_word();
  }
  std::string quoted() {
    ws();
    if (peek() != '"') fail(pos(), "expected a string, got " + describe());
    size_t b = ++i_;
    while (!at_end() && s_[i_] != '"') {
      if (s_[i_] == '\\') ++i_;
      ++i_;
    }
    if (at_end()) fail(pos_at(b - 1), "unterminated string");
    return std::string(s_.substr(b, i_++ - b));
  }
  int64_t integer() {
    ws();
    size_t b = i_;
    if (peek() == '-') ++i_;
    while (std::isdigit(static_cast<unsigned char>(peek())) != 0) ++i_;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s_.data() + b, s_.data() + i_, v);
    if (ec != std::errc() || p != s_.data() + i_)
      fail(pos_at(b),
           b == i_ ? "expected an integer, got " + describe() : "integer out of the 64-bit range");
    return v;
  }
  // Skips a balanced (...), [...], {...} or <...> group, strings included.
  void skip_balanced() {
    ws();
    Pos start = pos();
    std::string stack;
    do {
      if (at_end()) fail(start, "unclosed bracket (truncated file?)");
      char c = s_[i_];
      if (c == '"') {
        quoted();
        continue;
      }
      if (c == '(' || c == '[' || c == '{' || c == '<') {
        if (stack.size() >= kMaxNesting) fail(pos(), "brackets nested too deep");
        stack.push_back(c);
      } else if (c == ')' || c == ']' || c == '}' || (c == '>' && !(i_ > 0 && s_[i_ - 1] == '-'))) {
        if (stack.empty()) fail(pos(), std::string("unbalanced '") + c + "'");
        stack.pop_back();
      }
      ++i_;
    } while (!stack.empty());
  }

  // ---- types
  TensorType type() {
    ws();
    Pos p = pos();
    if (!word_is("tensor")) fail(p, "expected a tensor type (tensor<...>), got " + describe());
    i_ += 6;
    expect('<');
    std::vector<int64_t> dims;
    for (;;) {
      ws();
      if (std::isdigit(static_cast<unsigned char>(peek())) != 0) {
        int64_t d = integer();
        if (dims.size() >= 64) fail(p, "more than 64 dimensions");
        dims.push_back(d);
        if (peek() != 'x') fail(pos(), "expected 'x' after a dimension, got " + describe());
        ++i_;
        continue;
      }
      if (peek() == '?')
        fail(pos(), "dynamic dimensions ('?') are not supported: export static shapes");
      break;
    }
    size_t b = i_;
    while (std::isalnum(static_cast<unsigned char>(peek())) != 0) ++i_;
    std::string_view e = s_.substr(b, i_ - b);
    DType dt;
    if (e == "f32")
      dt = DType::f32;
    else if (e == "f64")
      dt = DType::f64;
    else if (e == "f16")
      dt = DType::f16;
    else if (e == "bf16")
      dt = DType::bf16;
    else if (e == "i1")
      dt = DType::boolean;
    else if (e == "i8" || e == "si8")
      dt = DType::i8;
    else if (e == "i32" || e == "si32")
      dt = DType::i32;
    else if (e == "i64" || e == "si64")
      dt = DType::i64;
    else if (e == "ui8")
      dt = DType::u8;
    else if (e == "ui32")
      dt = DType::u32;
    else
      fail(pos_at(b), "unsupported element type '" + std::string(e) + "'");
    ws();
    if (peek() == ',') fail(pos(), "tensor encodings (sparsity, bounds) are not supported");
    expect('>');
    int64_t n = 1;
    for (int64_t d : dims) {
      if (d < 0) fail(p, "negative dimension");
      if (d != 0 && n > (int64_t{1} << 60) / d) fail(p, "the tensor has more than 2^60 elements");
      n *= d;
    }
    return TensorType{dt, Shape(dims)};
  }
  std::vector<TensorType> type_list() {  // (t, t) or t
    std::vector<TensorType> out;
    ws();
    if (accept('(')) {
      if (accept(')')) return out;
      do {
        out.push_back(type());
        skip_arg_attrs();
      } while (accept(','));
      expect(')');
    } else {
      out.push_back(type());
    }
    return out;
  }
  void skip_arg_attrs() {
    ws();
    if (peek() == '{') skip_balanced();
    skip_loc();
  }
  std::string skip_loc() {
    ws();
    if (!word_is("loc")) return {};
    size_t b = i_;
    i_ += 3;
    skip_balanced();
    return std::string(s_.substr(b, i_ - b));
  }

  // ---- constants
  Literal dense(const TensorType& t, size_t b);  // below
  double number();
  AttrValue dense_attr() {
    AttrValue v;
    v.pos = pos();
    expect_str("dense");
    expect('<');
    size_t b = i_;
    skip_dense_body();
    size_t e = i_;
    expect('>');
    expect(':');
    TensorType t = type();
    size_t save = i_;
    i_ = b;
    v.literal = dense(t, e);
    i_ = save;
    for (int64_t k = 0; k < v.literal->numel() && k < 64; ++k)
      v.ints.push_back(static_cast<int64_t>(v.literal->at(k)));
    return v;
  }
  void skip_dense_body() {
    ws();
    if (peek() == '"') {
      quoted();
      return;
    }
    size_t depth = 0;
    while (!at_end() && !(depth == 0 && s_[i_] == '>')) {
      if (s_[i_] == '[' && ++depth > kMaxNesting) fail(pos(), "dense<...> nested too deep");
      if (s_[i_] == ']') {
        if (depth == 0) fail(pos(), "unbalanced ']' in dense<...>");
        --depth;
      }
      ++i_;
    }
    if (at_end()) fail(pos(), "dense<...> is not closed (truncated file?)");
  }

  // ---- attributes
  std::vector<int64_t> int_list() {  // [1, 2]
    std::vector<int64_t> out;
    expect('[');
    if (accept(']')) return out;
    do {
      if (out.size() > 4096) fail(pos(), "attribute list too long");
      out.push_back(integer());
    } while (accept(','));
    expect(']');
    return out;
  }
  AttrValue attr_value() {
    ws();
    AttrValue v;
    v.pos = pos();
    if (peek() == '[') {
      size_t b = i_++;
      ws();
      char c = peek();
      i_ = b;
      if (c != ']' && c != '-' && std::isdigit(static_cast<unsigned char>(c)) == 0) {
        skip_balanced();  // [DEFAULT, DEFAULT] and other lists of words: kept as text
        v.word = std::string(s_.substr(b, i_ - b));
        return v;
      }
      v.ints = int_list();
      ws();
      if (peek() == 'x' && !ident_char(peek(1))) {
        ++i_;
        v.pair = true;
        v.ints2 = int_list();
      }
      return v;
    }
    if (word_is("array")) {
      i_ += 5;
      expect('<');
      take_word();  // i64
      if (accept(':')) {
        do v.ints.push_back(integer());
        while (accept(','));
      }
      expect('>');
      return v;
    }
    if (word_is("dense")) return dense_attr();
    if (peek() == '-' || std::isdigit(static_cast<unsigned char>(peek())) != 0) {
      v.ints.push_back(integer());
      size_t before = i_;
      if (accept(':')) {  // `1 : i64`; but `dim = 1 : tensor<...>` is iota's signature
        ws();
        if (word_is("tensor"))
          i_ = before;
        else
          take_word();
      }
      return v;
    }
    if (peek() == '#') {  // #stablehlo<comparison_direction GT> and friends: keep the words
      size_t b = i_;
      skip_balanced_from_hash();
      v.word = std::string(s_.substr(b, i_ - b));
      return v;
    }
    if (peek() == '"') {
      v.word = quoted();
      return v;
    }
    if (peek() == '@') {
      v.word = sym();
      return v;
    }
    v.word = take_word();
    return v;
  }
  void skip_balanced_from_hash() {
    ++i_;
    while (!at_end() && (ident_char(s_[i_]))) ++i_;
    if (peek() == '<') skip_balanced();
  }
  // {name = value, ...} or <{...}>
  void attr_dict(std::map<std::string, AttrValue>& out) {
    expect('{');
    if (accept('}')) return;
    do {
      ws();
      std::string k = peek() == '"' ? quoted() : take_word();
      if (accept('='))
        out[k] = attr_value();
      else
        out[k] = AttrValue{};
    } while (accept(','));
    expect('}');
  }

  // ---- functions and ops
  FuncSyntax func() {
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
    for (;;) {
      ws();
      if (at_end()) fail(f.pos, "the body of @" + f.name + " is not closed (truncated file?)");
      f.ops.push_back(op());
      const std::string& n = f.ops.back().name;
      if (n == "func.return" || n == "return") break;
    }
    expect('}');
    skip_loc();
    return f;
  }

  void uses(std::vector<Use>& out) {
    do {
      ws();
      Use u;
      u.pos = pos();
      u.name = value_name();
      if (peek() == '#') {
        ++i_;
        u.index = static_cast<int>(integer());
      }
      out.push_back(std::move(u));
      size_t before = i_;
      if (!accept(',')) break;
      ws();
      if (peek() != '%') {  // `%a, %b, dims = [...]`: the comma starts the attributes
        i_ = before;
        break;
      }
    } while (true);
  }

  OpSyntax op() {
    OpSyntax o;
    ws();
    o.pos = pos();
    if (peek() == '%') {
      o.result = value_name();
      o.num_results = 1;
      if (accept(':')) {
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
    } else {
      o.name = take_word();
      pretty(o);
    }
    o.loc = skip_loc();
    return o;
  }

  void generic(OpSyntax& o) {
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
    if (peek() == '(')
      fail(pos(), "ops with regions in the generic form are not supported (" + o.name +
                      "): use the pretty form JAX prints");
    if (peek() == '{') attr_dict(o.attrs);
    expect(':');
    o.in_types = type_list();
    expect_str("->");
    o.out_types = type_list();
  }

  // The pretty forms: `name operands[, key = value]* : types`, with the per-op prefixes JAX
  // prints (compare's direction, reduce's `(x init: y) applies op across dimensions = [...]`).
  void pretty(OpSyntax& o) {
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
    if (n == "stablehlo.constant") {
      ws();
      o.attrs["value"] = dense_attr();
      o.out_types = {o.attrs["value"].literal->type};
      return;
    }
    if (n == "stablehlo.reduce") {
      expect('(');
      uses(o.operands);
      expect_str("init:");
      uses(o.operands);
      expect(')');
      ws();
      if (!word_is("applies"))
        fail(pos(), "only the `applies OP across dimensions = [...]` form of reduce is supported");
      take_word();
      o.attrs["applies"].word = take_word();
      o.attrs["applies"].pos = pos();
      ws();
      if (take_word() != "across") fail(pos(), "expected 'across'");
      if (take_word() != "dimensions") fail(pos(), "expected 'dimensions'");
      expect('=');
      o.attrs["dimensions"] = attr_value();
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
  void signature(OpSyntax& o) {
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

  std::string_view s_;
  size_t i_ = 0;
};

double Parser::number() {
  ws();
  size_t b = i_;
  if (word_is("true")) {
    i_ += 4;
    return 1;
  }
  if (word_is("false")) {
    i_ += 5;
    return 0;
  }
  if (peek() == '-' || peek() == '+') ++i_;
  if (word_is("inf")) {
    i_ += 3;
    return s_[b] == '-' ? -INFINITY : INFINITY;
  }
  if (word_is("nan")) {
    i_ += 3;
    return NAN;
  }
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X'))
    fail(pos(), "hex float elements are not supported: use a hex string dense<\"0x...\">");
  while (std::isdigit(static_cast<unsigned char>(peek())) != 0 || peek() == '.' || peek() == 'e' ||
         peek() == 'E' ||
         ((peek() == '-' || peek() == '+') && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E')))
    ++i_;
  double v = 0;
  auto [p, ec] = std::from_chars(s_.data() + b + (s_[b] == '+' ? 1 : 0), s_.data() + i_, v);
  if (b == i_ || ec != std::errc() || p != s_.data() + i_)
    fail(pos_at(b), "expected a number, got " + describe());
  return v;
}

Literal Parser::dense(const TensorType& t, size_t end) {
  Pos p = pos();
  int64_t n = t.numel();
  if (n > kMaxConstantElements)
    fail(p, "constant of " + std::to_string(n) + " elements: more than the 2^26 this reader " +
                "accepts (pass large values as arguments)");
  ws();
  if (peek() == '"') {  // hex: the little-endian bytes of every element (or of one: a splat)
    std::string h = quoted();
    size_t bytes = t.bytes();
    if (h.size() < 2 || h[0] != '0' || (h[1] != 'x' && h[1] != 'X'))
      fail(p, "a dense string must be hex, \"0x...\"");
    size_t got = (h.size() - 2) / 2;
    size_t es = dtype_size(t.dtype);
    if ((h.size() % 2) != 0 || (got != bytes && got != es))
      fail(p, "hex constant has " + std::to_string(got) + " bytes, the type " + t.shape.str() +
                  " needs " + std::to_string(bytes));
    Literal l = Literal::zeros(t);
    auto* out = static_cast<uint8_t*>(l.buffer.data());
    auto nib = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      fail(p, "bad hex digit in a dense constant");
    };
    std::vector<uint8_t> raw(got);
    for (size_t k = 0; k < got; ++k)
      raw[k] = static_cast<uint8_t>(nib(h[2 + 2 * k]) * 16 + nib(h[3 + 2 * k]));
    for (size_t k = 0; k < bytes; ++k) out[k] = raw[k % got];
    return l;
  }
  std::vector<double> vals;
  ws();
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {  // dense<0xFF800000>: the bits
    i_ += 2;
    size_t b = i_;
    uint64_t bits = 0;
    while (std::isxdigit(static_cast<unsigned char>(peek())) != 0) ++i_;
    size_t es = dtype_size(t.dtype);
    auto [q, ec] = std::from_chars(s_.data() + b, s_.data() + i_, bits, 16);
    if (ec != std::errc() || q != s_.data() + i_ || i_ - b != 2 * es)
      fail(p, "a hex splat must have " + std::to_string(2 * es) + " hex digits for " +
                  std::string(dtype_name(t.dtype)));
    ws();
    if (i_ != end) fail(pos(), "unexpected text in dense<...>");
    Literal l = Literal::zeros(t);
    auto* out = static_cast<uint8_t*>(l.buffer.data());
    for (int64_t k = 0; k < n; ++k) std::memcpy(out + static_cast<size_t>(k) * es, &bits, es);
    return l;
  }
  if (peek() != '[') {
    vals.push_back(number());
  } else {
    while (i_ < end) {
      ws();
      char c = peek();
      if (c == '[' || c == ']' || c == ',') {  // (skip_dense_body checked the nesting)
        ++i_;
      } else if (c == '(') {
        fail(pos(), "complex constants are not supported");
      } else {
        if (static_cast<int64_t>(vals.size()) >= n)
          fail(pos(), "constant has more elements than its type " + t.shape.str() + " holds");
        vals.push_back(number());
      }
    }
    if (static_cast<int64_t>(vals.size()) != n)
      fail(p, "constant has " + std::to_string(vals.size()) + " elements, its type " +
                  t.shape.str() + " needs " + std::to_string(n));
  }
  ws();
  if (i_ != end) fail(pos(), "unexpected text in dense<...>");
  if (t.dtype != DType::f32 && t.dtype != DType::f64 && t.dtype != DType::boolean) {
    // Integers: exact in a double up to 2^53, and in the dtype's range (no UB on the cast).
    double lo = t.dtype == DType::i8    ? -128.0
                : t.dtype == DType::i32 ? -2147483648.0
                : t.dtype == DType::i64 ? -9007199254740992.0
                                        : 0.0;
    double hi = t.dtype == DType::i8    ? 127.0
                : t.dtype == DType::u8  ? 255.0
                : t.dtype == DType::i32 ? 2147483647.0
                : t.dtype == DType::u32 ? 4294967295.0
                                        : 9007199254740992.0;
    for (double v : vals) {
      if (!(v >= lo && v <= hi) || v != std::trunc(v)) {
        fail(p, "constant element " + std::to_string(v) + " is not an integer in the range of " +
                    std::string(dtype_name(t.dtype)) + " (i64 list elements: at most 2^53)");
      }
    }
  }
  Literal l = Literal::zeros(t);
  for (int64_t k = 0; k < n; ++k) {
    double v = vals[vals.size() == 1 ? 0 : static_cast<size_t>(k)];
    switch (t.dtype) {
      case DType::f32:
        l.data<float>()[k] = static_cast<float>(v);
        break;
      case DType::f64:
        l.data<double>()[k] = v;
        break;
      case DType::i32:
        l.data<int32_t>()[k] = static_cast<int32_t>(v);
        break;
      case DType::i64:
        l.data<int64_t>()[k] = static_cast<int64_t>(v);
        break;
      case DType::i8:
        l.data<int8_t>()[k] = static_cast<int8_t>(v);
        break;
      case DType::u8:
        l.data<uint8_t>()[k] = static_cast<uint8_t>(v);
        break;
      case DType::u32:
        l.data<uint32_t>()[k] = static_cast<uint32_t>(v);
        break;
      case DType::boolean:
        l.data<bool>()[k] = v != 0;
        break;
      default:
        fail(p, "list constants of " + std::string(dtype_name(t.dtype)) +
                    " are not supported: use the hex form");
    }
  }
  return l;
}

}  // namespace

ModuleSyntax parse_module(std::string_view text) { return Parser(text).module(); }

}  // namespace lazax::stablehlo
