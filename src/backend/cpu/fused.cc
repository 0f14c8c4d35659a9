// Fusion groups and their register programs (fused_code.h); run_fused splits a group's tiles
// over the OpenMP pool in static chunks (the same results for any thread count: each element is
// computed by one sequence of ops).
#include "fused.h"

#include <hwy/aligned_allocator.h>

#include <algorithm>

#include "fused_code.h"
#include "fusible.h"
#include "kernels.h"
#include "lazax/core/error.h"

namespace lazax::cpu {
namespace {

constexpr int64_t kTile = 1024;              // elements per tile of a flat kernel
constexpr int64_t kMinFusedElements = 1024;  // below this the per-node kernels are as good
constexpr int64_t kMaxRowLen = 16384;        // longer rows are reduced by run_reduce

// The fused op of a node (fusible.h; `scalar` for broadcast_in_dim); false if none.
bool fusible_op(const Node& n, FOp& op) {
  op = fused_form(n.op).op;
  if (n.op == OpCode::compare) {
    switch (n.attr<CompareAttrs>().dir) {
      case CompareDir::lt:
        op = FOp::lt;
        break;
      case CompareDir::le:
        op = FOp::le;
        break;
      case CompareDir::gt:
        op = FOp::gt;
        break;
      case CompareDir::ge:
        op = FOp::ge;
        break;
      case CompareDir::eq:
        op = FOp::eq;
        break;
      case CompareDir::ne:
        op = FOp::ne;
        break;
    }
  }
  return op != FOp::none;
}

bool is_float(DType t) { return t == DType::f32 || t == DType::bf16; }

// The dtypes a fused member computes with: registers hold f32 (bf16 values widened, fused_code.h)
// or 1 and 0 for bool. An op computes in one float dtype; predicates (compare, is_finite) make
// bool; select reads a bool first operand; convert goes between f32, bf16 and bool either way.
bool fused_member_types(const Function& f, const Node& n) {
  const DType out = n.outputs[0].dtype;
  if (n.op == OpCode::convert) {
    const DType in = f.type(n.operands[0]).dtype;
    return in != out && (is_float(in) || in == DType::boolean) &&
           (is_float(out) || out == DType::boolean);
  }
  const bool predicate = n.op == OpCode::compare || n.op == OpCode::is_finite;
  if (predicate ? out != DType::boolean : !is_float(out)) return false;
  const DType flt = predicate ? f.type(n.operands[0]).dtype : out;
  if (!is_float(flt)) return false;
  for (size_t k = 0; k < n.operands.size(); ++k) {
    const DType want = n.op == OpCode::select && k == 0 ? DType::boolean : flt;
    if (f.type(n.operands[k]).dtype != want) return false;
  }
  return true;
}

// Whether op's f32 result on bf16 values is a bf16 value already (it picks, negates or rounds to
// an integer one of them), so a bf16 member needs no round_bf16 after it.
bool exact_on_bf16(FOp op) {
  switch (op) {
    case FOp::max:
    case FOp::min:
    case FOp::neg:
    case FOp::abs:
    case FOp::relu:
    case FOp::sign:
    case FOp::floor:
    case FOp::ceil:
    case FOp::round:
    case FOp::clamp:
    case FOp::select:
    case FOp::convert:
    case FOp::reduce_max:
    case FOp::reduce_min:
      return true;
    default:
      return false;
  }
}

bool is_reduction(OpCode op) {
  return op == OpCode::reduce_sum || op == OpCode::reduce_max || op == OpCode::reduce_min;
}

// A broadcast_in_dim of a non-scalar the kernel reads directly: 1 when the operand is the
// leading dims of the result (a value per row), 2 when it is the trailing dims (a bias), else 0.
// Size-1 operand dims after the leading ones (before the trailing ones) broadcast as if absent:
// [rows, 1] over [rows, cols] is a value per row (the API's keepdim form).
int broadcast_kind(const Node& n, const Shape& in) {
  const auto& a = n.attr<BroadcastInDimAttrs>();
  const Shape& out = n.outputs[0].shape;
  size_t k = in.rank(), r = out.rank(), lead_k = k, first = 0;
  while (lead_k > 0 && in[lead_k - 1] == 1) --lead_k;
  while (first < k && in[first] == 1) ++first;
  bool lead = true, trail = true;
  for (size_t i = 0; i < lead_k; ++i)
    lead = lead && a.broadcast_dimensions[i] == static_cast<int64_t>(i) && in[i] == out[i];
  for (size_t i = first; i < k; ++i) {
    trail = trail && a.broadcast_dimensions[i] == static_cast<int64_t>(r - k + i) &&
            in[i] == out[r - k + i];
  }
  return lead ? 1 : (trail ? 2 : 0);
}

// The shape a group's elements range over, and its rows: a rowwise group (one with a reduction
// over the last axis) also holds values of one element per row, of shape `row` or `row_keep`
// (the same with a trailing 1: a reduction kept as [..., 1], as the API records it).
struct GroupShape {
  Shape full, row, row_keep;
  bool rowwise = false;
  bool can_be_rowwise() const { return full.rank() >= 2 && full[full.rank() - 1] <= kMaxRowLen; }
  bool is_row(const Shape& s) const { return rowwise && s != full && (s == row || s == row_keep); }
};

GroupShape group_shape(const Shape& full) {
  GroupShape g;
  g.full = full;
  if (full.rank() >= 1) {
    Dims d(full.dims().begin(), full.dims().end() - 1);
    g.row = Shape(d);
    d.push_back(1);
    g.row_keep = Shape(d);
  }
  return g;
}

enum class Cls : uint8_t { none, full, row };

// The class a node would have as a member of a group of shape `g`: `full` for a value of the
// group's shape, `row` for a value per row (a reduction over the last axis, or an op on such
// values; rowwise groups only, or groups that can become rowwise for a reduction); none when
// it cannot join. `in_row(v)` says whether operand v is a row-class member of the group.
template <class InRow>
Cls member_class(const Function& f, const Node& n, const GroupShape& g, InRow in_row) {
  if (n.op == OpCode::reshape) {  // a row value between [rows] and [rows, 1]: the same register
    return in_row(n.operands[0]) && g.is_row(n.outputs[0].shape) && is_float(n.outputs[0].dtype)
               ? Cls::row
               : Cls::none;
  }
  FOp op;
  if (!fusible_op(n, op) || n.outputs.size() != 1) return Cls::none;
  if (g.full.numel() < kMinFusedElements) return Cls::none;
  const TensorType& out = n.outputs[0];
  if (is_reduction(n.op)) {
    const TensorType& x = f.type(n.operands[0]);
    const auto& axes = n.attr<ReduceAttrs>().axes;
    const bool last = axes.size() == 1 && axes[0] == static_cast<int64_t>(g.full.rank()) - 1;
    return last && g.can_be_rowwise() && is_float(x.dtype) && x.dtype == out.dtype &&
                   x.shape == g.full && !in_row(n.operands[0])
               ? Cls::row
               : Cls::none;
  }
  Cls cls = out.shape == g.full ? Cls::full : Cls::none;
  if (g.is_row(out.shape)) cls = Cls::row;
  if (cls == Cls::none || !fused_member_types(f, n)) return Cls::none;
  for (size_t k = 0; k < n.operands.size(); ++k) {
    const TensorType& t = f.type(n.operands[k]);
    if (t.shape.rank() == 0) continue;  // a scalar: broadcast
    if (n.op == OpCode::broadcast_in_dim) {
      // full from a row value (expanded over its row), from [rows] (a value per row) or from a
      // bias over the trailing dims; nothing else
      if (cls != Cls::full) return Cls::none;
      int kind = broadcast_kind(n, t.shape);
      if (kind == 0 || (in_row(n.operands[k]) && (kind != 1 || !g.is_row(t.shape))))
        return Cls::none;
      continue;
    }
    const bool row_operand = in_row(n.operands[k]);
    if (cls == Cls::full && (t.shape != g.full || row_operand)) return Cls::none;
    if (cls == Cls::row && !g.is_row(t.shape)) return Cls::none;
  }
  return cls;
}

// An elementwise op whose first operand is a computed register read last here writes its result
// over it: the tile's working set shrinks (a softmax row stays in L1). Registers are SSA until
// here; a renamed result is renamed in the instructions after it.
void reuse_registers(FusedKernel& k, const std::vector<bool>& reg_row) {
  const auto regs = static_cast<size_t>(k.num_regs);
  std::vector<size_t> last_use(regs, 0);
  std::vector<bool> pinned(regs, false), computed(regs, false);
  auto reads_registers = [](const FInstr& in) { return in.op > FOp::load_cols; };  // not inputs
  for (size_t i = 0; i < k.code.size(); ++i) {
    const FInstr& in = k.code[i];
    if (reads_registers(in))
      for (int32_t r : {in.a, in.b, in.c})
        if (r >= 0) last_use[static_cast<size_t>(r)] = i;
    computed[static_cast<size_t>(in.dst)] = in.op > FOp::expand;
  }
  for (int32_t r : k.out_regs) pinned[static_cast<size_t>(r)] = true;
  std::vector<int32_t> phys(regs);
  for (size_t r = 0; r < regs; ++r) phys[r] = static_cast<int32_t>(r);
  for (size_t i = 0; i < k.code.size(); ++i) {
    FInstr& in = k.code[i];
    if (!reads_registers(in)) continue;
    const int32_t a = in.a;  // the SSA name
    for (int32_t* r : {&in.a, &in.b, &in.c})
      if (*r >= 0) *r = phys[static_cast<size_t>(*r)];
    const bool elementwise = in.op > FOp::expand && in.op < FOp::reduce_sum;
    if (!elementwise || in.a_row || a < 0) continue;
    const auto sa = static_cast<size_t>(a), sd = static_cast<size_t>(in.dst);
    if (!computed[sa] || pinned[sa] || pinned[sd] || last_use[sa] != i ||
        reg_row[sa] != reg_row[sd])
      continue;
    phys[sd] = in.a;
    in.dst = in.a;
  }
}

}  // namespace

std::vector<FusionGroup> fuse_groups(const Function& f) {
  const auto& nodes = f.nodes();
  std::vector<int32_t> group_of(nodes.size(), -1);
  std::vector<bool> is_row(nodes.size(), false);
  std::vector<FusionGroup> groups;
  std::vector<GroupShape> shapes;
  // The converts to f32 that a bf16 dot writes itself (gemm_fold.cc: the unrounded f32 sum, no
  // bf16 result written) stay out of the groups.
  std::vector<bool> folds_into_dot(nodes.size(), false);
  for (int32_t c : dot_convert_folds(f, std::vector<int32_t>(nodes.size(), -1)))
    if (c >= 0) folds_into_dot[static_cast<size_t>(c)] = true;
  int32_t open = -1;
  for (size_t i = static_cast<size_t>(f.num_params()); i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    bool reads_open = false;
    for (ValueRef v : n.operands)
      reads_open = reads_open || (open >= 0 && group_of[static_cast<size_t>(v.node)] == open);
    if (folds_into_dot[i]) continue;  // (it reads a dot: never the open group)
    auto in_row = [&](ValueRef v) {
      return open >= 0 && group_of[static_cast<size_t>(v.node)] == open &&
             is_row[static_cast<size_t>(v.node)];
    };
    auto join = [&](int32_t g, Cls cls) {
      group_of[i] = g;
      is_row[i] = cls == Cls::row;
      groups[static_cast<size_t>(g)].members.push_back(static_cast<int32_t>(i));
      if (is_reduction(n.op)) shapes[static_cast<size_t>(g)].rowwise = true;
    };
    if (open >= 0) {
      Cls cls = member_class(f, n, shapes[static_cast<size_t>(open)], in_row);
      if (cls != Cls::none) {
        join(open, cls);
        continue;
      }
    }
    if (reads_open) open = -1;  // an outside reader: the group runs before it, closed
    if (n.outputs.size() != 1) continue;
    // A new group: over the operand's shape for a reduction, else over the node's own shape.
    GroupShape g =
        group_shape(is_reduction(n.op) ? f.type(n.operands[0]).shape : n.outputs[0].shape);
    Cls cls = member_class(f, n, g, [](ValueRef) { return false; });
    if (cls == Cls::none) continue;
    open = static_cast<int32_t>(groups.size());
    groups.push_back({});
    shapes.push_back(g);
    join(open, cls);
  }
  std::vector<FusionGroup> out;
  for (auto& g : groups) {
    const Node& n = f.node(g.members[0]);
    // a lone op still runs faster here than in the interpreter, but a lone broadcast, reduction
    // or convert between f32 and bf16 has its own kernel (convert.cc's is one parallel loop)
    const bool own_kernel = n.op == OpCode::broadcast_in_dim || is_reduction(n.op) ||
                            (n.op == OpCode::convert && is_float(n.outputs[0].dtype) &&
                             is_float(f.type(n.operands[0]).dtype));
    if (g.members.size() > 1 || !own_kernel) out.push_back(std::move(g));
  }
  return out;
}

namespace {

// Builds a group's register program, member by member (plan_fused).
class KernelBuilder {
 public:
  KernelBuilder(const Function& f, const FusionGroup& g, const std::vector<int32_t>& slot_base,
                std::vector<int32_t>& in_slots)
      : f_(f),
        slot_base_(slot_base),
        in_slots_(in_slots),
        k_(std::make_shared<FusedKernel>()),
        reg_of_node_(f.nodes().size(), -1),
        expand_of_(f.nodes().size(), -1),
        expanded_(f.nodes().size(), -1) {
    // The group's shape: that of its full-class members (a reduction's operand).
    const Node& first = f.node(g.members[0]);
    gs_ = group_shape(is_reduction(first.op) ? f.type(first.operands[0]).shape
                                             : first.outputs[0].shape);
    for (int32_t m : g.members) gs_.rowwise = gs_.rowwise || is_reduction(f.node(m).op);
    size_tiles();
  }

