// A vector of trivially copyable elements that keeps up to N of them inline, so that shapes and
// operand lists (almost always short) cost no heap allocation when a node is recorded.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <vector>

namespace lazax {

template <class T, size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVec() = default;
  SmallVec(std::initializer_list<T> xs) { assign(xs.begin(), xs.end()); }
  template <class It>
  SmallVec(It first, It last) {
    assign(first, last);
  }
  explicit SmallVec(size_t n, const T& v = T()) {
    resize(n);
    std::fill(begin(), end(), v);
  }
  // From and to std::vector (attribute lists meet the API's std::vector<int64_t> arguments).
  SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }  // NOLINT: implicit
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  operator std::vector<T>() const { return vec(); }  // NOLINT: implicit
  SmallVec(const SmallVec& o) {
    if (!o.heap_) {
      copy_inline(o);
    } else {
      assign(o.heap_, o.heap_ + o.size_);
    }
  }
  SmallVec(SmallVec&& o) noexcept { take(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this == &o) return *this;
    if (!heap_ && !o.heap_) {
      copy_inline(o);
    } else if (!o.heap_) {  // inline elements into this heap buffer (size <= N: said for GCC)
      const T* src = reinterpret_cast<const T*>(o.inline_);
      assign(src, src + std::min<size_t>(o.size_, N));
    } else {
      assign(o.heap_, o.heap_ + o.size_);
    }
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  template <class It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, data());
    size_ = static_cast<uint32_t>(n);
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(static_cast<void*>(p), data(), size_ * sizeof(T));
    if (heap_) std::free(heap_);
    heap_ = p;
    cap_ = static_cast<uint32_t>(n);
  }
  void resize(size_t n, const T& v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = v;
    size_ = static_cast<uint32_t>(n);
  }
  void push_back(const T& v) {
    if (size_ == cap_) {
      T copy = v;  // v may live in this vector
      reserve(size_t{cap_} * 2);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  T* insert(T* pos, const T& v) {
    size_t i = static_cast<size_t>(pos - begin());
    push_back(v);
    std::rotate(begin() + i, end() - 1, end());
    return begin() + i;
  }
  template <class It>
  T* insert(T* pos, It first, It last) {
    size_t i = static_cast<size_t>(pos - begin());
    size_t n = static_cast<size_t>(std::distance(first, last));
    reserve(size_ + n);
    T* p = data() + i;
    std::memmove(static_cast<void*>(p + n), p, (size_ - i) * sizeof(T));
    std::copy(first, last, p);
    size_ += static_cast<uint32_t>(n);
    return p;
  }
  T* erase(T* pos) {
    std::copy(pos + 1, end(), pos);
    --size_;
    return pos;
  }

  T* data() { return heap_ ? heap_ : reinterpret_cast<T*>(inline_); }
  const T* data() const { return heap_ ? heap_ : reinterpret_cast<const T*>(inline_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    if (a.size_ != b.size_) return false;
    // A plain loop: these are short, and std::equal would call memcmp.
    for (size_t i = 0; i < a.size_; ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

 private:
  // Copies a vector of at most N elements into the inline buffer. The whole buffer is copied:
  // a fixed-size copy compiles to a few moves instead of a call (shapes are copied often).
  void copy_inline(const SmallVec& o) {  // o keeps its elements inline
    std::memcpy(static_cast<void*>(inline_), o.inline_, sizeof(inline_));
    size_ = o.size_;
  }
  void release() {
    if (heap_) std::free(heap_);
    heap_ = nullptr;
    cap_ = N;
    size_ = 0;
  }
  void take(SmallVec& o) {
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.heap_ = nullptr;
      o.cap_ = N;
      o.size_ = 0;
    } else {
      heap_ = nullptr;
      cap_ = N;
      size_ = o.size_;
      std::memcpy(static_cast<void*>(inline_), o.inline_, sizeof(inline_));
      o.size_ = 0;
    }
  }

  T* heap_ = nullptr;
  uint32_t size_ = 0;  // 32-bit counts: shapes and attribute lists are copied by the million
  uint32_t cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)] = {};  // zeroed: copy_inline reads all of it
};

}  // namespace lazax
