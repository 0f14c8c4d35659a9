#include "lazax/ir/attrs.h"

#include <array>

#include "lazax/core/hash.h"
#include "lazax/ir/function.h"

namespace lazax {
namespace {

constexpr std::array<std::string_view, 6> kDirs = {"eq", "ne", "lt", "le", "gt", "ge"};
constexpr std::array<std::string_view, 2> kModes = {"fill", "clip"};

struct FieldHasher {
  Hasher& h;
  void operator()(std::string_view, const int64_t& v) { h.add_signed(v); }
  void operator()(std::string_view, const bool& v) { h.add(static_cast<uint64_t>(v)); }
  void operator()(std::string_view, const IntList& v) { h.add_words(v.data(), v.size()); }
  void operator()(std::string_view, const Shape& v) { h.add_words(v.dims().data(), v.rank()); }
  void operator()(std::string_view, const DType& v) { h.add(static_cast<uint64_t>(v)); }
  void operator()(std::string_view, const CompareDir& v) { h.add(static_cast<uint64_t>(v)); }
  void operator()(std::string_view, const GatherMode& v) { h.add(static_cast<uint64_t>(v)); }
  void operator()(std::string_view, const MemoryKind& v) { h.add(static_cast<uint64_t>(v)); }
  void operator()(std::string_view, const ReduceKind& v) { h.add(static_cast<uint64_t>(v)); }
  void operator()(std::string_view, const std::string& v) { h.add(v); }
  void operator()(std::string_view, const Literal& v) {
    h.add(static_cast<uint64_t>(v.dtype()));
    h.add_words(v.shape().dims().data(), v.shape().rank());
    h.add_bytes(v.buffer.data(), v.type.bytes());
  }
  void operator()(std::string_view, const FunctionPtr& v) { h.add(v ? v->hash() : 0); }
  void operator()(std::string_view, const std::vector<FunctionPtr>& v) {
    h.add(static_cast<uint64_t>(v.size()));
    for (const auto& f : v) h.add(f ? f->hash() : 0);
  }
};

// Collects the addresses of an attribute struct's fields (none has more than kMaxFields).
constexpr size_t kMaxFields = 8;
struct FieldCollector {
  std::array<const void*, kMaxFields>* ptrs;
  size_t* n;
  template <class T>
  void operator()(std::string_view, const T& v) {
    (*ptrs)[(*n)++] = &v;
  }
};

template <class T>
bool field_equal(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, Literal>) {
    return a.bit_equal(b);
  } else if constexpr (std::is_same_v<T, FunctionPtr>) {
    return a == b || (a && b && a->hash() == b->hash());
  } else if constexpr (std::is_same_v<T, std::vector<FunctionPtr>>) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!field_equal(a[i], b[i])) return false;
    return true;
  } else {
    return a == b;
  }
}

}  // namespace

std::string_view compare_dir_name(CompareDir d) { return kDirs[static_cast<size_t>(d)]; }
std::optional<CompareDir> compare_dir_from_name(std::string_view s) {
  for (size_t i = 0; i < kDirs.size(); ++i)
    if (kDirs[i] == s) return static_cast<CompareDir>(i);
  return std::nullopt;
}
std::string_view gather_mode_name(GatherMode m) { return kModes[static_cast<size_t>(m)]; }
std::optional<GatherMode> gather_mode_from_name(std::string_view s) {
  for (size_t i = 0; i < kModes.size(); ++i)
    if (kModes[i] == s) return static_cast<GatherMode>(i);
  return std::nullopt;
}

uint64_t hash_attrs(const Attrs& a) {
  Hasher h(a.index());
  std::visit([&](const auto& s) { std::decay_t<decltype(s)>::visit(s, FieldHasher{h}); }, a);
  return h.digest();
}

bool attrs_equal(const Attrs& a, const Attrs& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& sa) {
        using S = std::decay_t<decltype(sa)>;
        const S& sb = std::get<S>(b);
        bool eq = true;
        // Visit both in lockstep: collect field addresses of b, then compare.
        // (Attributes are compared on recording's hot path: interning, SharedAttrs.)
        std::array<const void*, kMaxFields> pb{};
        size_t n = 0;
        S::visit(sb, FieldCollector{&pb, &n});
        size_t i = 0;
        S::visit(sa, [&](std::string_view, const auto& fa) {
          using T = std::decay_t<decltype(fa)>;
          eq = eq && field_equal(fa, *static_cast<const T*>(pb[i++]));
        });
        return eq;
      },
      a);
}

}  // namespace lazax