  // The instructions of member m, after those of the members before it.
  void add_member(int32_t m) {
    const Node& n = f_.node(m);
    if (n.op == OpCode::reshape) {  // a row value under another shape: its register
      reg_of_node_[static_cast<size_t>(m)] = reg_for(n.operands[0]);
      return;
    }
    if (n.op == OpCode::broadcast_in_dim) {
      add_broadcast(m, n);
      return;
    }
    FOp op = FOp::load;
    fusible_op(n, op);
    const DType out = n.outputs[0].dtype;
    const bool row = gs_.is_row(n.outputs[0].shape);
    if (n.op == OpCode::convert && is_float(out) && is_float(f_.type(n.operands[0]).dtype)) {
      // bf16 -> f32 is the same register (it holds the widened value); f32 -> bf16 a rounding
      const int32_t a = operand_reg(n.operands[0]);
      reg_of_node_[static_cast<size_t>(m)] = out == DType::f32 ? a : round_to_bf16(a, row);
      return;
    }
    FInstr in{op, row};
    const bool row_operands = op == FOp::add || op == FOp::sub || op == FOp::mul || op == FOp::div;
    take_operand(n.operands[0], row_operands, in.a, in.a_row);
    if (n.operands.size() > 1) take_operand(n.operands[1], row_operands, in.b, in.b_row);
    if (n.operands.size() > 2) in.c = operand_reg(n.operands[2]);
    in.dst = new_reg(in.row);
    k_->code.push_back(in);
    const bool round = out == DType::bf16 && !exact_on_bf16(op);
    reg_of_node_[static_cast<size_t>(m)] = round ? round_to_bf16(in.dst, row) : in.dst;
  }

