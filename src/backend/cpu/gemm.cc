// dot_general on f32 and bf16 through oneDNN's matmul. Each operand is viewed as a 3-d
// [batch, rows, cols] array: lhs as [B, M, K], rhs as [B, K, N] (batch dims first, then the free
// and contracting dims in the order dot_general pairs them). When each group of dims merges into
// one strided dim (a transposed operand does), oneDNN reads the operand in place through
// strides; otherwise the operand is first copied into that order. The result dims of dot_general
// are [batch..., lhs free..., rhs free...], which is oneDNN's contiguous [B, M, N]. The primitive
// for the node's shapes is made once, at compile time. An unbatched f32 GEMM whose operands each
// have a unit stride calls oneDNN's sgemm instead (10-20% faster on the decoder's shapes). A
// small GEMM (kOneThreadMacs) is planned and run on the calling thread alone.
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "kernels.h"
#include "lazax/core/error.h"

namespace lazax::cpu {
namespace {

using dnnl::memory;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// An operand's dims in canonical order, with their sizes and element strides.
struct View {
  Dims sizes, strides;                         // canonical order
  int64_t d[3] = {1, 1, 1}, s[3] = {0, 0, 0};  // merged [batch, rows, cols]
  bool merged = false;
};

// Merges `dims` (in order) of an operand of `shape` (element `strides`) into one strided dim:
// false when they are not laid out as one (stride -1: all of size 1).
bool merge(const Shape& shape, const Dims& strides, const IntList& dims, int64_t& size,
           int64_t& stride) {
  size = 1;
  stride = -1;
  int64_t prev_stride = -1;
  for (int64_t d : dims) {
    int64_t n = shape[static_cast<size_t>(d)], st = strides[static_cast<size_t>(d)];
    size *= n;
    if (n == 1) continue;
    if (prev_stride >= 0 && prev_stride != st * n) return false;
    prev_stride = st;
    stride = st;
  }
  return true;
}

View make_view(const Shape& shape, const IntList (&groups)[3]) {
  View v;
  Dims st = shape.strides();
  int64_t extent = std::max<int64_t>(shape.numel(), 1);
  v.merged = true;
  for (int g = 0; g < 3; ++g) {
    for (int64_t d : groups[g]) {
      v.sizes.push_back(shape[static_cast<size_t>(d)]);
      v.strides.push_back(st[static_cast<size_t>(d)]);
    }
    int64_t size = 1, stride = -1;
    v.merged = merge(shape, st, groups[g], size, stride) && v.merged;
    v.d[g] = 1;
    for (int64_t d : groups[g]) v.d[g] *= shape[static_cast<size_t>(d)];
    v.s[g] = stride < 0 ? extent : stride;  // a size-1 group: any stride
  }
  return v;
}

// Contiguous strides of [B, R, C].
void contiguous(View& v) {
  v.s[2] = 1;
  v.s[1] = v.d[2];
  v.s[0] = v.d[1] * v.d[2];
}

// Copies a strided array (canonical order `sizes`, element `strides`) into contiguous `dst`.
template <class T>
void gather(const T* src, T* dst, const Dims& sizes, const Dims& strides, size_t dim) {
  int64_t n = sizes[dim], st = strides[dim];
  if (dim + 1 == sizes.size()) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * st];
    return;
  }
  int64_t inner = 1;
  for (size_t k = dim + 1; k < sizes.size(); ++k) inner *= sizes[k];
  for (int64_t i = 0; i < n; ++i) gather(src + i * st, dst + i * inner, sizes, strides, dim + 1);
}

void copy_canonical(const void* src, void* dst, size_t elem, const View& v) {
  if (v.sizes.empty()) {
    std::memcpy(dst, src, elem);
  } else if (elem == 4) {
    gather(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), v.sizes, v.strides, 0);
  } else {
    gather(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), v.sizes, v.strides, 0);
  }
}

