#include "batches.h"

#include <algorithm>

#include "lazax/core/error.h"
#include "lazax/io/npy.h"

namespace lazax::train {

uint64_t HostRng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t HostRng::below(uint64_t n) { return next() % n; }

double HostRng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

CorpusSampler::CorpusSampler(const std::string& text, int64_t batch, int64_t seq, uint64_t seed)
    : text_(&text), batch_(batch), seq_(seq), rng_(seed) {
  if (static_cast<int64_t>(text.size()) < seq + 1) {
    throw ValueError("[train] the text (" + std::to_string(text.size()) +
                     " bytes) is shorter than one sequence of " + std::to_string(seq + 1));
  }
}

Batch CorpusSampler::next() {
  Batch b;
  b.reserve(static_cast<size_t>(batch_ * (seq_ + 1)));
  const auto starts = static_cast<uint64_t>(static_cast<int64_t>(text_->size()) - seq_);
  for (int64_t r = 0; r < batch_; ++r) {
    const uint64_t at = rng_.below(starts);
    for (int64_t t = 0; t <= seq_; ++t)
      b.push_back(static_cast<unsigned char>((*text_)[at + static_cast<uint64_t>(t)]));
  }
  return b;
}

std::vector<Batch> fixed_windows(const std::string& text, int64_t batch, int64_t seq,
                                 int64_t max_batches) {
  const int64_t window = seq + 1;
  const int64_t fit = static_cast<int64_t>(text.size()) / window;
  const int64_t nb = std::min(max_batches, fit / batch);
  std::vector<Batch> out;
  if (nb == 0) return out;
  const int64_t stride = static_cast<int64_t>(text.size()) / (nb * batch);
  for (int64_t i = 0; i < nb; ++i) {
    Batch b;
    for (int64_t r = 0; r < batch; ++r) {
      const int64_t at = (i * batch + r) * stride;
      for (int64_t t = 0; t < window; ++t)
        b.push_back(static_cast<unsigned char>(text[static_cast<size_t>(at + t)]));
    }
    out.push_back(std::move(b));
  }
  return out;
}

Batch BatchFile::at(int64_t step) const {
  const int64_t n = batch * (seq + 1);
  auto first = ids.begin() + step * n;
  return {first, first + n};
}

BatchFile read_batch_file(const std::string& path) {
  const Literal a = read_npy(path);
  const std::string where = "[train] --batches " + path + ": ";
  if (a.dtype() != DType::i32 && a.dtype() != DType::i64)
    throw DTypeError(where + "the ids must be int32 or int64, got " + a.type.str());
  if (a.shape().rank() != 3)
    throw ShapeError(where + "want an array [steps, batch, seq+1], got " + a.type.str());
  BatchFile f;
  f.steps = a.shape()[0];
  f.batch = a.shape()[1];
  f.seq = a.shape()[2] - 1;
  if (f.steps < 1 || f.batch < 1 || f.seq < 1) {
    throw ShapeError(where + "want at least one step, one row and two tokens per row, got " +
                     a.type.str());
  }
  f.ids.reserve(static_cast<size_t>(a.numel()));
  for (int64_t i = 0; i < a.numel(); ++i) {
    const int64_t v = a.dtype() == DType::i32 ? a.data<int32_t>()[i] : a.data<int64_t>()[i];
    if (v < 0 || v > 255) {
      const int64_t row = a.shape()[1] * a.shape()[2];
      throw ValueError(where + "id " + std::to_string(v) + " at [" + std::to_string(i / row) +
                       ", " + std::to_string(i % row / a.shape()[2]) + ", " +
                       std::to_string(i % a.shape()[2]) +
                       "] is outside the byte vocabulary 0..255");
    }
    f.ids.push_back(static_cast<int32_t>(v));
  }
  return f;
}

}  // namespace lazax::train