  // The members read outside the group become outputs (written in place where they can be).
  void add_outputs(const FusionGroup& g, const std::vector<bool>& used_outside,
                   std::vector<int32_t>& out_slots) {
    FusedKernel& k = *k_;
    k.out_of_reg.assign(static_cast<size_t>(k.num_regs), -1);
    std::vector<bool> computed(static_cast<size_t>(k.num_regs), false);
    for (const FInstr& in : k.code) computed[static_cast<size_t>(in.dst)] = in.op > FOp::load_cols;
    for (int32_t m : g.members) {
      if (!used_outside[static_cast<size_t>(m)]) continue;
      const int32_t reg = expand_of_[static_cast<size_t>(m)] >= 0
                              ? materialize(m)
                              : reg_of_node_[static_cast<size_t>(m)];
      const TensorType& t = f_.node(m).outputs[0];
      auto& direct = k.out_of_reg[static_cast<size_t>(reg)];
      if (static_cast<size_t>(reg) < computed.size() && computed[static_cast<size_t>(reg)] &&
          !reg_row_[static_cast<size_t>(reg)] && t.dtype == DType::f32 && direct < 0)
        direct = static_cast<int32_t>(k.out_regs.size());
      out_slots.push_back(slot_base_[static_cast<size_t>(m)]);
      k.out_regs.push_back(reg);
      // (by the member's shape: a row value may live in a scalar register)
      k.out_row.push_back(gs_.is_row(t.shape));
      k.out_types.push_back(t);
    }
    k.out_of_reg.resize(static_cast<size_t>(k.num_regs), -1);
  }

