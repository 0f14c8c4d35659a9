// Reference kernels of the reductions, argmax/argmin, the cumulative ops, rev and sort. Floating
// sums and products accumulate in double and round once on store (the oracle should be the most
// accurate of the backends); integer sums and products wrap; max/min propagate NaN. Semantics
// follow jax.lax.
#include <algorithm>
#include <cmath>
#include <utility>

#include "common.h"
#include "kernels.h"

namespace lazax::interp {
namespace {

size_t u(int64_t i) { return static_cast<size_t>(i); }

enum class ReduceKind { sum, max, min, prod };

// The accumulator type: double for floating types, compute_t otherwise.
template <class T>
using acc_t = std::conditional_t<kIsFloat<T>, double, compute_t<T>>;

template <class T>
acc_t<T> reduce_init(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum:
      return acc_t<T>{0};
    case ReduceKind::prod:
      return acc_t<T>{1};
    case ReduceKind::max:
      return static_cast<acc_t<T>>(lowest_value<T>());
    case ReduceKind::min:
      break;
  }
  return static_cast<acc_t<T>>(highest_value<T>());
}

template <class T>
acc_t<T> reduce_step(ReduceKind k, acc_t<T> acc, acc_t<T> x) {
  switch (k) {
    case ReduceKind::sum:
      return wrap_add(acc, x);
    case ReduceKind::prod:
      return wrap_mul(acc, x);
    case ReduceKind::max:
      if constexpr (kIsFloat<T>)
        if (std::isnan(acc) || std::isnan(x)) return std::isnan(acc) ? acc : x;
      return x > acc ? x : acc;
    case ReduceKind::min:
      break;
  }
  if constexpr (kIsFloat<T>)
    if (std::isnan(acc) || std::isnan(x)) return std::isnan(acc) ? acc : x;
  return x < acc ? x : acc;
}

template <class T>
T store_acc(acc_t<T> a) {
  if constexpr (kIsFloat<T>)
    return from_double<T>(a);
  else
    return store<T>(a);
}

// Which operand dims a reduction over `axes` removes (axes unique and in range).
std::vector<bool> reduced_mask(const Node& node, const Shape& shape, const IntList& axes) {
  std::vector<bool> mask(shape.rank(), false);
  for (int64_t a : axes) {
    require(a >= 0 && u(a) < shape.rank() && !mask[u(a)], node, "bad reduction axes");
    mask[u(a)] = true;
  }
  return mask;
}

std::vector<Literal> reduce(const Node& node, std::span<const Literal> in, ReduceKind kind) {
  const Literal& x = in[0];
  Literal out = output(node);
  std::vector<bool> mask = reduced_mask(node, x.shape(), node.attr<ReduceAttrs>().axes);
  require(out.dtype() == x.dtype(), node, "result dtype differs from the operand's");
  // Output strides laid out over the operand's dims; reduced dims get stride 0.
  Dims ostrides = out.shape().strides();
  Dims strides(x.shape().rank(), 0);
  size_t k = 0;
  for (size_t d = 0; d < mask.size(); ++d) {
    if (mask[d]) continue;
    require(k < out.shape().rank() && out.shape()[k] == x.shape()[d], node,
            "result shape does not match the reduction");
    strides[d] = ostrides[k++];
  }
  require(k == out.shape().rank(), node, "result shape does not match the reduction");
  dispatch_dtype(x.dtype(), [&]<class T>() {
    std::vector<acc_t<T>> acc(u(out.numel()), reduce_init<T>(kind));
    const T* xs = x.data<T>();
    for_each_index(x.shape(), [&](const Dims& idx, int64_t i) {
      auto& a = acc[u(linear_offset(idx, strides))];
      a = reduce_step<T>(kind, a, static_cast<acc_t<T>>(load(xs[i])));
    });
    T* y = out.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) y[i] = store_acc<T>(acc[i]);
  });
  return {out};
}

// Splits `shape` around `axis` into (outer, n, inner) so element (o, j, i) is at
// (o * n + j) * inner + i.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit split_at(const Node& node, const Shape& shape, int64_t axis) {
  require(axis >= 0 && u(axis) < shape.rank(), node, "axis out of range");
  AxisSplit s;
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (d < u(axis))
      s.outer *= shape[d];
    else if (d > u(axis))
      s.inner *= shape[d];
  }
  s.n = shape[u(axis)];
  return s;
}

}  // namespace

