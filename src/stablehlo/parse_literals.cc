// The StableHLO parser's constants (dense<...> in its splat, list, hex-string and hex-splat
// forms, range-checked and bounded by kMaxConstantElements) and attribute values.
#include <charconv>
#include <cmath>
#include <cstring>

#include "parser.h"

namespace lazax::stablehlo {

AttrValue Parser::dense_attr() {
  AttrValue v;
  v.pos = pos();
  expect_str("dense");
  expect('<');
  size_t b = i_;
  skip_dense_body();
  size_t e = i_;
  expect('>');
  expect(':');
  int outer_u64 = u64_types_;
  TensorType t = type();
  if (u64_types_ != outer_u64) fail(v.pos, "ui64 constants are not supported (lazax has no u64)");
  size_t save = i_;
  i_ = b;
  v.literal = dense(t, e);
  i_ = save;
  // The integer view that dimension-list attributes read. A constant whose leading elements are
  // not all integers an int64 holds (-inf, nan, 0.5, 1e300) has none: the op that reads it then
  // fails with its own message, instead of converting out of range (undefined behaviour).
  for (int64_t k = 0; k < v.literal->numel() && k < 64; ++k) {
    double x = v.literal->at(k);
    if (!(std::trunc(x) == x && std::fabs(x) < 0x1p63)) {
      v.ints.clear();
      break;
    }
    v.ints.push_back(static_cast<int64_t>(x));
  }
  return v;
}

void Parser::skip_dense_body() {
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

std::vector<int64_t> Parser::int_list() {  // [1, 2]
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

AttrValue Parser::attr_value() {
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
    if (accept(':')) {  // `1 : i64`; but `dim = 1 : tensor<...>` / `: (...) -> ...` is a signature
      ws();
      if (word_is("tensor") || peek() == '(')
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

void Parser::skip_balanced_from_hash() {
  ++i_;
  while (!at_end() && (ident_char(s_[i_]))) ++i_;
  if (peek() == '<') skip_balanced();
}

// {name = value, ...} or <{...}>
void Parser::attr_dict(std::map<std::string, AttrValue>& out) {
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

}  // namespace lazax::stablehlo
