// Interpreter kernel for dot_general (lax.dot_general): result dims are the batch dims, then
// the lhs free dims, then the rhs free dims, each group in operand order. Floats accumulate in
// double (f16/bf16 are read through float), integers in 64 bits with wrap-around, and the sum is
// rounded to the result dtype once at the end (bool: logical or of ands).
#include <cstdint>
#include <string>
#include <vector>

#include "common.h"
#include "kernels.h"
#include "lazax/core/error.h"

namespace lazax::interp {
namespace {

// All elements of `l` converted to Acc (double or uint64_t), row-major.
template <class Acc>
std::vector<Acc> load_all(const Literal& l) {
  std::vector<Acc> v(static_cast<size_t>(l.numel()));
  dispatch_dtype(l.dtype(), [&]<class T>() {
    const T* p = l.data<T>();
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (kIsHalf<T>) {
        v[i] = static_cast<Acc>(static_cast<float>(p[i]));
      } else if constexpr (std::is_integral_v<T> && std::is_same_v<Acc, uint64_t>) {
        v[i] = static_cast<uint64_t>(static_cast<int64_t>(p[i]));  // sign-extends
      } else {
        v[i] = static_cast<Acc>(p[i]);
      }
    }
  });
  return v;
}

[[noreturn]] void bad(const std::string& why, const Literal& lhs, const Literal& rhs) {
  throw ShapeError("[dot_general] " + why + " (lhs " + lhs.type.str() + ", rhs " + rhs.type.str() +
                   ")");
}

// Checks a list of dims of an operand: in range and not already used.
void mark_dims(const IntList& dims, size_t rank, std::vector<bool>& used, const char* what,
               const Literal& lhs, const Literal& rhs) {
  for (int64_t d : dims) {
    if (d < 0 || static_cast<size_t>(d) >= rank || used[static_cast<size_t>(d)])
      bad(std::string(what) + " dimension " + std::to_string(d) + " is out of range or repeated",
          lhs, rhs);
    used[static_cast<size_t>(d)] = true;
  }
}

// One loop dimension: its size and the element strides it moves in lhs and rhs.
struct LoopDim {
  int64_t size, lhs_stride, rhs_stride;
};

}  // namespace