std::vector<Literal> kernel_reduce_sum(const Node& node, std::span<const Literal> in) {
  return reduce(node, in, ReduceKind::sum);
}
std::vector<Literal> kernel_reduce_max(const Node& node, std::span<const Literal> in) {
  return reduce(node, in, ReduceKind::max);
}
std::vector<Literal> kernel_reduce_min(const Node& node, std::span<const Literal> in) {
  return reduce(node, in, ReduceKind::min);
}
std::vector<Literal> kernel_reduce_prod(const Node& node, std::span<const Literal> in) {
  return reduce(node, in, ReduceKind::prod);
}

namespace {

// Index of the first maximum (minimum with `min`) along `axis` (the axis is removed). NaN counts
// as beyond everything, so the first NaN wins (as jnp.argmax/argmin and torch).
std::vector<Literal> arg_extreme(const Node& node, std::span<const Literal> in, bool min) {
  const auto& a = node.attr<ArgmaxAttrs>();
  const Literal& x = in[0];
  Literal out = output(node);
  AxisSplit s = split_at(node, x.shape(), a.axis);
  require(out.numel() == s.outer * s.inner && out.dtype() == a.index_dtype, node,
          "result type does not match the reduction");
  dispatch_dtype(x.dtype(), [&]<class T>() {
    const T* xs = x.data<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t best = 0;
        for (int64_t j = 1; j < s.n; ++j) {
          auto cur = load(xs[(o * s.n + best) * s.inner + i]);
          auto v = load(xs[(o * s.n + j) * s.inner + i]);
          bool better;
          if constexpr (kIsFloat<T>)
            better = !std::isnan(cur) && (std::isnan(v) || (min ? v < cur : v > cur));
          else
            better = min ? v < cur : v > cur;
          if (better) best = j;
        }
        dispatch_dtype(out.dtype(),
                       [&]<class I>() { out.data<I>()[o * s.inner + i] = convert_value<I>(best); });
      }
    }
  });
  return {out};
}

// Inclusive prefix sums (products with `prod`) along `axis`, from the end when `reverse`.
// Floats accumulate in double and round each result once; integers wrap.
std::vector<Literal> scan_along(const Node& node, std::span<const Literal> in, bool prod) {
  const auto& a = node.attr<CumsumAttrs>();
  const Literal& x = in[0];
  Literal out = output(node);
  require(out.type == x.type, node, "result type differs from the operand's");
  AxisSplit s = split_at(node, x.shape(), a.axis);
  dispatch_dtype(x.dtype(), [&]<class T>() {
    const T* xs = x.data<T>();
    T* y = out.data<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        acc_t<T> acc = prod ? acc_t<T>{1} : acc_t<T>{0};
        for (int64_t step = 0; step < s.n; ++step) {
          int64_t j = a.reverse ? s.n - 1 - step : step;
          int64_t at = (o * s.n + j) * s.inner + i;
          auto v = static_cast<acc_t<T>>(load(xs[at]));
          acc = prod ? wrap_mul(acc, v) : wrap_add(acc, v);
          y[at] = store_acc<T>(acc);
        }
      }
    }
  });
  return {out};
}

// The (values, i64 indices) results of a node over x (cummax/cummin, sort), checked against it.
std::pair<Literal, Literal> values_and_indices(const Node& node, const Literal& x) {
  Literal values = output(node, 0), indices = output(node, 1);
  require(values.type == x.type && indices.dtype() == DType::i64, node,
          "result types do not match the operand");
  return {std::move(values), std::move(indices)};
}

// The running maximum (minimum with `min`) along `axis` and the index where it was reached, as
// torch.cummax: a later equal element takes over the index, and a NaN sticks (each later NaN
// takes over the index).
std::vector<Literal> running_extreme(const Node& node, std::span<const Literal> in, bool min) {
  const auto& a = node.attr<CumsumAttrs>();
  const Literal& x = in[0];
  // (Named references, not a structured binding: clang before 16 cannot capture those.)
  std::pair<Literal, Literal> out = values_and_indices(node, x);
  Literal& values = out.first;
  Literal& indices = out.second;
  AxisSplit s = split_at(node, x.shape(), a.axis);
  int64_t* idx = indices.data<int64_t>();
  dispatch_dtype(x.dtype(), [&]<class T>() {
    const T* xs = x.data<T>();
    T* y = values.data<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t best = 0;
        for (int64_t step = 0; step < s.n; ++step) {
          int64_t j = a.reverse ? s.n - 1 - step : step;
          int64_t at = (o * s.n + j) * s.inner + i;
          auto v = load(xs[at]);
          auto cur = load(xs[(o * s.n + best) * s.inner + i]);
          bool take = step == 0;
          if constexpr (kIsFloat<T>)
            take = take || std::isnan(v) || (!std::isnan(cur) && (min ? v <= cur : v >= cur));
          else
            take = take || (min ? v <= cur : v >= cur);
          if (take) best = j;
          y[at] = xs[(o * s.n + best) * s.inner + i];
          idx[at] = best;
        }
      }
    }
  });
  return {std::move(values), std::move(indices)};
}

}  // namespace

