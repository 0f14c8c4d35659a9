// Random numbers from a counter-based generator (the `random_bits` primitive, Philox).
//
// A Generator holds its state as a key tensor i64[2] = (seed, counter). The key is ordinary
// data: every random op records random_bits(key) -> (bits, next_key) and rebinds the key to the
// pending next_key. So random numbers are lazy like everything else, two calls give different
// numbers, the same seed gives the same numbers, and a training loop that draws random numbers
// does not recompile (the key is a data leaf, hashed by its type only).
#pragma once
#include <cstdint>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax {

class Generator {
 public:
  // PyTorch's default seed, so that a fresh process draws the same numbers every run.
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;

  explicit Generator(uint64_t seed = kDefaultSeed);

  // Resets the state: the numbers drawn next are those of a fresh Generator(seed).
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  // The current key (pending after a draw until the next sync).
  const Tensor& key() const { return key_; }
  // The state as an i64[2] literal (seed, counter), for checkpoints: reading it syncs a pending
  // key (a graph break). set_state(get_state()) later makes the generator draw the same numbers
  // again; set_state refuses anything but an i64[2] (ValueError).
  Literal get_state() const;
  void set_state(const Literal& state);

  // Raw bits: integer elements (i8, i32, i64, u8, u32), each bit uniformly random.
  Tensor bits(const std::vector<int64_t>& shape, DType dtype = DType::i32);
  // Uniform in [0, 1) (floating dtypes only).
  Tensor uniform(const std::vector<int64_t>& shape, DType dtype = DType::f32);
  // Standard normal (Box-Muller; floating dtypes only).
  Tensor normal(const std::vector<int64_t>& shape, DType dtype = DType::f32);
  // Integers uniform in [low, high), as i64.
  Tensor randint(int64_t low, int64_t high, const std::vector<int64_t>& shape);

 private:
  uint64_t seed_ = kDefaultSeed;
  Tensor key_;
};

// The generator behind randn/rand/randint/manual_seed.
Generator& default_generator();

}  // namespace lazax
