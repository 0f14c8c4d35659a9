#include "lazax/core/hash.h"

#include <xxhash.h>

namespace lazax {

uint64_t hash_bytes(const void* data, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(data, n, seed);
}

}  // namespace lazax
