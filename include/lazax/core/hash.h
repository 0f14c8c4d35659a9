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
// from `seed`); a long one (a call's many operands) in four independent chains combined at the
// end, so that the multiplies of one word do not wait for those of the word before.
inline uint64_t hash_words(const uint64_t* w, size_t n, uint64_t seed) {
  uint64_t h = seed;
  size_t i = 0;
  if (n > 8) {
    uint64_t b = seed ^ 0x2545f4914f6cdd1dull, c = seed ^ 0x9e6c63d0676a9a99ull,
             d = seed ^ 0xd1b54a32d192ed03ull;
    for (; i + 4 <= n; i += 4) {
      h = mix_word(h, w[i]);
      b = mix_word(b, w[i + 1]);
      c = mix_word(c, w[i + 2]);
      d = mix_word(d, w[i + 3]);
    }
    h = mix_word(mix_word(mix_word(h, b), c), d);
  }
  for (; i < n; ++i) h = mix_word(h, w[i]);
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
