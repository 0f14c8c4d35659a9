// The StableHLO parser's characters, tokens and tensor types.
#include <charconv>

#include "parser.h"

namespace lazax::stablehlo {

Pos Parser::pos_at(size_t at) const {
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

void Parser::ws() {
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

std::string Parser::describe() const {
  if (at_end()) return "the end of the input (truncated file?)";
  char c = s_[i_];
  if (std::isprint(static_cast<unsigned char>(c)) == 0) return "a non-printable byte";
  return std::string("'") + c + "'";
}

void Parser::expect(char c) {
  ws();
  if (peek() != c) fail(pos(), std::string("expected '") + c + "', got " + describe());
  ++i_;
}

bool Parser::accept(char c) {
  ws();
  if (peek() != c) return false;
  ++i_;
  return true;
}

void Parser::expect_str(std::string_view t) {
  ws();
  if (s_.substr(i_, t.size()) != t)
    fail(pos(), "expected '" + std::string(t) + "', got " + describe());
  i_ += t.size();
}

bool Parser::word_is(std::string_view w) const {
  return s_.substr(i_, w.size()) == w && !ident_char(peek(w.size()));
}

std::string Parser::take_word() {
  ws();
  size_t b = i_;
  while (!at_end() && ident_char(s_[i_]) && !(s_[i_] == '-' && peek(1) == '>')) ++i_;
  if (b == i_) fail(pos(), "expected a name, got " + describe());
  return std::string(s_.substr(b, i_ - b));
}

std::string Parser::value_name() {
  ws();
  if (peek() != '%') fail(pos(), "expected a value (%name), got " + describe());
  size_t b = i_++;
  while (!at_end() && (ident_char(s_[i_]) && s_[i_] != '-')) ++i_;
  if (i_ == b + 1) fail(pos_at(b), "empty value name");
  return std::string(s_.substr(b, i_ - b));
}

std::string Parser::sym() {
  ws();
  if (peek() != '@') fail(pos(), "expected a function name (@name), got " + describe());
  ++i_;
  if (peek() == '"') return quoted();
  return take_word();
}

std::string Parser::quoted() {
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

int64_t Parser::integer() {
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
void Parser::skip_balanced() {
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

TensorType Parser::type() {
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
  // lazax has no u64: a tensor<Sxui64> is read as tensor<Sx2xui32>, low word first (import.cc).
  bool u64 = e == "ui64";
  if (u64) ++u64_types_;
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
  else if (e == "ui32" || u64)
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
  if (u64 && dims.size() >= 64) fail(p, "more than 64 dimensions (a ui64 adds one)");
  if (u64) dims.push_back(2);
  return TensorType{dt, Shape(dims)};
}

std::vector<TensorType> Parser::type_list() {  // (t, t) or t
  std::vector<TensorType> out;
  ws();
  if (accept('(')) {
    if (accept(')')) return out;
    do {
      tuple_or_type(out);
      skip_arg_attrs();
    } while (accept(','));
    expect(')');
  } else {
    tuple_or_type(out);
  }
  return out;
}

// A tensor type, or `tuple<t, ...>` flattened into its elements (JAX's GPU custom calls return
// tuples, which get_tuple_element takes apart).
void Parser::tuple_or_type(std::vector<TensorType>& out) {
  ws();
  if (!word_is("tuple")) {
    out.push_back(type());
    return;
  }
  i_ += 5;
  expect('<');
  ++tuple_types_;
  if (accept('>')) return;
  do out.push_back(type());
  while (accept(','));
  expect('>');
}

void Parser::skip_arg_attrs() {
  ws();
  if (peek() == '{') skip_balanced();
  skip_loc();
}

std::string Parser::skip_loc() {
  ws();
  if (!word_is("loc")) return {};
  size_t b = i_;
  i_ += 3;
  skip_balanced();
  return std::string(s_.substr(b, i_ - b));
}

}  // namespace lazax::stablehlo
