// Interpreter kernels for gather and scatter_add (lax.gather / lax.scatter_add with the index
// vector in the last dimension of the indices). Out-of-bounds behavior follows JAX's modes:
//   fill: a window that does not fit entirely (any start index < 0 or > dim - window size) is
//         filled with the fill value (gather: NaN for floats, the lowest value for signed
//         integers, the highest for u8 and u32, true for bool) or dropped whole (scatter_add);
//   clip: every start index is clamped so that the window fits.
// Negative indices are out of bounds here: wrapping them NumPy-style is the caller's job.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common.h"
#include "kernels.h"
#include "lazax/core/error.h"

namespace lazax::interp {
namespace {

[[noreturn]] void bad(const char* op, const std::string& why) {
  throw ShapeError(std::string("[") + op + "] " + why);
}

// Marks `dims` (each in [0, rank), none repeated) in `used`.
void mark_dims(const char* op, const IntList& dims, size_t rank, std::vector<bool>& used,
               const char* what) {
  for (int64_t d : dims) {
    if (d < 0 || static_cast<size_t>(d) >= rank || used[static_cast<size_t>(d)])
      bad(op, std::string(what) + " has an out-of-range or repeated dimension " + vec_str(dims));
    used[static_cast<size_t>(d)] = true;
  }
}

bool sorted_unique(const IntList& v) {
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] <= v[i - 1]) return false;
  return true;
}

// The indices operand as int64 values; its last dimension must be `k` long.
std::vector<int64_t> load_indices(const char* op, const Literal& idx, size_t k) {
  if (!is_integer(idx.dtype()) || idx.shape().rank() == 0 ||
      idx.shape()[idx.shape().rank() - 1] != static_cast<int64_t>(k)) {
    bad(op, "indices " + idx.type.str() + " must be integers whose last dimension is the " +
                std::to_string(k) + "-long index vector");
  }
  std::vector<int64_t> v(static_cast<size_t>(idx.numel()));
  dispatch_dtype(idx.dtype(), [&]<class T>() {
    if constexpr (std::is_integral_v<T>) {
      // (i8 indices are signed by design: -1 stays -1)
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<int64_t>(idx.data<T>()[i]);  // NOLINT(bugprone-signed-char-misuse)
    }
  });
  return v;
}

// Resolves window start `s` in a dim of size `dim` for a window of size `w`:
// false if the window must be filled/dropped.
bool resolve_start(int64_t& s, int64_t dim, int64_t w, GatherMode mode) {
  if (w > dim) return false;  // fits nowhere (only possible for empty dims)
  if (mode == GatherMode::clip) {
    s = std::clamp<int64_t>(s, 0, dim - w);
    return true;
  }
  return s >= 0 && s <= dim - w;
}

template <class T>
T fill_value() {
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else if constexpr (kIsHalf<T>) {
    return T(std::numeric_limits<float>::quiet_NaN());
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else if constexpr (std::is_signed_v<T>) {
    return std::numeric_limits<T>::lowest();
  } else {
    return std::numeric_limits<T>::max();
  }
}

}  // namespace

