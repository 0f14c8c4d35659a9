// One attribute struct per op family. Each struct lists its fields once, in `visit`, which the
// printer, parser, hasher and equality all use: adding a field touches one line.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "lazax/core/device.h"
#include "lazax/core/reduce_kind.h"
#include "lazax/core/shape.h"
#include "lazax/core/small_vec.h"
#include "lazax/ir/literal.h"

namespace lazax {

class Function;
using FunctionPtr = std::shared_ptr<const Function>;
// Attribute lists (axes, permutations, sizes) are short: inline, so that copying attributes
// (the graph node, the tape entry) allocates nothing.
using IntList = SmallVec<int64_t, 4>;

// Whether `v` is 0, 1, ..., n-1 (an identity permutation or dimension map).
inline bool is_iota(const IntList& v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<int64_t>(i)) return false;
  return true;
}

enum class CompareDir : uint8_t { eq, ne, lt, le, gt, ge };
// Out-of-bounds behavior of gather/scatter_add (as in JAX): `fill` returns the fill value for
// out-of-bounds gathers and drops out-of-bounds scatter updates; `clip` clamps the start index.
enum class GatherMode : uint8_t { fill, clip };

struct NoAttrs {
  template <class S, class F>
  static void visit(S&, F&&) {}
};
// Internal: a function parameter (printed in the signature, never as a node).
struct ParameterAttrs {
  int64_t index = 0;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("index", s.index);
  }
};
struct ConstantAttrs {
  Literal value;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("value", s.value);
  }
};
struct IotaAttrs {
  DType dtype = DType::i32;
  Shape shape;
  int64_t dimension = 0;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("dtype", s.dtype);
    f("shape", s.shape);
    f("dimension", s.dimension);
  }
};
struct CompareAttrs {
  CompareDir dir = CompareDir::eq;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("dir", s.dir);
  }
};
struct ConvertAttrs {
  DType dtype = DType::f32;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("dtype", s.dtype);
  }
};
struct BroadcastInDimAttrs {
  Shape shape;
  IntList broadcast_dimensions;  // operand dim i maps to result dim broadcast_dimensions[i]
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("shape", s.shape);
    f("broadcast_dimensions", s.broadcast_dimensions);
  }
};
struct ReshapeAttrs {
  Shape new_sizes;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("new_sizes", s.new_sizes);
  }
};
struct TransposeAttrs {
  IntList permutation;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("permutation", s.permutation);
  }
};
struct SliceAttrs {
  IntList start_indices, limit_indices, strides;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("start_indices", s.start_indices);
    f("limit_indices", s.limit_indices);
    f("strides", s.strides);
  }
};
struct DynamicSliceAttrs {
  IntList slice_sizes;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("slice_sizes", s.slice_sizes);
  }
};
struct ConcatenateAttrs {
  int64_t dimension = 0;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("dimension", s.dimension);
  }
};
struct PadAttrs {
  IntList edge_padding_low, edge_padding_high, interior_padding;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("edge_padding_low", s.edge_padding_low);
    f("edge_padding_high", s.edge_padding_high);
    f("interior_padding", s.interior_padding);
  }
};
struct ReduceAttrs {
  IntList axes;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axes", s.axes);
  }
};
struct ArgmaxAttrs {
  int64_t axis = 0;
  DType index_dtype = DType::i32;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
    f("index_dtype", s.index_dtype);
  }
};
struct DotGeneralAttrs {
  IntList lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("lhs_batch", s.lhs_batch);
    f("rhs_batch", s.rhs_batch);
    f("lhs_contracting", s.lhs_contracting);
    f("rhs_contracting", s.rhs_contracting);
  }
};
// lax.gather with the index vector in the last dimension of the indices.
struct GatherAttrs {
  IntList offset_dims, collapsed_slice_dims, start_index_map, slice_sizes;
  GatherMode mode = GatherMode::fill;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("offset_dims", s.offset_dims);
    f("collapsed_slice_dims", s.collapsed_slice_dims);
    f("start_index_map", s.start_index_map);
    f("slice_sizes", s.slice_sizes);
    f("mode", s.mode);
  }
};
// lax.scatter_add with the index vector in the last dimension of the indices.
struct ScatterAttrs {
  IntList update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims;
  GatherMode mode = GatherMode::fill;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("update_window_dims", s.update_window_dims);
    f("inserted_window_dims", s.inserted_window_dims);
    f("scatter_dims_to_operand_dims", s.scatter_dims_to_operand_dims);
    f("mode", s.mode);
  }
};
struct CumsumAttrs {
  int64_t axis = 0;
  bool reverse = false;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
    f("reverse", s.reverse);
  }
};
// rev(x): reverses x along each of `dimensions` (lax.rev).
struct RevAttrs {
  IntList dimensions;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("dimensions", s.dimensions);
  }
};
// sort(x) -> (values, indices: i64): a stable sort along `axis` (lax.sort of (x, iota) with
// num_keys=1); NaN sorts after +inf ascending, before it descending (as torch.sort).
struct SortAttrs {
  int64_t axis = 0;
  bool descending = false;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
    f("descending", s.descending);
  }
};
// random_bits(key: i64[2]) -> (bits: dtype[shape], next_key: i64[2]); see docs/IR.md.
struct RandomBitsAttrs {
  Shape shape;
  DType dtype = DType::i32;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("shape", s.shape);
    f("dtype", s.dtype);
  }
};
struct CallAttrs {
  FunctionPtr callee;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("callee", s.callee);
  }
};
// cond(index, operands...): branches[index] runs (a bool index: false -> 0, true -> 1);
// an integer index is clamped into range, as lax.switch does.
struct CondAttrs {
  std::vector<FunctionPtr> branches;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("branches", s.branches);
  }
};
struct WhileAttrs {
  FunctionPtr cond, body;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("cond", s.cond);
    f("body", s.body);
  }
};
// scan(carry..., xs...): body(carry..., x...) -> (carry..., y...); results: carry..., ys...
struct ScanAttrs {
  FunctionPtr body;
  int64_t length = 0;
  int64_t num_carry = 0;
  bool reverse = false;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("body", s.body);
    f("length", s.length);
    f("num_carry", s.num_carry);
    f("reverse", s.reverse);
  }
};
struct CheckpointNameAttrs {
  std::string name;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("name", s.name);
  }
};
struct MemoryKindAttrs {
  MemoryKind kind = MemoryKind::device;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("kind", s.kind);
  }
};
// The collectives (docs/DISTRIBUTED.md): each runs over replica groups of `group_size`
// consecutive ranks (the world's size when recorded by the Tensor API; 1: each rank alone).
struct AllReduceAttrs {
  ReduceKind reduce = ReduceKind::sum;
  int64_t group_size = 1;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("reduce", s.reduce);
    f("group_size", s.group_size);
  }
};
struct AllGatherAttrs {  // the ranks' operands concatenated along `axis`
  int64_t axis = 0;
  int64_t group_size = 1;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("axis", s.axis);
    f("group_size", s.group_size);
  }
};
struct ReduceScatterAttrs {  // reduced, then split along `axis`: each rank keeps its part
  ReduceKind reduce = ReduceKind::sum;
  int64_t axis = 0;
  int64_t group_size = 1;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("reduce", s.reduce);
    f("axis", s.axis);
    f("group_size", s.group_size);
  }
};
struct AllToAllAttrs {  // split along split_axis, part j to rank j, concatenated on concat_axis
  int64_t split_axis = 0;
  int64_t concat_axis = 0;
  int64_t group_size = 1;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("split_axis", s.split_axis);
    f("concat_axis", s.concat_axis);
    f("group_size", s.group_size);
  }
};
struct CollectiveBroadcastAttrs {  // the group's rank `root`'s operand, on every rank
  int64_t root = 0;
  int64_t group_size = 1;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("root", s.root);
    f("group_size", s.group_size);
  }
};
struct AxisIndexAttrs {  // this rank's index in its group
  int64_t group_size = 1;
  template <class S, class F>
  static void visit(S& s, F&& f) {
    f("group_size", s.group_size);
  }
};