  // Which inputs are read tile by tile only (may give their buffer to an output), then the
  // registers' reuse.
  std::shared_ptr<FusedKernel> finish() {
    FusedKernel& k = *k_;
    for (const FInstr& in : k.code) {  // an input read by rows or broadcast: not tile-local
      const bool load = in.op <= FOp::load_cols;
      if (load && (in.op != FOp::load || in.row)) k.in_full[static_cast<size_t>(in.a)] = 0;
    }
    for (const FInstr& in : k.prologue) k.in_full[static_cast<size_t>(in.a)] = 0;
    k.out_donor.assign(k.out_types.size(), -1);
    reuse_registers(k, reg_row_);
    return k_;
  }

 private:
  void size_tiles() {
    FusedKernel& k = *k_;
    k.numel = gs_.full.numel();
    if (gs_.rowwise) {
      k.row_len = gs_.full[gs_.full.rank() - 1];
      k.rows = k.numel / k.row_len;
      k.tile = std::max<int64_t>(1, kTile / k.row_len) * k.row_len;
    } else {
      k.tile = kTile;
    }
    k.reg_floats = (k.tile + kRegPad - 1) / kRegPad * kRegPad;
  }

  // A new register holding register a's values rounded to bf16.
  int32_t round_to_bf16(int32_t a, bool row) {
    FInstr in{FOp::round_bf16, row};
    in.a = a;
    in.dst = new_reg(row);
    k_->code.push_back(in);
    return in.dst;
  }