// Below this many multiply-adds a GEMM runs on one thread: an OpenMP region costs more than its
// arithmetic, and on a loaded machine each region waits for a descheduled thread (vmap's batched
// [64, 1, 32] x [64, 32, 64] took 8 ms with 2 threads on the busy 2-core machine, 0.01 ms on one;
// docs/VMAP.md, Speed).
constexpr int64_t kOneThreadMacs = int64_t{1} << 20;

// omp_set_num_threads(1) for its scope when `on` (oneDNN reads the count when it plans and runs).
class OneThread {
 public:
  explicit OneThread(bool on) : saved_(on ? omp_get_max_threads() : 0) {
    if (on) omp_set_num_threads(1);
  }
  ~OneThread() {
    if (saved_ > 0) omp_set_num_threads(saved_);
  }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int saved_;
};

struct Gemm : StepState {
  View a, b;
  bool one_thread = false;  // small: planned and run on one thread
  bool copy_a = false, copy_b = false;
  // One f32 GEMM whose operands each have a unit stride: oneDNN's sgemm (PERFORMANCE.md).
  bool sgemm = false;
  char ta = 'N', tb = 'N';
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0;
  size_t elem = 4;
  TensorType out;  // the node's result type, or the f32 type of a folded convert
  memory::desc a_md, b_md, c_md;
  dnnl::matmul prim;
  [[nodiscard]] std::string describe() const override {
    std::string d = copy_a || copy_b ? std::string(" (copies") + (copy_a ? " lhs" : "") +
                                           (copy_b ? " rhs" : "") + ")"
                                     : std::string();
    return elem == 2 && out.dtype == DType::f32 ? d + " (bf16 -> f32, convert folded)" : d;
  }
};

memory::desc desc_of(const View& v, memory::data_type dt) {
  return memory::desc({v.d[0], v.d[1], v.d[2]}, dt, {v.s[0], v.s[1], v.s[2]});
}

// The primitive for the views, or false when oneDNN offers none (or only its reference one).
bool make_primitive(Gemm& g, memory::data_type dt, memory::data_type out_dt, int64_t n) {
  try {
    g.a_md = desc_of(g.a, dt);
    g.b_md = desc_of(g.b, dt);
    g.c_md = memory::desc({g.a.d[0], g.a.d[1], n}, out_dt, memory::format_tag::abc);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(g.a_md, g.b_md, g.c_md), engine());
    if (std::string(pd.impl_info_str()).find("ref") != std::string::npos) return false;
    g.prim = dnnl::matmul(pd);
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// Row-major sgemm of [M, K] x [K, N] from the views' strides, when each operand has a unit
// stride in one of its dims (any other leading dimension); false otherwise.
bool plan_sgemm(Gemm& g) {
  auto layout = [](const View& v, char& trans, int64_t& ld) {
    if (v.s[2] == 1 && v.s[1] >= std::max<int64_t>(v.d[2], 1)) {
      trans = 'N';
      ld = v.s[1];
      return true;
    }
    if (v.s[1] == 1 && v.s[2] >= std::max<int64_t>(v.d[1], 1)) {
      trans = 'T';
      ld = v.s[2];
      return true;
    }
    return false;
  };
  if (!layout(g.a, g.ta, g.lda) || !layout(g.b, g.tb, g.ldb)) return false;
  g.m = g.a.d[1];
  g.k = g.a.d[2];
  g.n = g.b.d[2];
  g.sgemm = true;
  return true;
}

}  // namespace

