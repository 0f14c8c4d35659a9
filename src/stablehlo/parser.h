// The StableHLO text parser's class, shared by its three files: parse.cc (the module, functions
// and ops), parse_lex.cc (characters, tokens and types) and parse_literals.cc (dense<...>
// constants and attribute values). A hand-written recursive descent over the bytes, one token at
// a time, positions kept for errors. Private to the layer.
#pragma once
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ast.h"

namespace lazax::stablehlo {

inline bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}
  ModuleSyntax module();

 private:
  // ---- the module, functions and ops (parse.cc)
  void aliases();
  FuncSyntax func();
  void body(FuncSyntax& f);  // the ops up to the return, and the closing '}'
  FuncSyntax region(const std::vector<std::string>& args, const std::vector<TensorType>& types);
  void regions(OpSyntax& o);  // ({...}, {...}) of the generic form
  void while_pretty(OpSyntax& o);
  void reduce_pretty(OpSyntax& o);
  void case_pretty(OpSyntax& o);
  Use use();
  void uses(std::vector<Use>& out);
  OpSyntax op();
  void generic(OpSyntax& o);
  void pretty(OpSyntax& o);
  void signature(OpSyntax& o);

  // ---- characters and tokens (parse_lex.cc)
  bool at_end() const { return i_ >= s_.size(); }
  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  Pos pos() const { return pos_at(i_); }
  Pos pos_at(size_t at) const;
  void ws();
  std::string describe() const;
  void expect(char c);
  bool accept(char c);
  void expect_str(std::string_view t);
  bool word_is(std::string_view w) const;
  std::string take_word();
  std::string value_name();
  std::string sym();
  std::string quoted();
  int64_t integer();
  void skip_balanced();  // a balanced (...), [...], {...} or <...> group, strings included

  // ---- types (parse_lex.cc)
  TensorType type();
  std::vector<TensorType> type_list();
  void tuple_or_type(std::vector<TensorType>& out);
  void skip_arg_attrs();
  std::string skip_loc();

  // ---- constants and attributes (parse_literals.cc)
  AttrValue dense_attr();
  void skip_dense_body();
  Literal dense(const TensorType& t, size_t end);
  double number();
  std::vector<int64_t> int_list();
  AttrValue attr_value();
  void skip_balanced_from_hash();
  void attr_dict(std::map<std::string, AttrValue>& out);  // {name = value, ...}

  std::string_view s_;
  size_t i_ = 0;
  size_t depth_ = 0;     // regions open
  int u64_types_ = 0;    // ui64 types read in the op being read (OpSyntax::u64_types)
  int tuple_types_ = 0;  // tuple types read in the op being read (OpSyntax::tuple_types)
};

}  // namespace lazax::stablehlo
