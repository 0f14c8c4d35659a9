// Tokens of the IR text form (docs/IR.md). The lexer turns the whole text into a token vector
// up front; every token keeps its 1-based line and column so that errors point at it exactly.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lazax::text {

enum class Tok : uint8_t {
  eof,
  ident,   // func, f32, tanh, true, nan, loc ...
  number,  // -12, 1.5e-07, -inf, -nan (`-inf`/`-nan` only; bare inf/nan are idents)
  string,  // "..." (value holds the decoded bytes)
  value,   // %name (text holds the name without '%')
  func,    // @name (text holds the name without '@')
  lparen,
  rparen,
  lbracket,
  rbracket,
  lbrace,
  rbrace,
  comma,
  colon,
  equals,
  hash,
  arrow,
};

struct Token {
  Tok kind = Tok::eof;
  std::string_view text;  // the source text (for strings: with the quotes)
  std::string value;      // decoded contents of a string token
  int line = 1;
  int column = 1;
  bool is_integer = false;  // number without '.', exponent, inf or nan
};

// Characters of identifiers, %value and @function names: [A-Za-z0-9_.]; an identifier starts
// with a letter or '_'.
inline bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

// Splits `text` into tokens ending with Tok::eof. Throws ParseError at the first bad character.
std::vector<Token> lex(std::string_view text);

// How a token reads in an error message: 'tanh', "end of input", ...
std::string describe(const Token& t);

// The text form of a string attribute: quoted, with \" \\ \n \t \r and \xHH escapes, so the
// printed program is plain ASCII.
std::string quote(std::string_view s);

}  // namespace lazax::text
