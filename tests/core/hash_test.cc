// hash_words (core/hash.h), which keys lazy graph nodes: a short sequence is mixed as
// Hasher::add on each word; every word, its position and the length change the hash, for long
// sequences (hashed as bytes) as for short ones.
#include "lazax/core/hash.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace lazax;

namespace {
uint64_t hw(const std::vector<uint64_t>& w) { return hash_words(w.data(), w.size(), 7); }
}  // namespace

TEST(HashWords, AShortSequenceHashesAsHasher) {
  std::vector<uint64_t> w = {1, 2, 3, 40, 500};
  uint64_t h = 7;
  for (uint64_t v : w) h = mix_word(h, v);
  EXPECT_EQ(hw(w), mix_word(h, w.size()));
}

TEST(HashWords, EveryWordPositionAndLengthCounts) {
  for (size_t n : {3u, 8u, 9u, 12u, 57u}) {
    std::vector<uint64_t> w(n);
    for (size_t i = 0; i < n; ++i) w[i] = 1000 + i;
    std::set<uint64_t> seen = {hw(w)};
    for (size_t i = 0; i < n; ++i) {  // changing any one word
      std::vector<uint64_t> v = w;
      v[i] ^= 1;
      EXPECT_TRUE(seen.insert(hw(v)).second) << "n " << n << ", word " << i;
    }
    for (size_t i = 0; i + 1 < n; ++i) {  // swapping neighbours (other lanes, for long ones)
      std::vector<uint64_t> v = w;
      std::swap(v[i], v[i + 1]);
      EXPECT_TRUE(seen.insert(hw(v)).second) << "n " << n << ", swap " << i;
    }
    if (n >= 5) {  // swapping words four apart
      std::vector<uint64_t> v = w;
      std::swap(v[0], v[4]);
      EXPECT_TRUE(seen.insert(hw(v)).second) << "n " << n << ", swap 0 and 4";
    }
    std::vector<uint64_t> longer = w;
    longer.push_back(0);
    EXPECT_TRUE(seen.insert(hw(longer)).second) << "n " << n << ", one more zero";
  }
}