  int32_t new_reg(bool row) {
    reg_row_.push_back(row);
    return k_->num_regs++;
  }

  int32_t add_input(ValueRef v) {
    in_slots_.push_back(slot_base_[static_cast<size_t>(v.node)] + v.index);
    const TensorType& t = f_.type(v);
    k_->in_full.push_back(t.dtype == DType::f32 && t.shape == gs_.full);  // (cleared in finish)
    return static_cast<int32_t>(in_slots_.size()) - 1;
  }

  // The register of value v: a member's, or an input's, loaded once (a scalar in the prologue).
  int32_t reg_for(ValueRef v) {
    if (int32_t r = reg_of_node_[static_cast<size_t>(v.node)]; r >= 0) return r;
    for (auto& [ref, reg] : input_regs_)
      if (ref == v) return reg;
    const TensorType& t = f_.type(v);
    const bool scalar = t.shape.rank() == 0, pred = t.dtype == DType::boolean;
    const bool row = !scalar && gs_.is_row(t.shape);
    FInstr ld{pred ? FOp::load_bool : FOp::load, row, t.dtype == DType::bf16, new_reg(row),
              add_input(v)};
    if (scalar) {
      ld.op = pred ? FOp::scalar_bool : FOp::scalar;
      k_->prologue.push_back(ld);
    } else {
      k_->code.push_back(ld);
    }
    input_regs_.emplace_back(v, ld.dst);
    return ld.dst;
  }

