// A strict little parser for the one kind of Python literal a .npy header holds: a dict with the
// keys 'descr' (a string), 'fortran_order' (True/False) and 'shape' (a tuple of integers).
#include "npy_header.h"

#include <cctype>
#include <limits>

#include "lazax/core/error.h"
#include "lazax/io/file.h"

namespace lazax::npy {
namespace {

class DictParser {
 public:
  DictParser(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  Header parse() {
    Header h;
    bool have_descr = false, have_order = false, have_shape = false;
    skip_ws();
    expect('{', "the header should start with '{'");
    for (;;) {
      skip_ws();
      if (eat('}')) break;
      size_t key_pos = pos_;
      std::string key = parse_string("a quoted key");
      skip_ws();
      expect(':', "expected ':' after key '" + key + "'");
      skip_ws();
      if (key == "descr") {
        if (have_descr) fail_at(key_pos, "duplicate key 'descr'");
        if (peek() == '[')
          fail("structured dtypes (record arrays) are not supported; save plain arrays");
        h.descr = parse_string("a quoted dtype string for 'descr'");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) fail_at(key_pos, "duplicate key 'fortran_order'");
        h.fortran_order = parse_bool();
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) fail_at(key_pos, "duplicate key 'shape'");
        h.shape = parse_tuple();
        have_shape = true;
      } else {
        fail_at(key_pos,
                "unexpected key '" + key + "' (a .npy header has descr, fortran_order, shape)");
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      expect('}', "expected ',' or '}' after the value of '" + key + "'");
      break;
    }
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the closing '}'");
    if (!have_descr) fail("missing key 'descr'");
    if (!have_order) fail("missing key 'fortran_order'");
    if (!have_shape) fail("missing key 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail_at(size_t pos, const std::string& what) const {
    throw IOError("[npy] " + escape_for_message(file_) + ": bad header: " +
                  escape_for_message(what) + " (at header offset " + std::to_string(pos) + ")");
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }

  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c, const std::string& what) {
    if (!eat(c)) fail(what);
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  std::string parse_string(const std::string& what) {
    char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected " + what);
    ++pos_;
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == quote) return out;
      if (c == '\\') {
        if (pos_ >= s_.size()) fail("unterminated string");
        c = s_[pos_++];
      }
      if (c == '\n') fail("newline inside a string");
      out += c;
    }
  }

  bool parse_bool() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False for 'fortran_order'");
  }

  int64_t parse_dim() {
    if (peek() == '-') fail("negative dimension in 'shape'");
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected an integer in 'shape'");
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      int d = s_[pos_++] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - d) / 10)
        fail("dimension too large in 'shape'");
      v = v * 10 + d;
    }
    eat('L');  // Python 2 long literals, as old NumPy wrote them
    return v;
  }

  std::vector<int64_t> parse_tuple() {
    expect('(', "expected a tuple for 'shape', such as (2, 3), (3,) or ()");
    std::vector<int64_t> dims;
    skip_ws();
    if (eat(')')) return dims;
    for (;;) {
      skip_ws();
      dims.push_back(parse_dim());
      skip_ws();
      if (eat(',')) {
        skip_ws();
        if (eat(')')) return dims;
        continue;
      }
      expect(')', "expected ',' or ')' in 'shape'");
      return dims;
    }
  }

  std::string_view s_;
  const std::string& file_;
  size_t pos_ = 0;
};

}  // namespace

Header parse_header_dict(std::string_view text, const std::string& file) {
  return DictParser(text, file).parse();
}

std::string format_header_dict(std::string_view descr, const std::vector<int64_t>& shape) {
  std::string tuple = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) tuple += ", ";
    tuple += std::to_string(shape[i]);
  }
  if (shape.size() == 1) tuple += ",";
  tuple += ")";
  std::string h =
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + tuple + ", }";
  // numpy.save leaves room to grow the first axis in place: 21 digits minus those used.
  constexpr size_t kGrowthAxisMaxDigits = 21;
  if (!shape.empty()) {
    size_t digits = std::to_string(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) h.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  return h;
}

}  // namespace lazax::npy