std::vector<Literal> kernel_argmax(const Node& node, std::span<const Literal> in) {
  return arg_extreme(node, in, false);
}
std::vector<Literal> kernel_argmin(const Node& node, std::span<const Literal> in) {
  return arg_extreme(node, in, true);
}
std::vector<Literal> kernel_cumsum(const Node& node, std::span<const Literal> in) {
  return scan_along(node, in, false);
}
std::vector<Literal> kernel_cumprod(const Node& node, std::span<const Literal> in) {
  return scan_along(node, in, true);
}
std::vector<Literal> kernel_cummax(const Node& node, std::span<const Literal> in) {
  return running_extreme(node, in, false);
}
std::vector<Literal> kernel_cummin(const Node& node, std::span<const Literal> in) {
  return running_extreme(node, in, true);
}

// Bool operands only (the shape rule): and is the minimum, or the maximum.
std::vector<Literal> kernel_reduce_and(const Node& node, std::span<const Literal> in) {
  return reduce(node, in, ReduceKind::min);
}
std::vector<Literal> kernel_reduce_or(const Node& node, std::span<const Literal> in) {
  return reduce(node, in, ReduceKind::max);
}

// x reversed along each of the dimensions.
std::vector<Literal> kernel_rev(const Node& node, std::span<const Literal> in) {
  const Literal& x = in[0];
  Literal out = output(node);
  require(out.type == x.type, node, "result type differs from the operand's");
  std::vector<bool> flip(x.shape().rank(), false);
  for (int64_t d : node.attr<RevAttrs>().dimensions) {
    require(d >= 0 && u(d) < flip.size(), node, "dimension out of range");
    flip[u(d)] = true;
  }
  Dims strides = x.shape().strides();
  for_each_index(x.shape(), [&](const Dims& idx, int64_t i) {
    int64_t from = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      from += (flip[d] ? x.shape()[d] - 1 - idx[d] : idx[d]) * strides[d];
    copy_element(out, i, x, from);
  });
  return {out};
}

// A stable sort along `axis`, with the original indices. NaN is above +inf (torch.sort): last
// ascending, first descending; equal elements (-0 and +0 included) keep their order.
std::vector<Literal> kernel_sort(const Node& node, std::span<const Literal> in) {
  const auto& a = node.attr<SortAttrs>();
  const Literal& x = in[0];
  // (Named references, not a structured binding: clang before 16 cannot capture those.)
  std::pair<Literal, Literal> out = values_and_indices(node, x);
  Literal& values = out.first;
  Literal& indices = out.second;
  AxisSplit s = split_at(node, x.shape(), a.axis);
  int64_t* idx = indices.data<int64_t>();
  dispatch_dtype(x.dtype(), [&]<class T>() {
    const T* xs = x.data<T>();
    T* y = values.data<T>();
    using C = compute_t<T>;
    auto less = [](C p, C q) {
      if constexpr (kIsFloat<T>)
        return !std::isnan(p) && (std::isnan(q) || p < q);
      else
        return p < q;
    };
    std::vector<int64_t> order(u(s.n));
    std::vector<C> line(u(s.n));
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          order[u(j)] = j;
          line[u(j)] = load(xs[(o * s.n + j) * s.inner + i]);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
          return a.descending ? less(line[u(q)], line[u(p)]) : less(line[u(p)], line[u(q)]);
        });
        for (int64_t j = 0; j < s.n; ++j) {
          int64_t at = (o * s.n + j) * s.inner + i;
          y[at] = xs[(o * s.n + order[u(j)]) * s.inner + i];
          idx[at] = order[u(j)];
        }
      }
    }
  });
  return {std::move(values), std::move(indices)};
}

}  // namespace lazax::interp