  // A broadcast of a row value over its rows is read by add/sub/mul/div as is (a_row/b_row);
  // other readers get it written out by an expand, made once.
  int32_t materialize(int32_t node) {
    auto& r = expanded_[static_cast<size_t>(node)];
    if (r < 0) {
      FInstr ex{FOp::expand, false, false, new_reg(false), expand_of_[static_cast<size_t>(node)]};
      k_->code.push_back(ex);
      r = ex.dst;
    }
    return r;
  }

  int32_t operand_reg(ValueRef v) {
    return expand_of_[static_cast<size_t>(v.node)] >= 0 ? materialize(v.node) : reg_for(v);
  }

  void take_operand(ValueRef v, bool row_operands, int32_t& reg, bool& row) {
    const int32_t e = expand_of_[static_cast<size_t>(v.node)];
    if (row_operands && e >= 0) {
      reg = e;
      row = true;
    } else {
      reg = operand_reg(v);
    }
  }

  // A broadcast member: a row value of the group over its row (read by its readers), a load by
  // rows or columns of an input, or a scalar's register.
  void add_broadcast(int32_t m, const Node& n) {
    const TensorType& t0 = f_.type(n.operands[0]);
    if (t0.shape.rank() == 0) {
      reg_of_node_[static_cast<size_t>(m)] = reg_for(n.operands[0]);  // a scalar register
      return;
    }
    const int32_t in_reg = reg_of_node_[static_cast<size_t>(n.operands[0].node)];
    if (in_reg >= 0) {  // a row value of the group, over its row
      expand_of_[static_cast<size_t>(m)] = in_reg;
      return;
    }
    const int kind = broadcast_kind(n, t0.shape);
    const int64_t per = kind == 1 ? n.outputs[0].numel() / t0.numel() : t0.numel();
    FInstr ld{kind == 1 ? FOp::load_rows : FOp::load_cols,
              false,
              t0.dtype == DType::bf16,
              new_reg(false),
              add_input(n.operands[0]),
              -1,
              -1,
              per};
    k_->code.push_back(ld);
    reg_of_node_[static_cast<size_t>(m)] = ld.dst;
  }