std::shared_ptr<StepState> plan_gemm(const Node& node, std::span<const TensorType> in,
                                     const TensorType* out) {
  const auto* at = std::get_if<DotGeneralAttrs>(&node.attrs);
  if (!at || in.size() != 2 || node.outputs.size() != 1) return nullptr;
  DType dt = node.outputs[0].dtype;
  if ((dt != DType::f32 && dt != DType::bf16) || in[0].dtype != dt || in[1].dtype != dt)
    return nullptr;
  if (out && (dt != DType::bf16 || out->dtype != DType::f32 || out->shape != node.outputs[0].shape))
    return nullptr;
  const Shape &ls = in[0].shape, &rs = in[1].shape;
  if (node.outputs[0].numel() == 0 || ls.numel() == 0 || rs.numel() == 0) return nullptr;
  auto free_dims = [](size_t rank, const IntList& batch, const IntList& contracting) {
    IntList f;
    for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
        f.push_back(d);
      }
    }
    return f;
  };
  IntList lf = free_dims(ls.rank(), at->lhs_batch, at->lhs_contracting);
  IntList rf = free_dims(rs.rank(), at->rhs_batch, at->rhs_contracting);
  auto g = std::make_shared<Gemm>();
  g->elem = dt == DType::f32 ? 4 : 2;
  g->out = out ? *out : node.outputs[0];
  const IntList lgroups[3] = {at->lhs_batch, lf, at->lhs_contracting};
  const IntList rgroups[3] = {at->rhs_batch, at->rhs_contracting, rf};
  g->a = make_view(ls, lgroups);
  g->b = make_view(rs, rgroups);
  int64_t n = g->b.d[2];
  memory::data_type mdt = dt == DType::f32 ? memory::data_type::f32 : memory::data_type::bf16;
  memory::data_type odt = g->out.dtype == DType::f32 ? memory::data_type::f32 : mdt;
  // In place through strides when both operands merge; else copy the one(s) that do not.
  g->copy_a = !g->a.merged;
  g->copy_b = !g->b.merged;
  if (g->copy_a) contiguous(g->a);
  if (g->copy_b) contiguous(g->b);
  g->one_thread = g->a.d[0] * g->a.d[1] * g->a.d[2] * n < kOneThreadMacs;
  OneThread scope(g->one_thread);
  if (dt == DType::f32 && g->a.d[0] == 1 && plan_sgemm(*g)) return g;
  if (make_primitive(*g, mdt, odt, n)) return g;
  g->copy_a = g->copy_b = true;
  contiguous(g->a);
  contiguous(g->b);
  if (make_primitive(*g, mdt, odt, n)) return g;
  return nullptr;
}

void run_gemm(const Step& step, Frame& frame) {
  const Gemm& g = static_cast<const Gemm&>(*step.state);
  const Literal& lhs = frame[static_cast<size_t>(step.in[0])];
  const Literal& rhs = frame[static_cast<size_t>(step.in[1])];
  const TensorType& t = g.out;
  Literal out(t, allocate_output(t.bytes()));
  Buffer ta, tb;  // canonical copies, when needed
  const void* a = lhs.buffer.data();
  const void* b = rhs.buffer.data();
  if (g.copy_a) {
    ta = Buffer::allocate_uninitialized(lhs.type.bytes());
    copy_canonical(a, ta.data(), g.elem, g.a);
    a = ta.data();
  }
  if (g.copy_b) {
    tb = Buffer::allocate_uninitialized(rhs.type.bytes());
    copy_canonical(b, tb.data(), g.elem, g.b);
    b = tb.data();
  }
  OneThread scope(g.one_thread);
  if (g.sgemm) {
    const dnnl_status_t st =
        dnnl_sgemm(g.ta, g.tb, g.m, g.n, g.k, 1.0f, static_cast<const float*>(a), g.lda,
                   static_cast<const float*>(b), g.ldb, 0.0f, out.data<float>(), g.n);
    if (st != dnnl_success)
      throw Error("[cpu] dot_general: oneDNN's sgemm failed (status " + std::to_string(st) + ")");
    frame[static_cast<size_t>(step.out[0])] = std::move(out);
    return;
  }
  dnnl::engine& e = engine();
  memory am(g.a_md, e, const_cast<void*>(a));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  memory bm(g.b_md, e, const_cast<void*>(b));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  memory cm(g.c_md, e, out.buffer.data());
  dnnl::stream s(e);
  g.prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  s.wait();
  frame[static_cast<size_t>(step.out[0])] = std::move(out);
}

}  // namespace lazax::cpu