std::vector<Literal> kernel_dot_general(const Node& node, std::span<const Literal> in) {
  const auto* a = std::get_if<DotGeneralAttrs>(&node.attrs);
  if (!a) throw VerifyError("[dot_general] node carries the wrong attribute struct");
  if (in.size() != 2 || node.outputs.size() != 1)
    throw VerifyError("[dot_general] takes two operands and has one result");
  const Literal &lhs = in[0], &rhs = in[1];
  const size_t lr = lhs.shape().rank(), rr = rhs.shape().rank();
  if (lhs.dtype() != rhs.dtype() || lhs.dtype() != node.outputs[0].dtype)
    throw DTypeError("[dot_general] lhs, rhs and result need one dtype (lhs " + lhs.type.str() +
                     ", rhs " + rhs.type.str() + ", result " + node.outputs[0].str() + ")");
  if (a->lhs_batch.size() != a->rhs_batch.size() ||
      a->lhs_contracting.size() != a->rhs_contracting.size())
    bad("lhs and rhs need as many batch and contracting dimensions", lhs, rhs);
  std::vector<bool> lused(lr), rused(rr);
  mark_dims(a->lhs_batch, lr, lused, "lhs batch", lhs, rhs);
  mark_dims(a->lhs_contracting, lr, lused, "lhs contracting", lhs, rhs);
  mark_dims(a->rhs_batch, rr, rused, "rhs batch", lhs, rhs);
  mark_dims(a->rhs_contracting, rr, rused, "rhs contracting", lhs, rhs);

  const Dims ls = lhs.shape().strides(), rs = rhs.shape().strides();
  std::vector<LoopDim> out_dims, sum_dims;
  for (size_t i = 0; i < a->lhs_batch.size(); ++i) {
    auto l = static_cast<size_t>(a->lhs_batch[i]), r = static_cast<size_t>(a->rhs_batch[i]);
    if (lhs.shape()[l] != rhs.shape()[r]) bad("batch dimension sizes differ", lhs, rhs);
    out_dims.push_back({lhs.shape()[l], ls[l], rs[r]});
  }
  for (size_t l = 0; l < lr; ++l)
    if (!lused[l]) out_dims.push_back({lhs.shape()[l], ls[l], 0});
  for (size_t r = 0; r < rr; ++r)
    if (!rused[r]) out_dims.push_back({rhs.shape()[r], 0, rs[r]});
  for (size_t i = 0; i < a->lhs_contracting.size(); ++i) {
    auto l = static_cast<size_t>(a->lhs_contracting[i]);
    auto r = static_cast<size_t>(a->rhs_contracting[i]);
    if (lhs.shape()[l] != rhs.shape()[r]) bad("contracting dimension sizes differ", lhs, rhs);
    sum_dims.push_back({lhs.shape()[l], ls[l], rs[r]});
  }
  Dims out_shape;
  for (const auto& d : out_dims) out_shape.push_back(d.size);
  const TensorType& out_type = node.outputs[0];
  if (out_type.shape != Shape(out_shape))
    throw VerifyError("[dot_general] declared result " + out_type.str() + " should have shape " +
                      Shape(out_shape).str());

  Literal out = Literal::zeros(out_type);
  const int64_t n_out = out.numel();
  int64_t n_sum = 1;
  for (const auto& d : sum_dims) n_sum *= d.size;

  // Walks every (output element, contraction) pair, calling mac(out_i, lhs_i, rhs_i).
  auto run = [&](auto&& mac) {
    std::vector<int64_t> oi(out_dims.size(), 0), si(sum_dims.size(), 0);
    int64_t lbase = 0, rbase = 0;
    for (int64_t o = 0; o < n_out; ++o) {
      int64_t lo = lbase, ro = rbase;
      for (int64_t s = 0; s < n_sum; ++s) {
        mac(o, lo, ro);
        for (size_t k = sum_dims.size(); k-- > 0;) {  // odometer over contracting dims
          lo += sum_dims[k].lhs_stride;
          ro += sum_dims[k].rhs_stride;
          if (++si[k] < sum_dims[k].size) break;
          lo -= sum_dims[k].lhs_stride * sum_dims[k].size;
          ro -= sum_dims[k].rhs_stride * sum_dims[k].size;
          si[k] = 0;
        }
      }
      for (size_t k = out_dims.size(); k-- > 0;) {  // odometer over output dims
        lbase += out_dims[k].lhs_stride;
        rbase += out_dims[k].rhs_stride;
        if (++oi[k] < out_dims[k].size) break;
        lbase -= out_dims[k].lhs_stride * out_dims[k].size;
        rbase -= out_dims[k].rhs_stride * out_dims[k].size;
        oi[k] = 0;
      }
    }
  };

  dispatch_dtype(out_type.dtype, [&]<class T>() {
    T* po = out.data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      // Logical: any(lhs && rhs) over the contraction.
      auto lv = load_all<uint64_t>(lhs), rv = load_all<uint64_t>(rhs);
      run([&](int64_t o, int64_t l, int64_t r) {
        if (lv[static_cast<size_t>(l)] && rv[static_cast<size_t>(r)]) po[o] = true;
      });
    } else if constexpr (std::is_integral_v<T>) {
      auto lv = load_all<uint64_t>(lhs), rv = load_all<uint64_t>(rhs);
      std::vector<uint64_t> acc(static_cast<size_t>(n_out), 0);  // unsigned: wraps, no UB
      run([&](int64_t o, int64_t l, int64_t r) {
        acc[static_cast<size_t>(o)] += lv[static_cast<size_t>(l)] * rv[static_cast<size_t>(r)];
      });
      for (int64_t o = 0; o < n_out; ++o) po[o] = static_cast<T>(acc[static_cast<size_t>(o)]);
    } else {
      auto lv = load_all<double>(lhs), rv = load_all<double>(rhs);
      std::vector<double> acc(static_cast<size_t>(n_out), 0.0);
      run([&](int64_t o, int64_t l, int64_t r) {
        acc[static_cast<size_t>(o)] += lv[static_cast<size_t>(l)] * rv[static_cast<size_t>(r)];
      });
      // One correctly rounded conversion from the double sum (no double rounding via float).
      for (int64_t o = 0; o < n_out; ++o) po[o] = from_double<T>(acc[static_cast<size_t>(o)]);
    }
  });
  return {std::move(out)};
}

}  // namespace lazax::interp
