// Helpers shared by the shape rules: "[op] ..." messages that name the operand types, and the
// checks (axes in range, lists the right length, dims that do not overflow) every rule repeats.
//
// Shape rules run on every recorded op, so a rule must not build message text unless a check
// fails: the checks below take their context (the text naming the operands) as a string literal
// or as a callable returning the text, e.g. `[&] { return x.str() + " -> " + r.str(); }`, and
// call it only on the failure path.
#pragma once
#include <algorithm>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/ir/function.h"
#include "lazax/ir/shape_rules.h"

namespace lazax::shape_rules::detail {

inline std::string tag(OpCode op) { return "[" + std::string(op_name(op)) + "] "; }

[[noreturn]] inline void shape_fail(OpCode op, const std::string& msg) {
  throw ShapeError(tag(op) + msg);
}
[[noreturn]] inline void dtype_fail(OpCode op, const std::string& msg) {
  throw DTypeError(tag(op) + msg);
}

// "f32[2,3], i32[]" (or "(none)").
inline std::string types_str(std::span<const TensorType> ts) {
  if (ts.empty()) return "(none)";
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].str();
  return s;
}
inline std::string list_str(std::span<const int64_t> v) {
  return vec_str(std::vector<int64_t>(v.begin(), v.end()));
}
inline std::string num(int64_t v) { return std::to_string(v); }
inline std::string dt(DType t) { return std::string(dtype_name(t)); }

// The text of a lazily given context: a string literal, or a callable returning the text.
template <class Ctx>
std::string text(const Ctx& context) {
  static_assert(!std::is_same_v<Ctx, std::string>,
                "pass a lambda returning the string, so it is built only when a check fails");
  if constexpr (std::is_invocable_v<const Ctx&>) {
    return std::string(context());
  } else {
    return std::string(context);
  }
}

inline int64_t checked_add(OpCode op, int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) shape_fail(op, "dimension size overflows int64");
  return r;
}
inline int64_t checked_mul(OpCode op, int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) shape_fail(op, "dimension size overflows int64");
  return r;
}

// Checks that a shape given as an attribute has non-negative dims and a representable size.
inline int64_t checked_numel(OpCode op, const Shape& s, const char* what) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) shape_fail(op, std::string(what) + " " + s.str() + " has a negative dimension");
    n = checked_mul(op, n, d);
  }
  return n;
}

// An axis attribute must lie in [0, rank).
inline void check_axis(OpCode op, int64_t axis, const TensorType& t, const char* what) {
  if (axis < 0 || axis >= static_cast<int64_t>(t.shape.rank())) {
    shape_fail(op, std::string(what) + " " + num(axis) + " is out of range for " + t.str() +
                       " (rank " + num(static_cast<int64_t>(t.shape.rank())) +
                       "); use an axis in [0, rank)");
  }
}

// Each entry in [0, bound), no duplicates; if `sorted`, strictly increasing.
template <class Ctx>
void check_axes(OpCode op, std::span<const int64_t> axes, int64_t bound, const char* what,
                const Ctx& context, bool sorted = false) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= bound) {
      shape_fail(op, std::string(what) + " " + list_str(axes) + " has " + num(axes[i]) +
                         ", out of range [0, " + num(bound) + ") for " + text(context));
    }
    for (size_t j = 0; j < i; ++j) {
      if (axes[j] == axes[i]) {
        shape_fail(op, std::string(what) + " " + list_str(axes) + " repeats " + num(axes[i]) +
                           " for " + text(context) + "; list each dimension once");
      }
    }
    if (sorted && i > 0 && axes[i - 1] >= axes[i]) {
      shape_fail(op, std::string(what) + " " + list_str(axes) + " must be sorted increasing for " +
                         text(context));
    }
  }
}

inline bool contains(std::span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

template <class Ctx>
void check_len(OpCode op, size_t got, size_t want, const char* what, const Ctx& context) {
  if (got != want) {
    shape_fail(op, std::string(what) + " has " + num(static_cast<int64_t>(got)) +
                       " entries but needs " + num(static_cast<int64_t>(want)) + " for " +
                       text(context));
  }
}

inline bool is_int_scalar(const TensorType& t) {
  return t.shape.rank() == 0 && (t.dtype == DType::i32 || t.dtype == DType::i64);
}

// Parameter / result types of a sub-function, checking it exists and is well-formed enough to
// read (the verifier checks the rest). `what` names it (a string literal or a callable, as above).
template <class What>
const Function& sub_function(OpCode op, const FunctionPtr& f, const What& what) {
  if (!f) shape_fail(op, text(what) + " is missing (null function)");
  // (The results were checked by Function's constructor; the parameters too, the answer kept.)
  if (f->params_well_formed()) return *f;
  const auto& nodes = f->nodes();
  if (f->num_params() < 0 || static_cast<size_t>(f->num_params()) > nodes.size()) {
    shape_fail(op, text(what) + " @" + f->name() + " is malformed (bad parameter count)");
  }
  for (int i = 0; i < f->num_params(); ++i) {
    if (nodes[static_cast<size_t>(i)].outputs.size() != 1) {
      shape_fail(op, text(what) + " @" + f->name() + " is malformed (parameter " + num(i) +
                         " does not have one output)");
    }
  }
  return *f;
}

}  // namespace lazax::shape_rules::detail
