// The fused elementwise kernel: a register program over tiles of kTile elements. Each
// instruction runs over a whole tile (a loop the compiler vectorizes), tiles are split over the
// OpenMP pool in static chunks (the same results for any thread count: each element is computed
// by one sequence of ops).
#include "fused.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "lazax/core/error.h"
#include "vmath.h"

namespace lazax::cpu {
namespace {

constexpr int64_t kTile = 1024;
constexpr int64_t kMinFusedElements = 1024;  // below this the per-node kernels are as good

enum class Op : uint8_t {
  load,
  load_bool,
  scalar,
  scalar_bool,
  load_rows,
  load_cols,
  add,
  sub,
  mul,
  div,
  max,
  min,
  neg,
  abs,
  relu,
  exp,
  log,
  tanh,
  logistic,
  sqrt,
  rsqrt,
  erf,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  select
};

struct Instr {
  Op op;
  // Registers; for the loads, a is the input index and `len`, for load_rows/load_cols, the size
  // of the trailing dims the operand is repeated over / the operand's size.
  int32_t dst, a = -1, b = -1, c = -1;
  int64_t len = 0;
};

bool fusible_op(const Node& n, Op& op) {
  switch (n.op) {
    case OpCode::add:
      op = Op::add;
      return true;
    case OpCode::sub:
      op = Op::sub;
      return true;
    case OpCode::mul:
      op = Op::mul;
      return true;
    case OpCode::div:
      op = Op::div;
      return true;
    case OpCode::max:
      op = Op::max;
      return true;
    case OpCode::min:
      op = Op::min;
      return true;
    case OpCode::neg:
      op = Op::neg;
      return true;
    case OpCode::abs:
      op = Op::abs;
      return true;
    case OpCode::relu:
      op = Op::relu;
      return true;
    case OpCode::exp:
      op = Op::exp;
      return true;
    case OpCode::log:
      op = Op::log;
      return true;
    case OpCode::tanh:
      op = Op::tanh;
      return true;
    case OpCode::logistic:
      op = Op::logistic;
      return true;
    case OpCode::sqrt:
      op = Op::sqrt;
      return true;
    case OpCode::rsqrt:
      op = Op::rsqrt;
      return true;
    case OpCode::erf:
      op = Op::erf;
      return true;
    case OpCode::select:
      op = Op::select;
      return true;
    case OpCode::compare:
      switch (n.attr<CompareAttrs>().dir) {
        case CompareDir::lt:
          op = Op::lt;
          return true;
        case CompareDir::le:
          op = Op::le;
          return true;
        case CompareDir::gt:
          op = Op::gt;
          return true;
        case CompareDir::ge:
          op = Op::ge;
          return true;
        case CompareDir::eq:
          op = Op::eq;
          return true;
        case CompareDir::ne:
          op = Op::ne;
          return true;
      }
      return false;
    case OpCode::broadcast_in_dim:
      op = Op::scalar;
      return true;
    default:
      return false;
  }
}

// A broadcast_in_dim of a non-scalar the kernel reads directly: 1 when the operand is the
// leading dims of the result (a value per row), 2 when it is the trailing dims (a bias), else 0.
int broadcast_kind(const Node& n, const Shape& in) {
  const auto& a = n.attr<BroadcastInDimAttrs>();
  const Shape& out = n.outputs[0].shape;
  size_t k = in.rank(), r = out.rank();
  bool lead = true, trail = true;
  for (size_t i = 0; i < k; ++i) {
    lead = lead && a.broadcast_dimensions[i] == static_cast<int64_t>(i) && in[i] == out[i];
    trail = trail && a.broadcast_dimensions[i] == static_cast<int64_t>(r - k + i) &&
            in[i] == out[r - k + i];
  }
  return lead ? 1 : (trail ? 2 : 0);
}

// Whether node `i` can be a member: a fusible op on f32 values (bool for compare's result and
// select's predicate) of `shape`, each operand of that shape or a scalar.
bool fusible(const Function& f, const Node& n, const Shape& shape) {
  Op op;
  if (!fusible_op(n, op) || n.outputs.size() != 1 || n.outputs[0].shape != shape) return false;
  if (shape.numel() < kMinFusedElements) return false;
  DType want_out = n.op == OpCode::compare ? DType::boolean : DType::f32;
  if (n.outputs[0].dtype != want_out) return false;
  for (size_t k = 0; k < n.operands.size(); ++k) {
    const TensorType& t = f.type(n.operands[k]);
    DType want = n.op == OpCode::select && k == 0 ? DType::boolean : DType::f32;
    if (t.dtype != want) return false;
    if (n.op == OpCode::broadcast_in_dim) {
      if (t.shape.rank() != 0 && broadcast_kind(n, t.shape) == 0) return false;
    } else if (t.shape != shape && t.shape.rank() != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

struct FusedKernel : StepState {
  std::vector<Instr> code;
  int32_t num_regs = 0;
  int64_t numel = 0;
  std::vector<int32_t> out_regs;
  std::vector<DType> out_dtypes;
  std::vector<TensorType> out_types;
};

std::vector<FusionGroup> fuse_groups(const Function& f) {
  const auto& nodes = f.nodes();
  std::vector<int32_t> group_of(nodes.size(), -1);
  std::vector<FusionGroup> groups;
  int32_t open = -1;
  Shape open_shape;
  for (size_t i = static_cast<size_t>(f.num_params()); i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    bool reads_open = false;
    for (ValueRef v : n.operands)
      reads_open = reads_open || (open >= 0 && group_of[static_cast<size_t>(v.node)] == open);
    if (open >= 0 && fusible(f, n, open_shape)) {
      group_of[i] = open;
      groups[static_cast<size_t>(open)].members.push_back(static_cast<int32_t>(i));
      continue;
    }
    if (reads_open) open = -1;  // an outside reader: the group runs before it, closed
    if (!n.outputs.empty() && fusible(f, n, n.outputs[0].shape)) {
      open = static_cast<int32_t>(groups.size());
      open_shape = n.outputs[0].shape;
      groups.push_back({{static_cast<int32_t>(i)}});
      group_of[i] = open;
    }
  }
  std::vector<FusionGroup> out;
  for (auto& g : groups)
    if (g.members.size() > 1 || f.node(g.members[0]).op != OpCode::broadcast_in_dim)
      out.push_back(std::move(g));  // a lone op still runs faster here than in the interpreter
  return out;
}

std::shared_ptr<StepState> plan_fused(const Function& f, const FusionGroup& g,
                                      const std::vector<int32_t>& slot_base,
                                      const std::vector<bool>& used_outside,
                                      std::vector<int32_t>& in_slots,
                                      std::vector<int32_t>& out_slots) {
  auto k = std::make_shared<FusedKernel>();
  std::vector<int32_t> reg_of_node(f.nodes().size(), -1);
  std::vector<std::pair<ValueRef, int32_t>> input_regs;
  auto reg_for = [&](ValueRef v) {
    int32_t r = reg_of_node[static_cast<size_t>(v.node)];
    if (r >= 0) return r;
    for (auto& [ref, reg] : input_regs)
      if (ref == v) return reg;
    int32_t reg = k->num_regs++;
    int32_t input = static_cast<int32_t>(in_slots.size());
    bool scalar = f.type(v).shape.rank() == 0;
    bool pred = f.type(v).dtype == DType::boolean;
    in_slots.push_back(slot_base[static_cast<size_t>(v.node)] + v.index);
    Op load = pred ? (scalar ? Op::scalar_bool : Op::load_bool) : (scalar ? Op::scalar : Op::load);
    k->code.push_back({load, reg, input});
    input_regs.emplace_back(v, reg);
    return reg;
  };
  for (int32_t m : g.members) {
    const Node& n = f.node(m);
    Op op;
    fusible_op(n, op);
    const TensorType& t0 = f.type(n.operands[0]);
    if (n.op == OpCode::broadcast_in_dim && t0.shape.rank() != 0) {
      int kind = broadcast_kind(n, t0.shape);
      int32_t input = static_cast<int32_t>(in_slots.size());
      in_slots.push_back(slot_base[static_cast<size_t>(n.operands[0].node)] + n.operands[0].index);
      int64_t per = kind == 1 ? n.outputs[0].numel() / t0.numel() : t0.numel();
      Instr ld{kind == 1 ? Op::load_rows : Op::load_cols, k->num_regs++, input, -1, -1, per};
      k->code.push_back(ld);
      reg_of_node[static_cast<size_t>(m)] = ld.dst;
      continue;
    }
    int32_t a = reg_for(n.operands[0]);
    if (n.op == OpCode::broadcast_in_dim) {
      reg_of_node[static_cast<size_t>(m)] = a;  // a scalar register already is broadcast
      continue;
    }
    Instr in{op, k->num_regs++, a};
    if (n.operands.size() > 1) in.b = reg_for(n.operands[1]);
    if (n.operands.size() > 2) in.c = reg_for(n.operands[2]);
    k->code.push_back(in);
    reg_of_node[static_cast<size_t>(m)] = in.dst;
  }
  for (int32_t m : g.members) {
    if (!used_outside[static_cast<size_t>(m)]) continue;
    out_slots.push_back(slot_base[static_cast<size_t>(m)]);
    k->out_regs.push_back(reg_of_node[static_cast<size_t>(m)]);
    k->out_types.push_back(f.node(m).outputs[0]);
  }
  k->numel = f.node(g.members.back()).outputs[0].numel();
  return k;
}

namespace {

// Runs the program over elements [i0, i0 + n) with registers `regs` (num_regs x kTile).
void run_tile(const FusedKernel& k, const std::vector<const void*>& ins,
              const std::vector<void*>& outs, float* regs, int64_t i0, int64_t n) {
  auto R = [&](int32_t r) { return regs + static_cast<int64_t>(r) * kTile; };
  for (const Instr& in : k.code) {
    float* d = R(in.dst);
    const void* src = in.op <= Op::load_cols ? ins[static_cast<size_t>(in.a)] : nullptr;
    if (in.op == Op::load) {
      std::memcpy(d, static_cast<const float*>(src) + i0, static_cast<size_t>(n) * 4);
      continue;
    }
    if (in.op == Op::load_bool) {
      const bool* p = static_cast<const bool*>(src) + i0;
      for (int64_t i = 0; i < n; ++i) d[i] = p[i] ? 1.0f : 0.0f;
      continue;
    }
    if (in.op == Op::load_rows) {  // element i reads value (i0 + i) / len: runs of len
      const float* p = static_cast<const float*>(src) + i0 / in.len;
      int64_t i = 0, first = std::min(n, in.len - i0 % in.len);
      for (;;) {  // (one division per tile, not per element: a division costs ~40 cycles)
        std::fill(d + i, d + i + first, *p++);
        i += first;
        if (i >= n) break;
        first = std::min(n - i, in.len);
      }
      continue;
    }
    if (in.op == Op::load_cols) {  // element i reads value (i0 + i) % len
      const float* p = static_cast<const float*>(src);
      int64_t j = i0 % in.len;
      for (int64_t i = 0; i < n; ++i) {
        d[i] = p[j];
        if (++j == in.len) j = 0;
      }
      continue;
    }
    if (in.op == Op::scalar || in.op == Op::scalar_bool) {
      float v = in.op == Op::scalar ? *static_cast<const float*>(src)
                                    : (*static_cast<const bool*>(src) ? 1.0f : 0.0f);
      std::fill(d, d + n, v);
      continue;
    }
    const float* a = R(in.a);
    const float* b = in.b >= 0 ? R(in.b) : nullptr;
    const float* c = in.c >= 0 ? R(in.c) : nullptr;
    switch (in.op) {
#define LAZAX_LOOP(expr)                         \
  for (int64_t i = 0; i < n; ++i) d[i] = (expr); \
  break;
      case Op::add:
        LAZAX_LOOP(a[i] + b[i])
      case Op::sub:
        LAZAX_LOOP(a[i] - b[i])
      case Op::mul:
        LAZAX_LOOP(a[i] * b[i])
      case Op::div:
        LAZAX_LOOP(a[i] / b[i])
      case Op::max:
        LAZAX_LOOP(
            std::isnan(a[i]) || std::isnan(b[i])
                ? NAN
                : (a[i] == b[i] ? (std::signbit(a[i]) ? b[i] : a[i]) : (a[i] > b[i] ? a[i] : b[i])))
      case Op::min:
        LAZAX_LOOP(
            std::isnan(a[i]) || std::isnan(b[i])
                ? NAN
                : (a[i] == b[i] ? (std::signbit(a[i]) ? a[i] : b[i]) : (a[i] < b[i] ? a[i] : b[i])))
      case Op::neg:
        LAZAX_LOOP(-a[i])
      case Op::abs:
        LAZAX_LOOP(std::fabs(a[i]))
      case Op::relu:  // as the reference: NaN and -0.0 kept
        LAZAX_LOOP(a[i] < 0.0f ? 0.0f : a[i])
      case Op::exp:  // (vmath.h: SIMD with libm's special cases)
        vexp(a, d, n);
        break;
      case Op::log:
        LAZAX_LOOP(std::log(a[i]))
      case Op::tanh:
        vtanh(a, d, n);
        break;
      case Op::logistic:  // as the reference: 1 / (1 + e^-x), e^x / (1 + e^x) below 0
        vlogistic(a, d, n);
        break;
      case Op::sqrt:
        LAZAX_LOOP(std::sqrt(a[i]))
      case Op::rsqrt:
        LAZAX_LOOP(1.0f / std::sqrt(a[i]))
      case Op::erf:
        LAZAX_LOOP(std::erf(a[i]))
      case Op::lt:
        LAZAX_LOOP(a[i] < b[i] ? 1.0f : 0.0f)
      case Op::le:
        LAZAX_LOOP(a[i] <= b[i] ? 1.0f : 0.0f)
      case Op::gt:
        LAZAX_LOOP(a[i] > b[i] ? 1.0f : 0.0f)
      case Op::ge:
        LAZAX_LOOP(a[i] >= b[i] ? 1.0f : 0.0f)
      case Op::eq:
        LAZAX_LOOP(a[i] == b[i] ? 1.0f : 0.0f)
      case Op::ne:
        LAZAX_LOOP(a[i] != b[i] ? 1.0f : 0.0f)
      case Op::select:
        LAZAX_LOOP(a[i] != 0.0f ? b[i] : c[i])
#undef LAZAX_LOOP
      default:
        break;
    }
  }
  for (size_t o = 0; o < outs.size(); ++o) {
    const float* r = R(k.out_regs[o]);
    if (k.out_types[o].dtype == DType::boolean) {
      bool* d = static_cast<bool*>(outs[o]) + i0;
      for (int64_t i = 0; i < n; ++i) d[i] = r[i] != 0.0f;
    } else {
      std::memcpy(static_cast<float*>(outs[o]) + i0, r, static_cast<size_t>(n) * 4);
    }
  }
}

}  // namespace

void run_fused(const Step& step, Frame& frame) {
  const auto& k = static_cast<const FusedKernel&>(*step.state);
  std::vector<const void*> ins;
  ins.reserve(step.in.size());
  for (int32_t s : step.in) ins.push_back(frame[static_cast<size_t>(s)].buffer.data());
  std::vector<Literal> outs;
  std::vector<void*> out_ptrs;
  for (const TensorType& t : k.out_types) {
    outs.emplace_back(t, allocate_output(t.bytes()));
    out_ptrs.push_back(outs.back().buffer.data());
  }
  int64_t tiles = (k.numel + kTile - 1) / kTile;
  size_t reg_floats = static_cast<size_t>(k.num_regs) * static_cast<size_t>(kTile);
#pragma omp parallel if (tiles > 16)
  {
    std::vector<float> regs(reg_floats);
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      int64_t i0 = t * kTile;
      run_tile(k, ins, out_ptrs, regs.data(), i0, std::min(kTile, k.numel - i0));
    }
  }
  for (size_t o = 0; o < outs.size(); ++o)
    frame[static_cast<size_t>(step.out[o])] = std::move(outs[o]);
}

}  // namespace lazax::cpu
