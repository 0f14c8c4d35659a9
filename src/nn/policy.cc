// Policy (lazax/nn/policy.h): parsing jmp's policy strings, and the leaf casts.
#include "lazax/nn/policy.h"

#include <optional>
#include <string>

#include "lazax/core/error.h"

namespace lazax {

namespace {

constexpr const char* kDTypes =
    "f32 (float32, full), bf16 (bfloat16, half), f16 (float16), f64 (float64)";
constexpr const char* kFields = "params (p), compute (c), output (o)";

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "f32" || s == "float32" || s == "full") return DType::f32;
  if (s == "bf16" || s == "bfloat16" || s == "half") return DType::bf16;
  if (s == "f16" || s == "float16") return DType::f16;
  if (s == "f64" || s == "float64") return DType::f64;
  return std::nullopt;
}

[[noreturn]] void bad(std::string_view spec, const std::string& what) {
  throw ValueError("[Policy::parse] " + what + " in '" + std::string(spec) +
                   "'; write fields as params=f32,compute=bf16,output=f32 (fields: " + kFields +
                   "; dtypes: " + kDTypes + ")");
}

DType field_dtype(std::string_view spec, std::string_view field, std::string_view value) {
  std::optional<DType> t = parse_dtype(value);
  if (!t)
    bad(spec, "unknown dtype '" + std::string(value) + "' for " + std::string(field) +
                  " (a policy takes floating dtypes)");
  return *t;
}

}  // namespace

Policy Policy::parse(std::string_view spec) {
  std::string_view s = trim(spec);
  if (s.empty()) bad(spec, "no fields");
  Policy p;
  if (s.find('=') == std::string_view::npos) {  // a lone dtype: all three
    DType t = field_dtype(spec, "the policy", s);
    return Policy{t, t, t};
  }
  bool seen[3] = {false, false, false};
  while (true) {
    size_t comma = s.find(',');
    std::string_view part = trim(s.substr(0, comma));
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) bad(spec, "field '" + std::string(part) + "' has no '='");
    std::string_view key = trim(part.substr(0, eq)), value = trim(part.substr(eq + 1));
    int i = -1;
    if (key == "params" || key == "p") i = 0;
    if (key == "compute" || key == "c") i = 1;
    if (key == "output" || key == "o") i = 2;
    if (i < 0) bad(spec, "unknown field '" + std::string(key) + "'");
    if (seen[i]) bad(spec, "field '" + std::string(key) + "' given twice");
    seen[i] = true;
    DType t = field_dtype(spec, key, value);
    (i == 0 ? p.param_dtype : i == 1 ? p.compute_dtype : p.output_dtype) = t;
    if (comma == std::string_view::npos) break;
    s = s.substr(comma + 1);
  }
  return p;
}

std::string Policy::str() const {
  return "params=" + std::string(dtype_name(param_dtype)) +
         ",compute=" + std::string(dtype_name(compute_dtype)) +
         ",output=" + std::string(dtype_name(output_dtype));
}

namespace detail {

void check_cast_dtype(DType dtype, const char* who) {
  if (!is_floating(dtype))
    throw DTypeError(std::string("[") + who + "] casts floating tensors to a floating dtype, got " +
                     std::string(dtype_name(dtype)) + "; use f32, bf16, f16 or f64");
}

void cast_floating_leaves(std::vector<Tensor>& leaves, DType dtype) {
  for (Tensor& t : leaves) {
    if (t.defined() && is_floating(t.dtype())) t = t.to(dtype);
  }
}

}  // namespace detail
}  // namespace lazax
