// Structural hashing. Byte strings go through xxHash3 (Debian's libxxhash); single words, the
// bulk of what structural hashes mix (op codes, dims, operand hashes), through an inline
// multiply-xorshift step, since a library call per word cost more than the rest of recording an
// op. Values are mixed in order; the result is stable across runs and processes for the same
// sequence of inputs. Not meant to resist chosen inputs: it keys caches of programs.
#pragma once
#include <cstdint>
#include <string_view>

namespace lazax {

uint64_t hash_bytes(const void* data, size_t n, uint64_t seed = 0);

// Mixes the word `v` into the running hash `h` (a bijection of h for each v, and of v for each h,
// followed by the murmur3/splitmix finalizer, so that each input bit reaches every output bit).
inline uint64_t mix_word(uint64_t h, uint64_t v) {
  uint64_t x = (h ^ (v * 0x9e3779b97f4a7c15ull)) + 0x632be59bd9b4e019ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// The hash of a sequence of words. A short one is mixed in one chain (as Hasher::add on each,
// from `seed`); a long one (a call's many operands) is hashed as bytes by XXH3 (hash_bytes),
// whose wide lanes cost a fraction of a full mix per word.
inline uint64_t hash_words(const uint64_t* w, size_t n, uint64_t seed) {
  if (n > 8) return mix_word(hash_bytes(w, n * sizeof(uint64_t), seed), n);
  uint64_t h = seed;
  for (size_t i = 0; i < n; ++i) h = mix_word(h, w[i]);
  return mix_word(h, n);
}

class Hasher {
 public:
  explicit Hasher(uint64_t seed = 0x9e3779b97f4a7c15ull) : h_(seed) {}
  Hasher& add(uint64_t v) {
    h_ = mix_word(h_, v);
    return *this;
  }
  Hasher& add_signed(int64_t v) { return add(static_cast<uint64_t>(v)); }
  Hasher& add(std::string_view s) {
    add(static_cast<uint64_t>(s.size()));
    h_ = hash_bytes(s.data(), s.size(), h_);
    return *this;
  }
  // A short list of integers (dims, axes): word by word, inline.
  Hasher& add_words(const int64_t* p, size_t n) {
    add(static_cast<uint64_t>(n));
    for (size_t i = 0; i < n; ++i) add(static_cast<uint64_t>(p[i]));
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
