// Argument and result structures for the transforms (the C++ counterpart of JAX pytrees):
// a Tensor; std::vector, std::map<std::string, T>, std::pair and std::tuple of trees; and user
// structs that list their fields once with LAZAX_TREE_FIELDS(a, b, ...). Arithmetic values,
// bools and strings are static leaves: they hold no tensor, are part of the structure key, and
// are carried through unchanged.
//
// Each TreeTraits<T> has flatten, unflatten, structure (the structure as readable text, for
// messages) and key (the same structure as words for TreeKey: what the caches of assume_pure and
// jit look up on every call, so it builds no strings), and may have paths (each leaf's name, for
// messages: tree_paths).
#pragma once
#include <bit>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "lazax/api/tensor.h"
#include "lazax/core/hash.h"
#include "lazax/core/small_vec.h"

// Inside a struct: makes it a tree whose children are the listed fields.
// (The fields' names, as written, name the leaves' paths: tree_paths.)
#define LAZAX_TREE_FIELDS(...)                                  \
  auto lazax_tree_tie() { return std::tie(__VA_ARGS__); }       \
  auto lazax_tree_tie() const { return std::tie(__VA_ARGS__); } \
  static constexpr std::string_view lazax_tree_field_names() { return #__VA_ARGS__; }

namespace lazax {

template <class T, class = void>
struct TreeTraits;

// The path of each leaf that TreeTraits<T>::flatten gives, appended to `out` in the same order:
// JAX's key paths in C++ spelling, after `prefix`: "[2]" in a vector or tuple, "['w']" in a map,
// ".first" / ".second", ".field" in a struct with LAZAX_TREE_FIELDS, ".layers.0.wq.weight" in an
// nn::Module; nothing after the prefix for a lone tensor. A TreeTraits without `paths` numbers its
// leaves "[i]". (saved_residuals names arguments with it.)
template <class T>
void tree_paths(const T& v, const std::string& prefix, std::vector<std::string>& out);

namespace detail {
// "a, b,c" -> {"a", "b", "c"} (LAZAX_TREE_FIELDS's stringized arguments).
std::vector<std::string> split_field_names(std::string_view names);
// prefix + open + key + close, in one string.
inline std::string child_path(const std::string& prefix, std::string_view open,
                              std::string_view key = {}, std::string_view close = {}) {
  std::string p;
  p.reserve(prefix.size() + open.size() + key.size() + close.size());
  p += prefix;
  p += open;
  p += key;
  p += close;
  return p;
}
}  // namespace detail

// The structure of a tree as words (tensor types, container sizes, static values),
// hashed in one pass by digest(). Each container adds a tag word before its children and an end
// word after them, so that different nestings give different words.
class TreeKey {
 public:
  enum Tag : uint64_t {
    kTensor = 1ull << 56,
    kUndefined = 2ull << 56,
    kIntegral = 3ull << 56,
    kFloating = 4ull << 56,
    kString = 5ull << 56,
    kVector = 6ull << 56,
    kMap = 7ull << 56,
    kTuple = 8ull << 56,
    kPair = 9ull << 56,
    kStruct = 10ull << 56,
    kEnd = 11ull << 56,
  };
  void add(uint64_t w) { words_.push_back(w); }
  void add(std::string_view s) {
    add(kString | s.size());
    add(hash_bytes(s.data(), s.size()));
  }
  uint64_t digest() const { return hash_bytes(words_.data(), words_.size() * sizeof(uint64_t)); }

 private:
  SmallVec<uint64_t, 64> words_;
};

namespace detail {
template <class T, class = void>
struct has_tie : std::false_type {};
template <class T>
struct has_tie<T, std::void_t<decltype(std::declval<T&>().lazax_tree_tie())>> : std::true_type {};
}  // namespace detail

template <>
struct TreeTraits<Tensor> {
  static void flatten(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
  static Tensor unflatten(const Tensor&, const Tensor*& it) { return *it++; }
  static void paths(const Tensor&, const std::string& prefix, std::vector<std::string>& out) {
    out.push_back(prefix);
  }
  static void structure(const Tensor& t, std::string& s) {
    s += t.defined() ? t.type_str() : "undef";
    s += ';';
  }
  // (The type's id, not its dims: a key is only compared within the process.)
  static void key(const Tensor& t, TreeKey& k) {
    if (!t.defined()) return k.add(TreeKey::kUndefined);
    k.add(TreeKey::kTensor);
    k.add(t.type_id());
  }
};

template <class T>
struct TreeTraits<T, std::enable_if_t<std::is_arithmetic_v<T>>> {
  static void flatten(const T&, std::vector<Tensor>&) {}
  static T unflatten(const T& like, const Tensor*&) { return like; }
  static void paths(const T&, const std::string&, std::vector<std::string>&) {}
  static void structure(const T& v, std::string& s) { s += "static:" + std::to_string(v) + ";"; }
  static void key(const T& v, TreeKey& k) {
    if constexpr (std::is_floating_point_v<T>) {
      k.add(TreeKey::kFloating);
      k.add(std::bit_cast<uint64_t>(static_cast<double>(v)));  // every value its own key
    } else {
      k.add(TreeKey::kIntegral);
      k.add(static_cast<uint64_t>(v));
    }
  }
};

template <>
struct TreeTraits<std::string> {
  static void flatten(const std::string&, std::vector<Tensor>&) {}
  static std::string unflatten(const std::string& like, const Tensor*&) { return like; }
  static void paths(const std::string&, const std::string&, std::vector<std::string>&) {}
  static void structure(const std::string& v, std::string& s) { s += "static:\"" + v + "\";"; }
  static void key(const std::string& v, TreeKey& k) { k.add(std::string_view(v)); }
};

template <class T>
struct TreeTraits<std::vector<T>> {
  static void flatten(const std::vector<T>& v, std::vector<Tensor>& out) {
    for (const auto& x : v) TreeTraits<T>::flatten(x, out);
  }
  static std::vector<T> unflatten(const std::vector<T>& like, const Tensor*& it) {
    std::vector<T> r;
    r.reserve(like.size());
    for (const auto& x : like) r.push_back(TreeTraits<T>::unflatten(x, it));
    return r;
  }
  static void paths(const std::vector<T>& v, const std::string& prefix,
                    std::vector<std::string>& out) {
    for (size_t i = 0; i < v.size(); ++i)
      tree_paths(v[i], detail::child_path(prefix, "[", std::to_string(i), "]"), out);
  }
  static void structure(const std::vector<T>& v, std::string& s) {
    s += "[" + std::to_string(v.size()) + ":";
    for (const auto& x : v) TreeTraits<T>::structure(x, s);
    s += "]";
  }
  static void key(const std::vector<T>& v, TreeKey& k) {
    k.add(TreeKey::kVector | v.size());
    for (const auto& x : v) TreeTraits<T>::key(x, k);
    k.add(TreeKey::kEnd);
  }
};

template <class T>
struct TreeTraits<std::map<std::string, T>> {
  using M = std::map<std::string, T>;
  static void flatten(const M& m, std::vector<Tensor>& out) {
    for (const auto& [k, v] : m) TreeTraits<T>::flatten(v, out);
  }
  static M unflatten(const M& like, const Tensor*& it) {
    M r;
    for (const auto& [k, v] : like) r.emplace(k, TreeTraits<T>::unflatten(v, it));
    return r;
  }
  static void paths(const M& m, const std::string& prefix, std::vector<std::string>& out) {
    for (const auto& [k, v] : m) tree_paths(v, detail::child_path(prefix, "['", k, "']"), out);
  }
  static void structure(const M& m, std::string& s) {
    s += "{";
    for (const auto& [k, v] : m) {
      s += k + "=";
      TreeTraits<T>::structure(v, s);
    }
    s += "}";
  }
  static void key(const M& m, TreeKey& k) {
    k.add(TreeKey::kMap | m.size());
    for (const auto& [name, v] : m) {
      k.add(std::string_view(name));
      TreeTraits<T>::key(v, k);
    }
    k.add(TreeKey::kEnd);
  }
};

template <class... Ts>
struct TreeTraits<std::tuple<Ts...>> {
  using Tup = std::tuple<Ts...>;
  static void flatten(const Tup& t, std::vector<Tensor>& out) {
    std::apply(
        [&](const auto&... x) { (TreeTraits<std::decay_t<decltype(x)>>::flatten(x, out), ...); },
        t);
  }
  static Tup unflatten(const Tup& like, const Tensor*& it) {
    return unflatten_impl(like, it, std::index_sequence_for<Ts...>{});
  }
  static void paths(const Tup& t, const std::string& prefix, std::vector<std::string>& out) {
    size_t i = 0;
    std::apply(
        [&](const auto&... x) {
          ((tree_paths(x, detail::child_path(prefix, "[", std::to_string(i), "]"), out), ++i), ...);
        },
        t);
  }
  static void structure(const Tup& t, std::string& s) {
    s += "(";
    std::apply(
        [&](const auto&... x) { (TreeTraits<std::decay_t<decltype(x)>>::structure(x, s), ...); },
        t);
    s += ")";
  }
  static void key(const Tup& t, TreeKey& k) {
    k.add(TreeKey::kTuple | sizeof...(Ts));
    std::apply([&](const auto&... x) { (TreeTraits<std::decay_t<decltype(x)>>::key(x, k), ...); },
               t);
    k.add(TreeKey::kEnd);
  }

 private:
  template <size_t... I>
  static Tup unflatten_impl(const Tup& like, const Tensor*& it, std::index_sequence<I...>) {
    // Braced init evaluates left to right.
    return Tup{TreeTraits<std::tuple_element_t<I, Tup>>::unflatten(std::get<I>(like), it)...};
  }
};

template <class A, class B>
struct TreeTraits<std::pair<A, B>> {
  using P = std::pair<A, B>;
  static void flatten(const P& p, std::vector<Tensor>& out) {
    TreeTraits<A>::flatten(p.first, out);
    TreeTraits<B>::flatten(p.second, out);
  }
  static P unflatten(const P& like, const Tensor*& it) {
    A a = TreeTraits<A>::unflatten(like.first, it);
    B b = TreeTraits<B>::unflatten(like.second, it);
    return P{std::move(a), std::move(b)};
  }
  static void paths(const P& p, const std::string& prefix, std::vector<std::string>& out) {
    tree_paths(p.first, detail::child_path(prefix, ".first"), out);
    tree_paths(p.second, detail::child_path(prefix, ".second"), out);
  }
  static void structure(const P& p, std::string& s) {
    s += "<";
    TreeTraits<A>::structure(p.first, s);
    TreeTraits<B>::structure(p.second, s);
    s += ">";
  }
  static void key(const P& p, TreeKey& k) {
    k.add(TreeKey::kPair);
    TreeTraits<A>::key(p.first, k);
    TreeTraits<B>::key(p.second, k);
    k.add(TreeKey::kEnd);
  }
};

template <class T>
struct TreeTraits<T, std::enable_if_t<detail::has_tie<T>::value>> {
  static void flatten(const T& v, std::vector<Tensor>& out) {
    auto tie = v.lazax_tree_tie();
    std::apply(
        [&](const auto&... x) { (TreeTraits<std::decay_t<decltype(x)>>::flatten(x, out), ...); },
        tie);
  }
  static T unflatten(const T& like, const Tensor*& it) {
    T r = like;
    auto tie = r.lazax_tree_tie();
    std::apply(
        [&](auto&... x) { ((x = TreeTraits<std::decay_t<decltype(x)>>::unflatten(x, it)), ...); },
        tie);
    return r;
  }
  // The fields' names as LAZAX_TREE_FIELDS wrote them ("[i]" where the struct ties its fields
  // by hand).
  static void paths(const T& v, const std::string& prefix, std::vector<std::string>& out) {
    std::vector<std::string> names;
    if constexpr (requires { T::lazax_tree_field_names(); })
      names = detail::split_field_names(T::lazax_tree_field_names());
    size_t i = 0;
    std::apply(
        [&](const auto&... x) {
          ((tree_paths(x,
                       i < names.size() ? detail::child_path(prefix, ".", names[i])
                                        : detail::child_path(prefix, "[", std::to_string(i), "]"),
                       out),
            ++i),
           ...);
        },
        v.lazax_tree_tie());
  }
  static void structure(const T& v, std::string& s) {
    s += "struct{";
    auto tie = v.lazax_tree_tie();
    std::apply(
        [&](const auto&... x) { (TreeTraits<std::decay_t<decltype(x)>>::structure(x, s), ...); },
        tie);
    s += "}";
  }
  static void key(const T& v, TreeKey& k) {
    k.add(TreeKey::kStruct);
    auto tie = v.lazax_tree_tie();
    std::apply([&](const auto&... x) { (TreeTraits<std::decay_t<decltype(x)>>::key(x, k), ...); },
               tie);
    k.add(TreeKey::kEnd);
  }
};

template <class T>
void tree_paths(const T& v, const std::string& prefix, std::vector<std::string>& out) {
  if constexpr (requires { TreeTraits<T>::paths(v, prefix, out); }) {
    TreeTraits<T>::paths(v, prefix, out);
  } else {
    std::vector<Tensor> leaves;
    TreeTraits<T>::flatten(v, leaves);
    for (size_t i = 0; i < leaves.size(); ++i)
      out.push_back(detail::child_path(prefix, "[", std::to_string(i), "]"));
  }
}

// Convenience wrappers.
template <class T>
std::vector<Tensor> tree_flatten(const T& v) {
  std::vector<Tensor> out;
  TreeTraits<T>::flatten(v, out);
  return out;
}
template <class T>
T tree_unflatten(const T& like, const std::vector<Tensor>& leaves) {
  const Tensor* it = leaves.data();
  return TreeTraits<T>::unflatten(like, it);
}
template <class T>
std::string tree_structure(const T& v) {
  std::string s;
  TreeTraits<T>::structure(v, s);
  return s;
}
// A hash of what tree_structure spells out (tensor types, sizes, static values).
template <class T>
uint64_t tree_key(const T& v) {
  TreeKey k;
  TreeTraits<T>::key(v, k);
  return k.digest();
}

}  // namespace lazax
