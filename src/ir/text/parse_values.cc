// The value syntax of the IR parser: integers, types, attribute values (read generically through
// each attribute struct's `visit`, by field type) and constants.
#include <charconv>
#include <cmath>
#include <limits>

#include "lazax/core/error.h"
#include "parser.h"

namespace lazax::text {

int64_t Cursor::integer(const Token& t, const std::string& what) {
  if (t.kind != Tok::number || !t.is_integer) {
    fail(t, "expected " + what + ", got " + describe(t));
  }
  int64_t v = 0;
  auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) {
    fail(t, "integer " + describe(t) + " does not fit in 64 bits");
  }
  return v;
}

int64_t Cursor::integer_in(const std::string& what, int64_t lo, int64_t hi) {
  const Token& t = next();
  int64_t v = integer(t, what + " (an integer)");
  if (v < lo || v > hi) {
    fail(t, what + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                std::to_string(v));
  }
  return v;
}

// [d0, d1, ...] of a type (non-negative, at most 2^60 elements) or of a shape attribute (any
// integers: its op's shape rule checks them and says what is wrong). Rank at most kMaxRank.
Shape Cursor::dims(const std::string& what, bool is_type) {
  const Token& open = expect(Tok::lbracket, "'[' and the dimensions of " + what);
  Shape s;
  int64_t numel = 1;
  if (!accept(Tok::rbracket)) {
    for (;;) {
      const Token& t = peek();
      int64_t d = integer(next(), "a dimension (an integer)");
      if (is_type && d < 0) {
        fail(t, "dimension " + std::to_string(d) + " is negative");
      }
      if (is_type && d > kMaxElements) {
        fail(t, "dimension " + std::to_string(d) + " exceeds 2^60");
      }
      if (s.rank() == kMaxRank) {
        fail(t, what + " has more than " + std::to_string(kMaxRank) + " dimensions");
      }
      s.dims().push_back(d);
      if (is_type && (__builtin_mul_overflow(numel, d, &numel) || numel > kMaxElements)) {
        fail(open,
             "the dimensions " + s.str() + "... of " + what + " make more than 2^60 elements");
      }
      if (accept(Tok::rbracket)) {
        break;
      }
      expect(Tok::comma, "',' or ']' in the dimensions of " + what);
    }
  }
  return s;
}

TensorType Cursor::type(const std::string& what) {
  const Token& t = peek();
  if (t.kind != Tok::ident) {
    fail(t, "expected " + what + " like f32[2,3], got " + describe(t));
  }
  auto dt = dtype_from_name(t.text);
  if (!dt) {
    fail(t, "unknown dtype " + describe(t) + " in " + what +
                ": use f32, f64, f16, bf16, i8, i32, i64, u8, u32 or bool");
  }
  next();
  return TensorType{*dt, dims("the type", true)};
}

namespace {

Literal literal(Cursor& p);

struct FieldReader {
  Cursor& p;
  StmtAst& stmt;
  size_t field;

  void operator()(int64_t& v) { v = Cursor::integer(p.next(), "an integer"); }
  void operator()(bool& v) {
    const Token& t = p.next();
    if (!Cursor::is_word(t, "true") && !Cursor::is_word(t, "false")) {
      Cursor::fail(t, "expected true or false, got " + describe(t));
    }
    v = t.text == "true";
  }
  void operator()(IntList& v) {
    p.expect(Tok::lbracket, "'[' to start a list of integers");
    if (p.accept(Tok::rbracket)) {
      return;
    }
    for (;;) {
      v.push_back(Cursor::integer(p.next(), "an integer list element"));
      if (p.accept(Tok::rbracket)) {
        return;
      }
      p.expect(Tok::comma, "',' or ']' in a list of integers");
    }
  }
  void operator()(Shape& v) { v = p.dims("the shape", false); }
  template <class E, class FromName>
  void enum_word(E& v, FromName from_name, const char* choices) {
    const Token& t = p.next();
    auto e = t.kind == Tok::ident ? from_name(t.text) : std::nullopt;
    if (!e) {
      Cursor::fail(t, std::string("expected ") + choices + ", got " + describe(t));
    }
    v = *e;
  }
  void operator()(DType& v) {
    enum_word(v, dtype_from_name, "a dtype (f32, f64, f16, bf16, i8, i32, i64, u8, u32, bool)");
  }
  void operator()(CompareDir& v) {
    enum_word(v, compare_dir_from_name, "a comparison (eq, ne, lt, le, gt, ge)");
  }
  void operator()(GatherMode& v) { enum_word(v, gather_mode_from_name, "a mode (fill, clip)"); }
  void operator()(MemoryKind& v) {
    enum_word(v, memory_kind_from_name, "a memory kind (device, host)");
  }
  void operator()(ReduceKind& v) {
    enum_word(v, reduce_kind_from_name, "a reduction (sum, mean, max, min)");
  }
  void operator()(std::string& v) { v = p.expect(Tok::string, "a quoted string").value; }
  void operator()(Literal& v) { v = literal(p); }
  void operator()(FunctionPtr&) { ref(0); }
  void operator()(std::vector<FunctionPtr>& v) {
    p.expect(Tok::lbracket, "'[' to start a list of functions like [@a, @b]");
    if (p.accept(Tok::rbracket)) {
      return;
    }
    for (;;) {
      ref(v.size());
      v.emplace_back();
      if (p.accept(Tok::rbracket)) {
        return;
      }
      p.expect(Tok::comma, "',' or ']' in a list of functions");
    }
  }
  void ref(size_t element) {
    const Token& t = p.expect(Tok::func, "a function name like @body");
    stmt.callees.push_back(FuncRef{std::string(t.text), Cursor::pos(t), field, element});
  }
};

template <class T>
T element(const Token& t) {
  constexpr DType dt = dtype_of<T>();
  if constexpr (dt == DType::boolean) {
    if (!Cursor::is_word(t, "true") && !Cursor::is_word(t, "false")) {
      Cursor::fail(t, "expected true or false, got " + describe(t));
    }
    return t.text == "true";
  } else if constexpr (dt == DType::f32 || dt == DType::f64 || dt == DType::f16 ||
                       dt == DType::bf16) {
    using F = std::conditional_t<dt == DType::f64, double, float>;
    F v = 0;
    if (Cursor::is_word(t, "nan") || t.text == "-nan") {
      v = std::numeric_limits<F>::quiet_NaN();
      if (t.text[0] == '-') {
        v = -v;
      }
    } else if (Cursor::is_word(t, "inf") || t.text == "-inf") {
      v = t.text[0] == '-' ? -std::numeric_limits<F>::infinity()
                           : std::numeric_limits<F>::infinity();
    } else {
      if (t.kind != Tok::number) {
        Cursor::fail(t, "expected a number, nan, inf or -inf, got " + describe(t));
      }
      auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) {
        Cursor::fail(t, describe(t) + " is out of range for " + std::string(dtype_name(dt)));
      }
    }
    return T(v);
  } else {
    int64_t v = Cursor::integer(
        t, "an integer element of the " + std::string(dtype_name(dt)) + " constant");
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
      Cursor::fail(t, std::to_string(v) + " is out of range for " + std::string(dtype_name(dt)));
    }
    return static_cast<T>(v);
  }
}