std::vector<Literal> kernel_gather(const Node& node, std::span<const Literal> in) {
  const char* op = "gather";
  const auto* a = std::get_if<GatherAttrs>(&node.attrs);
  if (!a) throw VerifyError("[gather] node carries the wrong attribute struct");
  if (in.size() != 2 || node.outputs.size() != 1)
    throw VerifyError("[gather] takes operand and indices and has one result");
  const Literal &x = in[0], &idx = in[1];
  const Shape& xs = x.shape();
  const size_t r = xs.rank();
  const size_t k = a->start_index_map.size();
  auto iv = load_indices(op, idx, k);
  if (a->slice_sizes.size() != r)
    bad(op, "slice_sizes " + vec_str(a->slice_sizes) + " needs one entry per dimension of " +
                x.type.str());
  for (size_t d = 0; d < r; ++d)
    if (a->slice_sizes[d] < 0 || a->slice_sizes[d] > xs[d])
      bad(op, "slice_sizes " + vec_str(a->slice_sizes) + " do not fit in " + x.type.str());
  std::vector<bool> mapped(r), collapsed(r);
  mark_dims(op, a->start_index_map, r, mapped, "start_index_map");
  mark_dims(op, a->collapsed_slice_dims, r, collapsed, "collapsed_slice_dims");
  for (int64_t d : a->collapsed_slice_dims)
    if (a->slice_sizes[static_cast<size_t>(d)] != 1)
      bad(op, "collapsed dimension " + std::to_string(d) + " needs slice size 1");
  std::vector<size_t> window_dims;  // operand dims that appear in the output, in order
  for (size_t d = 0; d < r; ++d)
    if (!collapsed[d]) window_dims.push_back(d);
  const size_t batch_rank = idx.shape().rank() - 1;
  const size_t out_rank = batch_rank + window_dims.size();
  std::vector<bool> is_offset(out_rank);
  if (a->offset_dims.size() != window_dims.size() || !sorted_unique(a->offset_dims))
    bad(op, "offset_dims " + vec_str(a->offset_dims) + " must be sorted and name " +
                std::to_string(window_dims.size()) + " output dimensions");
  mark_dims(op, a->offset_dims, out_rank, is_offset, "offset_dims");

  Dims out_dims;
  for (size_t o = 0, b = 0, w = 0; o < out_rank; ++o)
    out_dims.push_back(is_offset[o] ? a->slice_sizes[window_dims[w++]] : idx.shape()[b++]);
  const Shape out_shape(out_dims);
  if (node.outputs[0] != TensorType{x.dtype(), out_shape})
    throw VerifyError("[gather] declared result " + node.outputs[0].str() + " should be " +
                      TensorType{x.dtype(), out_shape}.str());

  Literal out = Literal::zeros(node.outputs[0]);
  if (out.numel() == 0) return {std::move(out)};
  const Dims xst = xs.strides();
  const size_t esize = dtype_size(x.dtype());
  const auto* src = static_cast<const char*>(x.buffer.data());
  auto* dst = static_cast<char*>(out.buffer.data());
  std::vector<char> fill(esize);
  dispatch_dtype(x.dtype(), [&]<class T>() {
    T v = fill_value<T>();
    std::memcpy(fill.data(), &v, esize);
  });

  std::vector<int64_t> start(r);
  for_each_index(out_shape, [&](const Dims& oi, int64_t linear) {
    // The batch position picks the index vector; the offset position indexes the window.
    int64_t batch = 0;
    for (size_t o = 0, b = 0; o < out_rank; ++o)
      if (!is_offset[o]) batch = batch * idx.shape()[b++] + oi[o];
    std::fill(start.begin(), start.end(), 0);
    for (size_t j = 0; j < k; ++j)
      start[static_cast<size_t>(a->start_index_map[j])] = iv[static_cast<size_t>(batch) * k + j];
    bool fits = true;
    for (size_t d = 0; d < r && fits; ++d)
      fits = resolve_start(start[d], xs[d], a->slice_sizes[d], a->mode);
    char* to = dst + static_cast<size_t>(linear) * esize;
    if (!fits) {
      std::memcpy(to, fill.data(), esize);
      return;
    }
    int64_t off = 0;
    for (size_t d = 0; d < r; ++d) off += start[d] * xst[d];
    for (size_t o = 0, w = 0; o < out_rank; ++o)
      if (is_offset[o]) off += oi[o] * xst[window_dims[w++]];
    std::memcpy(to, src + static_cast<size_t>(off) * esize, esize);
  });
  return {std::move(out)};
}

