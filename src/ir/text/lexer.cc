#include "lexer.h"

#include "lazax/core/error.h"

namespace lazax::text {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

std::string hex_byte(unsigned char c) {
  const char* digits = "0123456789abcdef";
  return std::string("\\x") + digits[c >> 4] + digits[c & 15];
}

std::string show_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) {
    return std::string("'") + c + "'";
  }
  return "byte '" + hex_byte(u) + "'";
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.line = line_;
      t.column = col_;
      if (pos_ >= s_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      size_t start = pos_;
      char c = s_[pos_];
      if (is_ident_start(c)) {
        t.kind = Tok::ident;
        while (pos_ < s_.size() && is_name_char(s_[pos_])) {
          advance();
        }
      } else if (is_digit(c) || c == '-') {
        lex_number(t);
      } else if (c == '%' || c == '@') {
        t.kind = c == '%' ? Tok::value : Tok::func;
        advance();
        size_t name_start = pos_;
        while (pos_ < s_.size() && is_name_char(s_[pos_])) {
          advance();
        }
        if (pos_ == name_start) {
          throw ParseError(std::string("expected a name after '") + c +
                               "' (letters, digits, '_' or '.'), got " +
                               (pos_ < s_.size() ? show_char(s_[pos_]) : "end of input"),
                           t.line, t.column);
        }
        t.text = s_.substr(name_start, pos_ - name_start);
        out.push_back(std::move(t));
        continue;
      } else if (c == '"') {
        lex_string(t);
      } else {
        t.kind = punct(c);
        advance();
      }
      t.text = s_.substr(start, pos_ - start);
      out.push_back(std::move(t));
    }
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw ParseError(msg, line_, col_); }

  void advance() {
    if (s_[pos_] == '\n') {
      if (line_ < 1000000000) {
        ++line_;
      }
      col_ = 1;
    } else if (col_ < 1000000000) {
      ++col_;
    }
    ++pos_;
  }
  bool at(char c, size_t ahead = 0) const {
    return pos_ + ahead < s_.size() && s_[pos_ + ahead] == c;
  }

  void skip_space() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && at('/', 1)) {
        while (pos_ < s_.size() && s_[pos_] != '\n') {
          advance();
        }
      } else {
        return;
      }
    }
  }

  Tok punct(char c) {
    switch (c) {
      case '(':
        return Tok::lparen;
      case ')':
        return Tok::rparen;
      case '[':
        return Tok::lbracket;
      case ']':
        return Tok::rbracket;
      case '{':
        return Tok::lbrace;
      case '}':
        return Tok::rbrace;
      case ',':
        return Tok::comma;
      case ':':
        return Tok::colon;
      case '=':
        return Tok::equals;
      case '#':
        return Tok::hash;
      default:
        break;
    }
    if (c == '/') {
      fail("unexpected '/': comments start with '//'");
    }
    fail("unexpected character " + show_char(c));
  }

  void digits() {
    if (pos_ >= s_.size() || !is_digit(s_[pos_])) {
      fail("malformed number: expected a digit, got " +
           (pos_ < s_.size() ? show_char(s_[pos_]) : std::string("end of input")));
    }
    while (pos_ < s_.size() && is_digit(s_[pos_])) {
      advance();
    }
  }

  // -?digits(.digits)?([eE][+-]?digits)?, or -inf / -nan; '->' is the arrow.
  void lex_number(Token& t) {
    t.kind = Tok::number;
    t.is_integer = true;
    if (at('-')) {
      if (at('>', 1)) {
        t.kind = Tok::arrow;
        advance();
        advance();
        return;
      }
      advance();
      for (std::string_view word : {"inf", "nan"}) {
        if (s_.substr(pos_, 3) == word && !(pos_ + 3 < s_.size() && is_name_char(s_[pos_ + 3]))) {
          for (int i = 0; i < 3; ++i) {
            advance();
          }
          t.is_integer = false;
          return;
        }
      }
    }
    digits();
    if (at('.')) {
      t.is_integer = false;
      advance();
      digits();
    }
    if (at('e') || at('E')) {
      t.is_integer = false;
      advance();
      if (at('+') || at('-')) {
        advance();
      }
      digits();
    }
    if (pos_ < s_.size() && is_name_char(s_[pos_])) {
      fail("malformed number: unexpected " + show_char(s_[pos_]) + " after the digits");
    }
  }

  void lex_string(Token& t) {
    t.kind = Tok::string;
    advance();  // opening quote
    for (;;) {
      if (pos_ >= s_.size()) {
        fail("unterminated string: expected '\"' before the end of input");
      }
      char c = s_[pos_];
      auto u = static_cast<unsigned char>(c);
      if (c == '"') {
        advance();
        return;
      }
      if (c == '\n') {
        fail("unterminated string: expected '\"' before the end of the line");
      }
      if (u < 0x20 || u == 0x7f) {
        fail("control " + show_char(c) + " in a string: write it as an escape (\\n, \\xHH)");
      }
      if (c != '\\') {
        t.value += c;
        advance();
        continue;
      }
      const int esc_line = line_, esc_col = col_;
      auto bad_escape = [&](const std::string& msg) { throw ParseError(msg, esc_line, esc_col); };
      advance();
      if (pos_ >= s_.size()) {
        fail("unterminated string: expected '\"' before the end of input");
      }
      char e = s_[pos_];
      switch (e) {
        case '"':
          t.value += '"';
          break;
        case '\\':
          t.value += '\\';
          break;
        case 'n':
          t.value += '\n';
          break;
        case 't':
          t.value += '\t';
          break;
        case 'r':
          t.value += '\r';
          break;
        case 'x': {
          int hi = pos_ + 1 < s_.size() ? hex_value(s_[pos_ + 1]) : -1;
          int lo = pos_ + 2 < s_.size() ? hex_value(s_[pos_ + 2]) : -1;
          if (hi < 0 || lo < 0) {
            bad_escape("bad escape: expected two hex digits after '\\x'");
          }
          t.value += static_cast<char>(hi * 16 + lo);
          advance();
          advance();
          break;
        }
        default:
          bad_escape("bad escape " + show_char(e) +
                     " in a string: use \\\" \\\\ \\n \\t \\r or \\xHH");
      }
      advance();
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> lex(std::string_view text) { return Lexer(text).run(); }

std::string describe(const Token& t) {
  if (t.kind == Tok::eof) {
    return "end of input";
  }
  std::string s;
  if (t.kind == Tok::value) {
    s = "%";
  }
  if (t.kind == Tok::func) {
    s = "@";
  }
  std::string_view text = t.text.size() > 40 ? t.text.substr(0, 40) : t.text;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    s += (u >= 0x20 && u < 0x7f) ? std::string(1, c) : hex_byte(u);
  }
  if (t.text.size() > 40) {
    s += "...";
  }
  return "'" + s + "'";
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u < 0x20 || u >= 0x7f) {
          out += hex_byte(u);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace lazax::text
