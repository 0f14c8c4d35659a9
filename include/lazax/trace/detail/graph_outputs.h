// GraphOutputs: a graph node's result types as one tagged word (speed machinery behind
// trace/graph.h; docs/PERFORMANCE.md, "Interned types"). A node reads as "its result types".
#pragma once
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

#include "lazax/core/interned_type.h"

namespace lazax {

// A node's output types, interned (core/interned_type.h): the node holds a pointer to the
// process's one copy of each, which the handles of its values share. One type (the usual case)
// is held inline. A call's list is borrowed from its callee (the node's CallAttrs keeps the
// callee alive): a call has tens of results (assume_pure's forward and backward), which would
// otherwise be interned on every step. Other lists of several are the node's own.
class GraphOutputs {
 public:
  GraphOutputs() = default;
  GraphOutputs(std::initializer_list<TensorType> ts)
      : GraphOutputs(std::span<const TensorType>(ts.begin(), ts.size())) {}
  explicit GraphOutputs(std::span<const TensorType> ts);
  // One type, interned already.
  static GraphOutputs one(const TensorType& interned) {
    GraphOutputs o;
    o.p_ = reinterpret_cast<uintptr_t>(&interned);
    o.size_ = 1;
    o.kind_ = Kind::one;
    return o;
  }
  static GraphOutputs borrowed(std::span<const TensorType* const> ts) {
    GraphOutputs o;
    o.p_ = reinterpret_cast<uintptr_t>(ts.data()) | kList;
    o.size_ = static_cast<uint32_t>(ts.size());
    o.kind_ = Kind::borrowed;
    return o;
  }
  GraphOutputs(const GraphOutputs&) = delete;  // (a borrowed view must not outlive its node)
  GraphOutputs& operator=(const GraphOutputs&) = delete;
  GraphOutputs(GraphOutputs&& o) noexcept
      : p_(std::exchange(o.p_, 0)),
        size_(std::exchange(o.size_, 0)),
        kind_(std::exchange(o.kind_, Kind::none)) {}
  GraphOutputs& operator=(GraphOutputs&& o) noexcept {
    if (this != &o) {
      free();
      p_ = std::exchange(o.p_, 0);
      size_ = std::exchange(o.size_, 0);
      kind_ = std::exchange(o.kind_, Kind::none);
    }
    return *this;
  }
  ~GraphOutputs() { free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Interned: valid for the rest of the process, after the node is gone. (Reads only the first
  // word: a type read through a node touches the node's first cache line only.)
  const TensorType& operator[](size_t i) const {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): p_ is a tagged pointer
    return (p_ & kList) ? *list()[i] : *reinterpret_cast<const TensorType*>(p_);
  }
  operator std::vector<TensorType>() const {
    std::vector<TensorType> out;
    out.reserve(size_);
    for (size_t i = 0; i < size_; ++i) out.push_back((*this)[i]);
    return out;
  }

 private:
  enum class Kind : uint8_t { none, one, owned, borrowed };
  static constexpr uintptr_t kList = 1;  // p_ is a list of pointers (else the one type)
  const TensorType* const* list() const {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): p_ is a tagged pointer
    return reinterpret_cast<const TensorType* const*>(p_ & ~kList);
  }
  void free() {
    if (kind_ == Kind::owned) delete[] list();
  }
  uintptr_t p_ = 0;  // the type, or the list | kList
  uint32_t size_ = 0;
  Kind kind_ = Kind::none;
};

}  // namespace lazax
