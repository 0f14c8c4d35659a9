#include "lazax/interp/scan_loop.h"

#include <cstring>

namespace lazax::interp {
namespace {

// Row `i` (along dim 0) of x, as a new literal of shape x.shape[1:].
Literal row_of(const Literal& x, int64_t i, const ScanAllocate& allocate) {
  TensorType t{x.dtype(), Shape(Dims(x.shape().begin() + 1, x.shape().end()))};
  const size_t bytes = t.bytes();
  Literal row(t, allocate(bytes));
  if (bytes) {
    std::memcpy(row.buffer.data(),
                static_cast<const char*>(x.buffer.data()) + static_cast<size_t>(i) * bytes, bytes);
  }
  return row;
}

}  // namespace

std::vector<Literal> run_scan_loop(const ScanAttrs& a, std::span<const Literal> in,
                                   std::span<const TensorType> ys_types, const ScanStep& step,
                                   const ScanAllocate& allocate) {
  const auto nc = static_cast<size_t>(a.num_carry);
  std::vector<Literal> carry(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(nc));
  std::vector<Literal> ys;
  // (Every row is written below: no zero fill, whose first touch of fresh pages was a large
  // part of a scan over layers' stacked gradients.)
  for (const TensorType& t : ys_types) ys.emplace_back(t, allocate(t.bytes()));
  std::vector<Literal> args;
  for (int64_t s = 0; s < a.length; ++s) {
    const int64_t i = a.reverse ? a.length - 1 - s : s;
    args.assign(carry.begin(), carry.end());
    for (size_t k = nc; k < in.size(); ++k) args.push_back(row_of(in[k], i, allocate));
    std::vector<Literal> out = step(std::move(args));
    for (size_t k = 0; k < ys.size(); ++k) {
      const size_t bytes = out[nc + k].type.bytes();
      if (bytes) {
        std::memcpy(static_cast<char*>(ys[k].buffer.data()) + static_cast<size_t>(i) * bytes,
                    out[nc + k].buffer.data(), bytes);
      }
    }
    out.resize(nc);
    carry = std::move(out);
    args.clear();
  }
  for (auto& y : ys) carry.push_back(std::move(y));
  return carry;
}

}  // namespace lazax::interp
