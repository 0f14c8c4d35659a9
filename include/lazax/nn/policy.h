// A mixed-precision policy, as DeepMind's jmp.Policy: the dtype parameters are stored in
// (param_dtype: f32 master weights, so the optimizer's state and updates stay f32), the dtype a
// computation runs in (compute_dtype: bf16) and the dtype its results leave in (output_dtype).
// The casts map a tree (tree.h: a Tensor, vectors, maps, tuples, LAZAX_TREE_FIELDS structs,
// nn modules) and convert its floating tensors only: integer and bool tensors (token ids, masks)
// and undefined ones are left as they are. A cast is a `convert` node, recorded like any op
// (lazily, or into a trace); under grad its VJP converts the cotangent back, so a gradient reaches
// an f32 tensor as f32.
//
//   Policy p = Policy::parse("params=f32,compute=bf16,output=f32");  // jmp.get_policy
//   auto [w, x] = p.cast_to_compute(std::pair{params, batch});
//   Tensor y = p.cast_to_output(f(w, x));
//
// A module runs under a policy with Module::set_policy (module.h); docs/PRECISION.md has the
// table of what runs in which dtype and how a policy composes with Autocast.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lazax/autodiff/tree.h"
#include "lazax/core/dtype.h"

namespace lazax {

// `tree` with each floating tensor converted to `dtype` (a tensor already of that dtype is the
// same tensor, no node); other leaves unchanged. `dtype` must be floating (else a DTypeError).
template <class T>
T cast_floating(const T& tree, DType dtype);

struct Policy {
  DType param_dtype = DType::f32;
  DType compute_dtype = DType::f32;
  DType output_dtype = DType::f32;

  // jmp.get_policy: comma-separated fields `params=`, `compute=`, `output=` (or `p=`, `c=`,
  // `o=`), each a floating dtype: f32/float32/full, bf16/bfloat16/half, f16/float16,
  // f64/float64. A field left out is f32; a lone dtype ("bf16") sets all three. A bad field or
  // dtype is a ValueError that names it and lists the accepted ones.
  static Policy parse(std::string_view spec);
  // "params=f32,compute=bf16,output=f32": parse gives the policy back.
  std::string str() const;

  template <class T>
  T cast_to_param(const T& tree) const {
    return cast_floating(tree, param_dtype);
  }
  template <class T>
  T cast_to_compute(const T& tree) const {
    return cast_floating(tree, compute_dtype);
  }
  template <class T>
  T cast_to_output(const T& tree) const {
    return cast_floating(tree, output_dtype);
  }

  bool operator==(const Policy&) const = default;
};

namespace detail {
// Throws unless `dtype` is floating (the message names `who`).
void check_cast_dtype(DType dtype, const char* who);
// Each floating tensor of `leaves` converted to `dtype`, in place.
void cast_floating_leaves(std::vector<Tensor>& leaves, DType dtype);
}  // namespace detail

template <class T>
T cast_floating(const T& tree, DType dtype) {
  detail::check_cast_dtype(dtype, "cast_floating");
  std::vector<Tensor> leaves = tree_flatten(tree);
  detail::cast_floating_leaves(leaves, dtype);
  return tree_unflatten(tree, leaves);
}

}  // namespace lazax