using Attrs =
    std::variant<NoAttrs, ParameterAttrs, ConstantAttrs, IotaAttrs, CompareAttrs, ConvertAttrs,
                 BroadcastInDimAttrs, ReshapeAttrs, TransposeAttrs, SliceAttrs, DynamicSliceAttrs,
                 ConcatenateAttrs, PadAttrs, ReduceAttrs, ArgmaxAttrs, DotGeneralAttrs, GatherAttrs,
                 ScatterAttrs, CumsumAttrs, RevAttrs, SortAttrs, RandomBitsAttrs, CallAttrs,
                 CondAttrs, WhileAttrs, ScanAttrs, CheckpointNameAttrs, MemoryKindAttrs,
                 AllReduceAttrs, AllGatherAttrs, ReduceScatterAttrs, AllToAllAttrs,
                 CollectiveBroadcastAttrs, AxisIndexAttrs>;

std::string_view compare_dir_name(CompareDir d);
std::optional<CompareDir> compare_dir_from_name(std::string_view s);
std::string_view gather_mode_name(GatherMode m);
std::optional<GatherMode> gather_mode_from_name(std::string_view s);

// Structural hash of attributes (functions by their structural hash, literals by contents).
uint64_t hash_attrs(const Attrs& a);
bool attrs_equal(const Attrs& a, const Attrs& b);

}  // namespace lazax
