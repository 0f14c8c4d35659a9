// Indexing ops (PyTorch names and semantics) written with the gather and scatter_add primitives:
// index_select, gather, scatter_add, index_put and the TensorIndex forms Tensor::index and
// Tensor::index_put_ (LibTorch's torch::indexing). Gradients come from the primitives' rules.
//
// Index values: a materialized index tensor is checked when the op is recorded (an out-of-range
// value is an IndexError, as PyTorch's). A pending one cannot be read without a graph break, so
// it is not checked: an out-of-range entry then reads the gather fill value (NaN for floats)
// and an out-of-range scatter update is dropped (docs/IR.md, gather and scatter_add).
#include <algorithm>
#include <string>
#include <variant>

#include "lazax/api/tensor_impl.h"

namespace lazax {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// i32 and i64 indices (PyTorch wants i64 for gather and scatter_add; lazax takes i32 too).
void require_index_dtype(const Tensor& index, const char* op, const std::string& ctx) {
  if (index.dtype() != DType::i64 && index.dtype() != DType::i32)
    throw DTypeError(std::string("[") + op + "] index must be an i64 (or i32) tensor, got " + ctx +
                     "; convert it with .to(DType::i64)");
}

// Checks the values of a materialized index against [lo, size) (lo = -size where negative
// indices count from the end). A pending index is not read (see the file comment).
void check_index_values(const Tensor& index, int64_t lo, int64_t size, const char* op,
                        const std::string& what) {
  if (index.is_pending()) return;
  const Literal& v = index.impl()->data();
  for (int64_t i = 0; i < v.numel(); ++i) {
    const auto k = static_cast<int64_t>(v.at(i));
    if (k < lo || k >= size) {
      throw ValueError(std::string("[") + op + "] index " + str(k) + " is out of bounds for " +
                       what + " with size " + str(size) + "; indices must be in [" + str(lo) +
                       ", " + str(size) + ")");
    }
  }
}

Tensor iota(const Shape& s, int64_t d) {
  return record_op(OpCode::iota, {}, IotaAttrs{DType::i64, s, d});
}

// The full coordinates [index.shape..., r] of the elements that gather/scatter_add along `dim`
// address: `index` in dimension dim, the element's own position in the others.
Tensor coordinates(const Tensor& index, int64_t dim) {
  const auto r = static_cast<int64_t>(index.dim());
  std::vector<int64_t> col = index.sizes();
  col.push_back(1);
  std::vector<Tensor> parts;
  for (int64_t d = 0; d < r; ++d) {
    Tensor c = d == dim ? index.to(DType::i64) : iota(index.shape(), d);
    parts.push_back(c.reshape(col));
  }
  return cat(parts, r);
}

IntList all_dims(int64_t r) {
  IntList a;
  for (int64_t i = 0; i < r; ++i) a.push_back(i);
  return a;
}

// gather of single elements at full coordinates `at` [..., r]: result at.shape[:-1].
Tensor gather_points(const Tensor& x, const Tensor& at) {
  GatherAttrs a;
  a.collapsed_slice_dims = all_dims(x.dim());
  a.start_index_map = all_dims(x.dim());
  a.slice_sizes = IntList(static_cast<size_t>(x.dim()), 1);
  a.mode = GatherMode::fill;
  return record_op(OpCode::gather, {&x, &at}, std::move(a));
}

// x with `updates` (shape at.shape[:-1]) added at the full coordinates `at`. Bool adds as OR.
Tensor scatter_points(const Tensor& x, const Tensor& at, const Tensor& updates) {
  if (x.dtype() == DType::boolean) {
    Tensor r = scatter_points(x.to(DType::i32), at, updates.to(DType::i32));
    return ne(r, zeros({}, DType::i32));
  }
  ScatterAttrs a;
  a.inserted_window_dims = all_dims(x.dim());
  a.scatter_dims_to_operand_dims = all_dims(x.dim());
  a.mode = GatherMode::fill;
  return record_op(OpCode::scatter_add, {&x, &at, &updates}, std::move(a));
}

// The shared checks of gather and scatter_add: ranks, sizes outside `dim`, index dtype.
int64_t check_gather_like(const Tensor& x, int64_t dim, const Tensor& index, const char* op,
                          const std::string& ctx) {
  require_index_dtype(index, op, ctx);
  const int64_t d = norm_dim(dim, x.dim(), op);
  if (index.dim() != x.dim() && !(x.dim() <= 1 && index.dim() <= 1))
    throw_shape(op, "index must have as many dimensions as the input, got " + ctx);
  for (int64_t i = 0; i < index.dim(); ++i) {
    if (i != d && index.size(i) > x.size(i))
      throw_shape(op, "index is larger than the input in dimension " + str(i) + " (" +
                          str(index.size(i)) + " vs " + str(x.size(i)) + "), got " + ctx);
  }
  return d;
}

// A 0-d tensor as a 1-element vector (gather and scatter_add treat 0-d operands so).
Tensor as_vector(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  operand(x, "index_select");
  operand(index, "index_select");
  auto ctx = [&] { return "input " + x.type_str() + ", index " + index.type_str(); };
  require_index_dtype(index, "index_select", ctx());
  const int64_t d = norm_dim(dim, x.dim(), "index_select");
  if (index.dim() > 1) throw_shape("index_select", "index must be a vector (or 0-d), got " + ctx());
  if (x.dim() == 0 && index.numel() != 1)
    throw_shape("index_select", "the index of a 0-d input must have one element, got " + ctx());
  const int64_t n = x.dim() == 0 ? 1 : x.size(d);
  check_index_values(index, 0, n, "index_select", "dimension " + str(d) + " of " + x.type_str());
  Tensor xv = as_vector(x);
  const int64_t k = index.numel();
  Tensor at = index.reshape({k, 1});
  GatherAttrs a;
  for (int64_t i = 0; i < xv.dim(); ++i) {
    if (i != d) a.offset_dims.push_back(i);
    a.slice_sizes.push_back(i == d ? 1 : xv.size(i));
  }
  a.collapsed_slice_dims = {d};
  a.start_index_map = {d};
  a.mode = GatherMode::fill;
  Tensor r = record_op(OpCode::gather, {&xv, &at}, std::move(a));
  // As PyTorch: a 0-d input gives a 0-d result.
  return x.dim() == 0 ? r.reshape({}) : r;
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  operand(x, "gather");
  operand(index, "gather");
  const std::string ctx = "input " + x.type_str() + ", index " + index.type_str();
  const int64_t d = check_gather_like(x, dim, index, "gather", ctx);
  const int64_t n = x.dim() == 0 ? 1 : x.size(d);
  check_index_values(index, 0, n, "gather", "dimension " + str(d) + " of " + x.type_str());
  Tensor xv = as_vector(x), iv = as_vector(index);
  Tensor r = gather_points(xv, coordinates(iv, d));
  return r.reshape(index.sizes());
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  operand(x, "scatter_add");
  operand(index, "scatter_add");
  operand(src, "scatter_add");
  const std::string ctx =
      "input " + x.type_str() + ", index " + index.type_str() + ", src " + src.type_str();
  const int64_t d = check_gather_like(x, dim, index, "scatter_add", ctx);
  if (src.dtype() != x.dtype())
    throw DTypeError("[scatter_add] src must have the input's dtype, got " + ctx +
                     "; convert src with .to(...)");
  if (src.dim() != index.dim() && !(src.dim() <= 1 && index.dim() <= 1))
    throw_shape("scatter_add", "src must have as many dimensions as index, got " + ctx);
  for (int64_t i = 0; i < index.dim(); ++i) {
    if (index.size(i) > src.size(i)) {
      throw_shape("scatter_add", "index is larger than src in dimension " + str(i) + " (" +
                                     str(index.size(i)) + " vs " + str(src.size(i)) + "), got " +
                                     ctx);
    }
  }
  const int64_t n = x.dim() == 0 ? 1 : x.size(d);
  check_index_values(index, 0, n, "scatter_add", "dimension " + str(d) + " of " + x.type_str());
  Tensor xv = as_vector(x), iv = as_vector(index), sv = as_vector(src);
  if (sv.shape() != iv.shape()) {  // only src's leading index.shape block is scattered
    SliceAttrs a;
    for (int64_t i = 0; i < sv.dim(); ++i) {
      a.start_indices.push_back(0);
      a.limit_indices.push_back(iv.size(i));
      a.strides.push_back(1);
    }
    sv = record_op(OpCode::slice, {&sv}, std::move(a));
  }
  Tensor r = scatter_points(xv, coordinates(iv, d), sv);
  return r.reshape(x.sizes());
}

namespace {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

// i wrapped into [0, n) when negative (a pending tensor), after the range check of a
// materialized one.
Tensor wrap_negative(const Tensor& i, int64_t n, const char* op, const std::string& what) {
  check_index_values(i, -n, n, op, what);
  Tensor k = i.to(DType::i64);
  return where(k < int64_t{0}, k + n, k);
}

// The broadcast shape of index tensors (NumPy rules).
Shape broadcast_shapes(const std::vector<Tensor>& ts, const char* op, const std::string& ctx) {
  std::vector<int64_t> out;
  for (const Tensor& t : ts) {
    const std::vector<int64_t> is = t.sizes();
    const size_t rank = std::max(out.size(), is.size());
    std::vector<int64_t> next(rank);
    for (size_t j = 0; j < rank; ++j) {
      const int64_t p = j + out.size() >= rank ? out[j + out.size() - rank] : 1;
      const int64_t q = j + is.size() >= rank ? is[j + is.size() - rank] : 1;
      if (p != q && p != 1 && q != 1)
        throw_shape(op, "index tensors cannot be broadcast together, got " + ctx);
      next[j] = p == 1 ? q : p;
    }
    out = next;
  }
  return Shape(out);
}

// What one entry of an index list does to one dim of x: the dim it reads (-1: none), and for
// integers and slices the window [start, start + (len - 1) * step] of it.
struct Step {
  const TensorIndex* entry;
  int64_t dim = -1;
  int64_t start = 0, len = 0, step = 1;
};

std::string list_str(const std::vector<TensorIndex>& indices) {
  std::string r;
  auto opt = [](const std::optional<int64_t>& v) { return v ? str(*v) : std::string("None"); };
  for (const TensorIndex& e : indices) {
    r += r.empty() ? "{" : ", ";
    switch (e.kind) {
      case Kind::integer:
        r += str(e.integer);
        break;
      case Kind::slice:
        r += "Slice(" + opt(e.slice.start) + ", " + opt(e.slice.stop) + ", " + str(e.slice.step) +
             ")";
        break;
      case Kind::none:
        r += "None";
        break;
      case Kind::ellipsis:
        r += "Ellipsis";
        break;
      case Kind::tensor:
        r += e.tensor.type_str();
        break;
    }
  }
  return r.empty() ? "{}" : r + "}";
}

// Resolves an index list against x (every check, nothing recorded): one Step per entry, with
// Ellipsis expanded (it becomes full slices).
std::vector<Step> resolve(const Tensor& x, const std::vector<TensorIndex>& indices,
                          const char* op) {
  auto ctx = [&] { return "index " + list_str(indices) + " for " + x.type_str(); };
  int64_t consumed = 0, ellipses = 0, tensors = 0;
  for (const TensorIndex& e : indices) {
    if (e.kind == Kind::ellipsis) ++ellipses;
    if (e.kind == Kind::integer || e.kind == Kind::slice || e.kind == Kind::tensor) ++consumed;
    if (e.kind == Kind::tensor) {
      ++tensors;
      operand(e.tensor, op);
      if (e.tensor.dtype() != DType::i64 && e.tensor.dtype() != DType::i32)
        throw DTypeError(std::string("[") + op + "] tensor indices must be i64 (or i32), got " +
                         ctx() + "; bool masks are not supported (use where())");
    }
  }
  if (ellipses > 1)
    throw ValueError(std::string("[") + op + "] an index can only have one Ellipsis, got " + ctx());
  if (tensors > 1) {
    std::vector<Tensor> ts;
    size_t first = indices.size(), last = 0;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i].kind != Kind::tensor) continue;
      first = std::min(first, i);
      last = i;
      ts.push_back(indices[i].tensor);
    }
    if (last - first + 1 != ts.size())
      throw ValueError(std::string("[") + op + "] tensor entries must be next to each other, got " +
                       ctx() + "; index in two steps (PyTorch moves their dims to the front)");
    broadcast_shapes(ts, op, ctx());
  }
  if (consumed > x.dim())
    throw ValueError(std::string("[") + op + "] too many indices for a tensor of rank " +
                     str(x.dim()) + ": " + ctx());
  static const TensorIndex kFull{indexing::Slice()};
  std::vector<Step> steps;
  int64_t d = 0;
  auto add = [&](const TensorIndex& e) {
    Step s{&e};
    if (e.kind == Kind::none) {
      steps.push_back(s);
      return;
    }
    s.dim = d++;
    const int64_t n = x.size(s.dim);
    if (e.kind == Kind::integer) {
      const int64_t i = e.integer;
      if (i < -n || i >= n) {
        throw ValueError(std::string("[") + op + "] index " + str(i) +
                         " is out of bounds for dimension " + str(s.dim) + " with size " + str(n) +
                         ": " + ctx());
      }
      s.start = i < 0 ? i + n : i;
      s.len = 1;
    } else if (e.kind == Kind::slice) {
      const indexing::Slice& sl = e.slice;
      if (sl.step <= 0)
        throw ValueError(std::string("[") + op + "] slice step must be positive, got " + ctx());
      auto wrap = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
      const int64_t lo = sl.start ? wrap(*sl.start) : 0;
      const int64_t hi = std::max(sl.stop ? wrap(*sl.stop) : n, lo);
      s.start = lo;
      s.step = sl.step;
      s.len = (hi - lo + sl.step - 1) / sl.step;
    }
    steps.push_back(s);
  };
  for (const TensorIndex& e : indices) {
    if (e.kind != Kind::ellipsis) {
      add(e);
      continue;
    }
    for (int64_t k = 0; k < x.dim() - consumed; ++k) add(kFull);
  }
  return steps;
}

}  // namespace

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  operand(*this, "index");
  std::vector<Step> steps = resolve(*this, indices, "index");
  for (const Step& s : steps) {  // a tensor entry's values, before recording anything
    if (s.entry->kind == Kind::tensor)
      check_index_values(s.entry->tensor, -size(s.dim), size(s.dim), "index",
                         "dimension " + str(s.dim) + " of " + type_str());
  }
  Tensor r = clone();
  int64_t cur = 0;  // the dim of r the next entry works on
  for (size_t n = 0; n < steps.size(); ++n) {
    const Step& s = steps[n];
    switch (s.entry->kind) {
      case Kind::none:
        r = lazax::unsqueeze(r, cur++);
        break;
      case Kind::integer:
        r = lazax::select(r, cur, s.start);
        break;
      case Kind::slice:
      case Kind::ellipsis:
        r = lazax::slice(r, cur++, s.start,
                         s.len == 0 ? s.start : s.start + (s.len - 1) * s.step + 1, s.step);
        break;
      case Kind::tensor: {
        // The run of (adjacent) tensor entries: their broadcast shape b replaces their dims.
        std::vector<Tensor> ts;
        for (; n < steps.size() && steps[n].entry->kind == Kind::tensor; ++n)
          ts.push_back(steps[n].entry->tensor);
        --n;
        const auto k = static_cast<int64_t>(ts.size());
        const Shape b = broadcast_shapes(ts, "index", "");
        const auto nb = static_cast<int64_t>(b.rank());
        std::vector<int64_t> col = b.vec();
        col.push_back(1);
        std::vector<Tensor> parts;
        for (int64_t j = 0; j < k; ++j) {
          Tensor w = wrap_negative(ts[static_cast<size_t>(j)], r.size(cur + j), "index", "");
          parts.push_back(broadcast_to_shape(w, b, "index").reshape(col));
        }
        Tensor at = cat(parts, nb);
        GatherAttrs a;
        for (int64_t d = 0; d < r.dim(); ++d) {
          const bool indexed = d >= cur && d < cur + k;
          a.slice_sizes.push_back(indexed ? 1 : r.size(d));
          if (indexed) {
            a.collapsed_slice_dims.push_back(d);
            a.start_index_map.push_back(d);
          } else {
            a.offset_dims.push_back(d < cur ? d : d - k + nb);
          }
        }
        a.mode = GatherMode::fill;
        r = record_op(OpCode::gather, {&r, &at}, std::move(a));
        cur += nb;
        break;
      }
    }
  }
  return r;
}

Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate) {
  operand(x, "index_put");
  operand(values, "index_put");
  std::string ctx = "input " + x.type_str() + ", values " + values.type_str() + ", indices";
  for (const Tensor& i : indices) {
    operand(i, "index_put");
    ctx += " " + i.type_str();
  }
  const auto k = static_cast<int64_t>(indices.size());
  if (k == 0 || k > x.dim()) {
    throw_shape("index_put", "needs 1 to " + str(x.dim()) +
                                 " index tensors (one per leading "
                                 "dim), got " +
                                 ctx);
  }
  if (values.dtype() != x.dtype())
    throw DTypeError("[index_put] values must have the input's dtype, got " + ctx +
                     "; convert them with .to(...)");
  for (const Tensor& i : indices)
    require_index_dtype(i, "index_put", ctx + " (bool masks are not supported: use where())");
  const Shape b = broadcast_shapes(indices, "index_put", ctx);
  std::vector<int64_t> target = b.vec();
  for (int64_t d = k; d < x.dim(); ++d) target.push_back(x.size(d));
  {
    const std::vector<int64_t> vs = values.sizes();
    bool fits = vs.size() <= target.size();
    for (size_t j = 0; fits && j < vs.size(); ++j) {
      const int64_t want = target[target.size() - vs.size() + j];
      fits = vs[j] == 1 || vs[j] == want;
    }
    if (!fits)
      throw_shape("index_put", "values cannot be broadcast to the indexed shape " +
                                   vec_str(target) + ", got " + ctx);
  }
  for (int64_t d = 0; d < k; ++d)
    check_index_values(indices[static_cast<size_t>(d)], -x.size(d), x.size(d), "index_put",
                       "dimension " + str(d) + " of " + x.type_str());
  // Every check is done: record from here on.
  std::vector<int64_t> col = b.vec();
  col.push_back(1);
  std::vector<Tensor> parts;
  for (int64_t d = 0; d < k; ++d) {
    Tensor i = wrap_negative(indices[static_cast<size_t>(d)], x.size(d), "index_put", "");
    parts.push_back(broadcast_to_shape(i, b, "index_put").reshape(col));
  }
  Tensor at = cat(parts, static_cast<int64_t>(b.rank()));
  Tensor v = broadcast_to_shape(values, Shape(target), "index_put");
  ScatterAttrs a;
  for (int64_t d = k; d < x.dim(); ++d)
    a.update_window_dims.push_back(static_cast<int64_t>(b.rank()) + d - k);
  a.inserted_window_dims = all_dims(k);
  a.scatter_dims_to_operand_dims = all_dims(k);
  a.mode = GatherMode::fill;
  auto scatter = [&](const Tensor& into, const Tensor& upd) {
    if (into.dtype() == DType::boolean) {
      Tensor i32 = into.to(DType::i32), u32 = upd.to(DType::i32);
      Tensor r = record_op(OpCode::scatter_add, {&i32, &at, &u32}, a);
      return ne(r, zeros({}, DType::i32));
    }
    return Tensor(record_op(OpCode::scatter_add, {&into, &at, &upd}, a));
  };
  if (accumulate) return scatter(x, v);
  Tensor hit = scatter(zeros(x.sizes(), DType::i32), ones(target, DType::i32)) > int64_t{0};
  return where(hit, scatter(zeros(x.sizes(), x.dtype()), v), x);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) {
  operand(*this, "index_put_");
  operand(value, "index_put_");
  if (in_place_forbidden(*this)) throw_in_place_on_leaf(*this, "index_put_", "");
  const bool all_tensors =
      !indices.empty() && std::all_of(indices.begin(), indices.end(),
                                      [](const TensorIndex& e) { return e.kind == Kind::tensor; });
  if (all_tensors) {
    std::vector<Tensor> ts;
    ts.reserve(indices.size());
    for (const TensorIndex& e : indices) ts.push_back(e.tensor);
    Tensor v = value.dtype() == dtype() ? value : value.to(dtype());
    return copy_as(*this, lazax::index_put(*this, ts, v), "index_put_");
  }
  std::vector<Step> steps = resolve(*this, indices, "index_put_");
  auto check_value = [&](const std::vector<int64_t>& indexed) {
    const std::vector<int64_t> vs = value.sizes();
    bool fits = vs.size() <= indexed.size();
    for (size_t j = 0; fits && j < vs.size(); ++j) {
      const int64_t want = indexed[indexed.size() - vs.size() + j];
      fits = vs[j] == 1 || vs[j] == want;
    }
    if (!fits) {
      throw_shape("index_put_", "value " + value.type_str() + " cannot be broadcast to " +
                                    vec_str(indexed) + ", the shape of index " + list_str(indices) +
                                    " of " + type_str());
    }
  };
  if (std::any_of(steps.begin(), steps.end(),
                  [](const Step& s) { return s.entry->kind == Kind::tensor; })) {
    for (const Step& s : steps) {
      if (s.entry->kind == Kind::tensor)
        check_index_values(s.entry->tensor, -size(s.dim), size(s.dim), "index_put_",
                           "dimension " + str(s.dim) + " of " + type_str());
    }
    // Tensor entries among others: the flat positions x.index(indices) reads, written by a flat
    // index_put (so the indexed shape is index()'s by construction).
    Tensor pos = lazax::reshape(arange(numel()), sizes()).index(indices);
    check_value(pos.sizes());
    Tensor v = value.dtype() == dtype() ? value : value.to(dtype());
    v = broadcast_to_shape(v, pos.shape(), "index_put_");
    Tensor flat = lazax::index_put(lazax::reshape(*this, {numel()}), {pos.reshape({pos.numel()})},
                                   v.reshape({pos.numel()}));
    return copy_as(*this, flat.reshape(sizes()), "index_put_");
  }
  // The shape x.index(indices) has, and the window of each dim of x (unindexed dims: full).
  std::vector<int64_t> indexed, window = sizes(), lo(static_cast<size_t>(dim()), 0),
                                stride(static_cast<size_t>(dim()), 1);
  int64_t used = 0;
  for (const Step& s : steps) {
    if (s.dim < 0) {
      indexed.push_back(1);
      continue;
    }
    used = s.dim + 1;
    const auto d = static_cast<size_t>(s.dim);
    window[d] = s.len;
    lo[d] = s.start;
    stride[d] = s.step;
    if (s.entry->kind != Kind::integer) indexed.push_back(s.len);
  }
  for (int64_t d = used; d < dim(); ++d) indexed.push_back(size(d));
  check_value(indexed);
  // Every check is done: record from here on. The value, broadcast and placed into the window
  // by a pad (interior padding for the steps), replaces x where a padded mask says so.
  const Tensor self = *this;
  if (self.numel() == 0 || std::find(window.begin(), window.end(), 0) != window.end())
    return copy_as(*this, self.clone(), "index_put_");
  Tensor v = value.dtype() == dtype() ? value : value.to(dtype());
  v = broadcast_to_shape(v, Shape(indexed), "index_put_").reshape(window);
  PadAttrs pa;
  for (size_t d = 0; d < window.size(); ++d) {
    pa.edge_padding_low.push_back(lo[d]);
    pa.interior_padding.push_back(stride[d] - 1);
    pa.edge_padding_high.push_back(self.shape()[d] - lo[d] - (window[d] - 1) * stride[d] - 1);
  }
  Tensor zero = zeros({}, dtype()), no = zeros({}, DType::boolean);
  Tensor placed = record_op(OpCode::pad, {&v, &zero}, pa);
  Tensor inside = ones(window, DType::boolean);
  Tensor mask = record_op(OpCode::pad, {&inside, &no}, pa);
  return copy_as(*this, where(mask, placed, self), "index_put_");
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, double value) {
  operand(*this, "index_put_");
  return index_put_(indices, full({}, value, dtype()));
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return lazax::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return lazax::gather(*this, dim, index);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return lazax::scatter_add(*this, dim, index, src);
}

}  // namespace lazax
