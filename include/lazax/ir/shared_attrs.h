// Immutable attributes shared by reference: what a lazy graph node and its tape entry hold
// instead of an `Attrs` each (208 bytes, sized by the largest alternative). A training step
// records the same few hundred attribute values thousands of times, so ordinary attributes are
// interned: a table per thread maps each value to one block that lives as long as the program
// and is never counted or freed, and recording an op touches no new memory for its attributes.
// Attributes that hold functions or data (call, cond, while, scan, constants beyond a scalar)
// are not interned: they get a reference-counted block of their own, freed with its last user.
// No attributes (NoAttrs, most ops) is a null pointer.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

#include "lazax/ir/attrs.h"

namespace lazax {

namespace detail {
template <class A, class V>
struct IsAlternative;
template <class A, class... T>
struct IsAlternative<A, std::variant<T...>> : std::bool_constant<(std::is_same_v<A, T> || ...)> {};
}  // namespace detail

class SharedAttrs {
 public:
  SharedAttrs() = default;  // NoAttrs
  SharedAttrs(Attrs a);     // NOLINT: implicit, as ops are called with attribute structs
  template <class A>
    requires detail::IsAlternative<std::decay_t<A>, Attrs>::value
  SharedAttrs(A&& a) : SharedAttrs(Attrs(std::forward<A>(a))) {}  // NOLINT
  SharedAttrs(const SharedAttrs& o) : p_(o.p_) { retain(); }
  SharedAttrs(SharedAttrs&& o) noexcept : p_(std::exchange(o.p_, 0)) {}
  SharedAttrs& operator=(const SharedAttrs& o) {
    SharedAttrs copy(o);
    std::swap(p_, copy.p_);
    return *this;
  }
  SharedAttrs& operator=(SharedAttrs&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, 0);
    }
    return *this;
  }
  ~SharedAttrs() { release(); }

  const Attrs& get() const { return p_ ? block()->value : no_attrs(); }
  const Attrs& operator*() const { return get(); }
  const Attrs* operator->() const { return &get(); }
  // hash_attrs(get()), computed once when the block was made.
  uint64_t hash() const { return p_ ? block()->hash : no_attrs_hash(); }
  // Whether the block is immortal, never counted nor freed: interned, or permanent (for tests).
  bool interned() const { return (p_ & kImmortal) != 0; }
  // A word that identifies the value for the rest of the process (equal words: equal values),
  // or 0 when it has none (a counted block, whose address a later value may take). NoAttrs is 1.
  uintptr_t lasting_id() const { return p_ == 0 ? 1 : (p_ & kImmortal) ? p_ : 0; }

  // Number of interned blocks made so far, by all threads (for tests and metrics).
  static int64_t interned_count();
  // A block that is never freed nor counted, outside the intern tables: for attributes made
  // once per cached program that lives as long as the process (assume_pure's calls), which
  // are copied on every call (a counted copy is an atomic operation).
  static SharedAttrs permanent(Attrs a);

 private:
  struct Block {
    uint64_t hash = 0;
    int32_t refs = 1;  // atomic (__atomic builtins); unused for an immortal block
    Attrs value;
  };
  static constexpr uintptr_t kImmortal = 1;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): p_ is a tagged pointer (docs/PERFORMANCE.md)
  Block* block() const { return reinterpret_cast<Block*>(p_ & ~kImmortal); }
  void retain() const;
  void release();
  static const Attrs& no_attrs() { return kNone; }
  static uint64_t no_attrs_hash();
  static void destroy(Block* b);
  // A block never freed (kept reachable for leak checkers).
  static Block* new_immortal(Attrs&& a, uint64_t h);
  static const Attrs kNone;
  friend struct SharedAttrsTable;

  uintptr_t p_ = 0;  // Block*, its low bit set when immortal
};

inline void SharedAttrs::retain() const {
  if (p_ && !(p_ & kImmortal)) __atomic_add_fetch(&block()->refs, 1, __ATOMIC_RELAXED);
}

inline void SharedAttrs::release() {
  if (p_ && !(p_ & kImmortal) && __atomic_sub_fetch(&block()->refs, 1, __ATOMIC_ACQ_REL) == 0)
    destroy(block());
  p_ = 0;
}

}  // namespace lazax