// f32[2] [1.5, -inf]: the type, then the elements in row-major order.
Literal literal(Cursor& p) {
  const Token& type_tok = p.peek();
  TensorType t = p.type("the type of the constant");
  if (t.numel() > kMaxConstantElements) {
    Cursor::fail(type_tok, "constant " + t.str() +
                               " has more than 2^28 elements; pass large values as parameters");
  }
  const Token& open = p.expect(Tok::lbracket, "'[' and the values of the constant");
  std::vector<size_t> elems;
  if (!p.accept(Tok::rbracket)) {
    for (;;) {
      if (static_cast<int64_t>(elems.size()) == t.numel()) {
        Cursor::fail(p.peek(), "constant " + t.str() + " needs " + std::to_string(t.numel()) +
                                   " values; more are given");
      }
      elems.push_back(p.index());
      p.next();
      if (p.accept(Tok::rbracket)) {
        break;
      }
      p.expect(Tok::comma, "',' or ']' in the values of the constant");
    }
  }
  if (static_cast<int64_t>(elems.size()) != t.numel()) {
    Cursor::fail(open, "constant " + t.str() + " needs " + std::to_string(t.numel()) +
                           " values, got " + std::to_string(elems.size()));
  }
  Literal lit = Literal::zeros(t);
  dispatch_dtype(t.dtype, [&]<class T>() {
    for (size_t i = 0; i < elems.size(); ++i) {
      lit.data<T>()[i] = element<T>(p.token(elems[i]));
    }
  });
  return lit;
}

}  // namespace

// Every field of the op's attribute struct exactly once, in any order; none (and no braces) for
// ops without attributes.
void parse_attributes(Cursor& p, StmtAst& stmt, const Token& op_tok) {
  std::visit(
      [&](auto& s) {
        using S = std::decay_t<decltype(s)>;
        std::vector<std::string_view> names;
        S::visit(s, [&](std::string_view n, auto&) { names.push_back(n); });
        std::string list;
        for (auto n : names) {
          list += (list.empty() ? "" : ", ") + std::string(n);
        }
        std::string op = std::string(op_tok.text);
        if (p.peek().kind != Tok::lbrace) {
          if (names.empty()) {
            return;
          }
          Cursor::fail(p.peek(), "expected '{' and the attributes of " + op + " (" + list +
                                     "), got " + describe(p.peek()));
        }
        p.next();
        std::vector<bool> seen(names.size(), false);
        if (!p.accept(Tok::rbrace)) {
          for (;;) {
            const Token& name = p.expect(Tok::ident, "an attribute name");
            size_t k = 0;
            while (k < names.size() && names[k] != name.text) {
              ++k;
            }
            if (k == names.size()) {
              std::string msg = op + " has no attribute " + describe(name);
              msg += names.empty() ? "; it takes none" : "; its attributes are " + list;
              Cursor::fail(name, msg);
            }
            if (seen[k]) {
              Cursor::fail(name, "attribute " + describe(name) + " given twice");
            }
            seen[k] = true;
            p.expect(Tok::equals, "'=' after the attribute name");
            size_t j = 0;
            S::visit(s, [&](std::string_view, auto& field) {
              if (j++ == k) {
                FieldReader{p, stmt, k}(field);
              }
            });
            if (p.accept(Tok::rbrace)) {
              break;
            }
            p.expect(Tok::comma, "',' or '}' after an attribute");
          }
        }
        const Token& close = p.previous();
        for (size_t k = 0; k < names.size(); ++k) {
          if (!seen[k]) {
            std::string msg = op + " is missing attribute '";
            msg += names[k];
            msg += "' (every attribute must be written: ";
            msg += list;
            Cursor::fail(close, msg + ")");
          }
        }
      },
      stmt.attrs);
}

}  // namespace lazax::text
