// A vector that keeps up to N elements inside the object and moves to the heap beyond that. Graph
// nodes hold their operands and output types in these, so that recording an op allocates the node
// and nothing else. (small_vec.h is the same idea for trivially copyable elements.)
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "lazax/core/pool_allocator.h"

namespace lazax {

template <class T, size_t N>
class InlineVec {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVec() = default;
  InlineVec(std::initializer_list<T> xs) { append(xs.begin(), xs.end()); }
  template <std::random_access_iterator It>
  InlineVec(It first, It last) {
    append(first, last);
  }
  InlineVec(const InlineVec& o) { append(o.begin(), o.end()); }
  InlineVec(InlineVec&& o) noexcept { take(o); }
  InlineVec& operator=(const InlineVec& o) {
    if (this != &o) {
      clear();
      append(o.begin(), o.end());
    }
    return *this;
  }
  InlineVec& operator=(InlineVec&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  InlineVec& operator=(std::initializer_list<T> xs) {
    clear();
    append(xs.begin(), xs.end());
    return *this;
  }
  ~InlineVec() { release(); }

  // The IR's Node keeps std::vector: a graph node's lists convert when a Function is built.
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }

  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  // (One pointer, to the inline elements or the heap block: read without a branch.)
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= cap_) return;
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    if (n > UINT32_MAX) throw std::bad_array_new_length();  // (cap_ is 32 bits)
    size_t usable = 0;
    T* p = static_cast<T*>(pool_allocate_bytes(n * sizeof(T), usable));
    n = std::min<size_t>(usable / sizeof(T), UINT32_MAX);  // the whole block is usable
    T* old = data();
    for (size_t i = 0; i < size_; ++i) {
      new (p + i) T(std::move(old[i]));
      old[i].~T();
    }
    free_heap();
    data_ = p;
    cap_ = static_cast<uint32_t>(n);
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... A>
  T& emplace_back(A&&... args) {
    if (size_ == cap_) {
      T copy(std::forward<A>(args)...);  // the arguments may refer into this vector
      reserve(cap_ * 2);
      return *new (data() + size_++) T(std::move(copy));
    }
    return *new (data() + size_++) T(std::forward<A>(args)...);
  }
  void pop_back() { std::destroy_at(data() + --size_); }
  void resize(size_t n) {
    reserve(n);
    while (size_ < n) emplace_back();
    while (size_ > n) pop_back();
  }
  void clear() {
    std::destroy_n(data(), size_);
    size_ = 0;
  }
  template <std::random_access_iterator It>
  void assign(It first, It last) {
    clear();
    append(first, last);
  }

 private:
  bool on_heap() const { return data_ != inline_data(); }
  T* inline_data() { return std::launder(reinterpret_cast<T*>(inline_)); }
  const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(inline_)); }

  template <std::random_access_iterator It>
  void append(It first, It last) {
    reserve(size_ + static_cast<size_t>(last - first));
    for (; first != last; ++first) new (data() + size_++) T(*first);
  }
  void free_heap() {
    // (cap_ elements' bytes lie between the size asked for and the block's usable size.)
    if (on_heap()) pool_deallocate_bytes(data_, size_t{cap_} * sizeof(T));
    data_ = inline_data();
  }
  void release() {
    clear();
    free_heap();
    cap_ = N;
  }
  // Takes o's elements (o is empty afterwards); this vector is empty and inline before.
  void take(InlineVec& o) {
    if (o.on_heap()) {
      data_ = std::exchange(o.data_, o.inline_data());
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, N);
      return;
    }
    for (size_t i = 0; i < o.size_; ++i) new (inline_data() + i) T(std::move(o.inline_data()[i]));
    size_ = o.size_;
    o.clear();
  }

  T* data_ = reinterpret_cast<T*>(inline_);  // inline_ or a heap block
  uint32_t size_ = 0;
  uint32_t cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace lazax