  const Function& f_;
  const std::vector<int32_t>& slot_base_;
  std::vector<int32_t>& in_slots_;
  std::shared_ptr<FusedKernel> k_;
  GroupShape gs_;
  std::vector<int32_t> reg_of_node_;
  std::vector<bool> reg_row_;
  std::vector<std::pair<ValueRef, int32_t>> input_regs_;
  std::vector<int32_t> expand_of_, expanded_;
};

}  // namespace

std::shared_ptr<StepState> plan_fused(const Function& f, const FusionGroup& g,
                                      const std::vector<int32_t>& slot_base,
                                      const std::vector<bool>& used_outside,
                                      std::vector<int32_t>& in_slots,
                                      std::vector<int32_t>& out_slots) {
  KernelBuilder b(f, g, slot_base, in_slots);
  for (int32_t m : g.members) b.add_member(m);
  b.add_outputs(g, used_outside, out_slots);
  return b.finish();
}

int64_t plan_fused_donors(Step& step, const std::vector<char>& param_slot) {
  auto& k = static_cast<FusedKernel&>(*step.state);
  int64_t donated = 0;
  std::vector<char> taken(step.in.size(), 0);
  for (size_t o = 0; o < k.out_types.size(); ++o) {
    const TensorType& t = k.out_types[o];
    if (k.out_row[o] || t.dtype != DType::f32) continue;
    for (size_t i = 0; i < step.in.size(); ++i) {
      const int32_t slot = step.in[i];
      bool ok = k.in_full[i] && !taken[i] && !param_slot[static_cast<size_t>(slot)] &&
                std::binary_search(step.release.begin(), step.release.end(), slot);
      for (size_t j = 0; j < step.in.size() && ok; ++j)  // every read of the slot is tile-local
        ok = step.in[j] != slot || k.in_full[j];
      if (!ok) continue;
      for (size_t j = 0; j < step.in.size(); ++j) taken[j] = taken[j] || step.in[j] == slot;
      k.out_donor[o] = static_cast<int32_t>(i);
      donated += static_cast<int64_t>(t.bytes());
      break;
    }
  }
  return donated;
}

void run_fused(const Step& step, Frame& frame) {
  const auto& k = static_cast<const FusedKernel&>(*step.state);
  std::vector<const void*> ins;
  ins.reserve(step.in.size());
  for (int32_t s : step.in) ins.push_back(frame[static_cast<size_t>(s)].buffer.data());
  std::vector<Literal> outs;
  std::vector<void*> out_ptrs;
  std::vector<char> donated(k.out_types.size(), 0);
  outs.reserve(k.out_types.size());
  out_ptrs.reserve(k.out_types.size());
  for (size_t o = 0; o < k.out_types.size(); ++o) {
    const TensorType& t = k.out_types[o];
    // In place: the output takes the buffer of an input that dies here, when nothing but this
    // run's frame holds it (each tile reads its own elements of it before writing them).
    if (const int32_t d = k.out_donor[o]; d >= 0) {
      const Buffer& b = frame[static_cast<size_t>(step.in[static_cast<size_t>(d)])].buffer;
      if (b.use_count() == 1 && b.memory_kind() == MemoryKind::device) {
        outs.emplace_back(t, b);
        donated[o] = 1;
        out_ptrs.push_back(outs.back().buffer.data());
        continue;
      }
    }
    outs.emplace_back(t, allocate_output(t.bytes()));
    out_ptrs.push_back(outs.back().buffer.data());
  }
  const int64_t tiles = (k.numel + k.tile - 1) / k.tile;
  const int64_t rows_per_tile = k.row_len > 0 ? k.tile / k.row_len : 0;
  const size_t reg_floats = static_cast<size_t>(k.num_regs) * static_cast<size_t>(k.reg_floats);
#pragma omp parallel if (tiles > 16)
  {
    auto regs = hwy::AllocateAligned<float>(reg_floats);
    std::vector<const float*> ptr(static_cast<size_t>(k.num_regs));
    run_fused_prologue(k, ins.data(), regs.get());
#pragma omp for schedule(static)
    for (int64_t i = 0; i < tiles; ++i) {
      Tile t;
      t.i0 = i * k.tile;
      t.n = std::min(k.tile, k.numel - t.i0);
      if (rows_per_tile > 0) {
        t.r0 = i * rows_per_tile;
        t.nr = t.n / k.row_len;
      }
      t.donated = donated.data();
      run_fused_tile(k, ins.data(), out_ptrs.data(), regs.get(), ptr.data(), t);
    }
  }
  for (size_t o = 0; o < outs.size(); ++o)
    frame[static_cast<size_t>(step.out[o])] = std::move(outs[o]);
}

}  // namespace lazax::cpu
