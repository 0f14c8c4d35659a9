// Structural hashing with xxHash3 (Debian's libxxhash). Values are mixed in order; the result is
// stable across runs and processes for the same sequence of inputs.
#pragma once
#include <cstdint>
#include <string_view>

namespace lazax {

uint64_t hash_bytes(const void* data, size_t n, uint64_t seed = 0);

class Hasher {
 public:
  explicit Hasher(uint64_t seed = 0x9e3779b97f4a7c15ull) : h_(seed) {}
  Hasher& add(uint64_t v) {
    h_ = hash_bytes(&v, sizeof v, h_);
    return *this;
  }
  Hasher& add_signed(int64_t v) { return add(static_cast<uint64_t>(v)); }
  Hasher& add(std::string_view s) {
    add(static_cast<uint64_t>(s.size()));
    h_ = hash_bytes(s.data(), s.size(), h_);
    return *this;
  }
  Hasher& add_bytes(const void* p, size_t n) {
    add(static_cast<uint64_t>(n));
    h_ = hash_bytes(p, n, h_);
    return *this;
  }
  uint64_t digest() const { return h_; }

 private:
  uint64_t h_;
};

}  // namespace lazax