std::vector<Literal> kernel_scatter_add(const Node& node, std::span<const Literal> in) {
  const char* op = "scatter_add";
  const auto* a = std::get_if<ScatterAttrs>(&node.attrs);
  if (!a) throw VerifyError("[scatter_add] node carries the wrong attribute struct");
  if (in.size() != 3 || node.outputs.size() != 1)
    throw VerifyError("[scatter_add] takes operand, indices and updates and has one result");
  const Literal &x = in[0], &idx = in[1], &upd = in[2];
  const Shape& xs = x.shape();
  const Shape& us = upd.shape();
  const size_t r = xs.rank();
  const size_t k = a->scatter_dims_to_operand_dims.size();
  auto iv = load_indices(op, idx, k);
  if (upd.dtype() != x.dtype() || node.outputs[0] != x.type)
    throw DTypeError("[scatter_add] operand " + x.type.str() + ", updates " + upd.type.str() +
                     " and result " + node.outputs[0].str() + " need one dtype and shape");
  std::vector<bool> mapped(r), inserted(r);
  mark_dims(op, a->scatter_dims_to_operand_dims, r, mapped, "scatter_dims_to_operand_dims");
  mark_dims(op, a->inserted_window_dims, r, inserted, "inserted_window_dims");
  std::vector<size_t> window_dims;  // operand dims covered by update window dims, in order
  for (size_t d = 0; d < r; ++d)
    if (!inserted[d]) window_dims.push_back(d);
  const size_t batch_rank = idx.shape().rank() - 1;
  std::vector<bool> is_window(us.rank());
  if (us.rank() != batch_rank + window_dims.size() ||
      a->update_window_dims.size() != window_dims.size() || !sorted_unique(a->update_window_dims)) {
    bad(op, "updates " + upd.type.str() + " do not fit indices " + idx.type.str() + ", operand " +
                x.type.str() + " and update_window_dims " + vec_str(a->update_window_dims));
  }
  mark_dims(op, a->update_window_dims, us.rank(), is_window, "update_window_dims");
  std::vector<int64_t> wsize(r, 1);  // window size per operand dim (1 for inserted dims)
  for (size_t u = 0, b = 0, w = 0; u < us.rank(); ++u) {
    if (is_window[u]) {
      wsize[window_dims[w]] = us[u];
      if (us[u] > xs[window_dims[w]])
        bad(op, "update window " + upd.type.str() + " is larger than operand " + x.type.str());
      ++w;
    } else if (us[u] != idx.shape()[b++]) {
      bad(op, "updates " + upd.type.str() + " and indices " + idx.type.str() +
                  " disagree on the scatter dimensions");
    }
  }

  Literal out = x.clone();  // never write into the operand's (shared) buffer
  if (upd.numel() == 0) return {std::move(out)};
  const Dims xst = xs.strides();
  std::vector<int64_t> start(r);
  dispatch_dtype(x.dtype(), [&]<class T>() {
    T* dst = out.data<T>();
    const T* src = upd.data<T>();
    for_each_index(us, [&](const Dims& ui, int64_t linear) {
      int64_t batch = 0;
      for (size_t u = 0, b = 0; u < us.rank(); ++u)
        if (!is_window[u]) batch = batch * idx.shape()[b++] + ui[u];
      std::fill(start.begin(), start.end(), 0);
      for (size_t j = 0; j < k; ++j) {
        start[static_cast<size_t>(a->scatter_dims_to_operand_dims[j])] =
            iv[static_cast<size_t>(batch) * k + j];
      }
      for (size_t d = 0; d < r; ++d)
        if (!resolve_start(start[d], xs[d], wsize[d], a->mode)) return;  // dropped
      int64_t off = 0;
      for (size_t d = 0; d < r; ++d) off += start[d] * xst[d];
      for (size_t u = 0, w = 0; u < us.rank(); ++u)
        if (is_window[u]) off += ui[u] * xst[window_dims[w++]];
      dst[off] = store<T>(wrap_add(load(dst[off]), load(src[linear])));
    });
  });
  return {std::move(out)};
}

}  // namespace lazax::interp
