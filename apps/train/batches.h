// Where `lazax train`'s token batches come from: random windows of the corpus drawn by a host
// generator whose state a checkpoint saves (so that a resumed run draws the same batches), or the
// rows of a `--batches` .npy file in order. A batch is [batch, seq + 1] byte ids, row-major: the
// model reads the first seq and predicts the last seq of each row.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lazax::train {

// SplitMix64: a tiny generator whose whole state is one integer.
class HostRng {
 public:
  explicit HostRng(uint64_t seed = 0) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, n), n > 0.
  uint64_t below(uint64_t n);
  // Uniform in [0, 1).
  double uniform();
  uint64_t state() const { return state_; }
  void set_state(uint64_t s) { state_ = s; }

 private:
  uint64_t state_;
};

using Batch = std::vector<int32_t>;  // batch * (seq + 1) ids

// Windows of seq + 1 bytes at uniformly random offsets of `text`.
class CorpusSampler {
 public:
  CorpusSampler(const std::string& text, int64_t batch, int64_t seq, uint64_t seed);
  Batch next();
  HostRng& rng() { return rng_; }

 private:
  const std::string* text_;
  int64_t batch_, seq_;
  HostRng rng_;
};

// At most `max_batches` batches of evenly spaced windows of `text` (the validation set: the same
// every evaluation).
std::vector<Batch> fixed_windows(const std::string& text, int64_t batch, int64_t seq,
                                 int64_t max_batches);

// A `--batches` file: an int32 or int64 array [steps, batch, seq + 1] of ids in 0..255.
struct BatchFile {
  int64_t steps = 0, batch = 0, seq = 0;
  std::vector<int32_t> ids;
  Batch at(int64_t step) const;
};

// Reads and checks a --batches file; anything else (rank, dtype, an id out of range, fewer than
// 2 tokens per row) is a ValueError / DTypeError / ShapeError naming the file and the flag.
BatchFile read_batch_file(const std::string& path);

}  // namespace lazax::train
