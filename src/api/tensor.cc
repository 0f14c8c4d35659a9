// Tensor handles: metadata, reading values (graph breaks), in-place rebinding, factories, sync.
#include <bit>
#include <cmath>
#include <ostream>
#include <string>
#include <unordered_map>

#include "lazax/api/tensor_impl.h"
#include "lazax/core/metrics.h"
#include "lazax/core/small_vec.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/trace_stack.h"

namespace lazax {
namespace {
[[gnu::noinline, gnu::cold]] void throw_undefined(const char* what) {
  throw ValueError(std::string("[") + what + "] the tensor is undefined (default-constructed)");
}
const TensorImpl& checked(const Tensor& t, const char* what) {
  if (!t.defined()) throw_undefined(what);
  return *t.impl();
}
std::string loc_str(const Loc& loc) {
  return std::string(loc.file_name()) + ":" + std::to_string(loc.line());
}
}  // namespace

Tensor::Tensor(Literal value) : impl_(make_pooled<TensorImpl>(std::move(value))) {}

DType Tensor::dtype() const { return checked(*this, "dtype").type().dtype; }
const Shape& Tensor::shape() const { return checked(*this, "shape").type().shape; }
uintptr_t Tensor::type_id() const {
  return reinterpret_cast<uintptr_t>(&checked(*this, "type_id").type());
}
bool Tensor::is_pending() const { return checked(*this, "is_pending").is_pending(); }
std::string Tensor::type_str() const { return defined() ? impl_->type().str() : "undefined"; }

int64_t Tensor::size(int64_t d) const {
  if (dim() == 0)
    throw ShapeError("[size] dimension " + std::to_string(d) + " of a 0-d tensor " + type_str() +
                     ": it has no dimensions");
  return shape()[static_cast<size_t>(norm_dim(d, dim(), "size"))];
}

Literal Tensor::literal(Loc loc) const {
  checked(*this, "read");
  if (impl_->is_tracer()) throw_concretization(*this, "reading its value", loc);
  if (impl_->is_pending()) Context::get().sync(SyncCause::graph_break, loc_str(loc));
  return impl_->data();
}

Tensor::operator bool() const {
  if (defined() && impl_->is_tracer()) throw_bool_conversion(*this);
  if (!defined() || numel() != 1) {
    throw ValueError("[bool] the truth value of a tensor with " +
                     std::string(defined() ? type_str() : "no value") +
                     " is ambiguous; reduce it first (t.any() or t.all()) or compare explicitly");
  }
  return item() != 0.0;
}

namespace {
// The message of both errors; `where` says where in the user's code the value was read.
std::string concretization_message(const char* kind, const Tensor& t, const char* what,
                                   const std::string& where) {
  const GraphNode& n = *t.impl()->pending().node;
  check_not_leaked(n, what);
  return std::string(kind) +
         " Abstract tracer value encountered where a concrete value is expected: " + what +
         " of a " + t.type_str() + " produced by `" + std::string(op_name(n.op)) +
         "` while tracing " + describe_trace(*n.frame) + ", " + where +
         ". Inside a traced function values are not known yet. Use lazax::cond / lazax::where "
         "for data-dependent branches, lazax::scan for loops, or pass the value as a static "
         "(non-tensor) argument. See docs/ERRORS.md#concretization.";
}
}  // namespace

void throw_concretization(const Tensor& t, const char* what, const Loc& loc) {
  throw ConcretizationError(
      concretization_message("[ConcretizationError]", t, what, "at " + loc_str(loc)));
}

void throw_bool_conversion(const Tensor& t) {
  throw TracerBoolConversionError(concretization_message(
      "[TracerBoolConversionError]", t, "converting it to bool",
      "in an `if`, `while`, `!`, `&&` or `||` of its body (C++ gives a conversion to bool no "
      "source line; `t.item()` would name it)"));
}

double Tensor::item(Loc loc) const {
  if (defined() && impl_->is_tracer()) throw_concretization(*this, "reading its value", loc);
  if (defined() && numel() != 1)
    throw ValueError("[item] needs a tensor with one element, got " + type_str() +
                     "; use to_vector() to read several values");
  return literal(loc).at(0);
}

void sync() { Context::get().sync(SyncCause::explicit_sync); }

GraphValue operand(const Tensor& t, const char* op) {
  checked(t, op);
  return use_value(*t.impl(), ValueOwner(t.impl_ptr()), op);
}

namespace {
enum GradMode : uint8_t { kGradOn, kGradOff, kGradOffForTrace };
thread_local uint8_t t_grad_mode = kGradOn;
}  // namespace
bool grad_enabled() { return t_grad_mode == kGradOn; }
void set_grad_enabled(bool on) { t_grad_mode = on ? kGradOn : kGradOff; }
bool grad_off_for_trace() { return t_grad_mode == kGradOffForTrace; }
bool grad_off_by_no_grad() { return t_grad_mode == kGradOff; }

NoGrad::NoGrad() : previous_(t_grad_mode) { t_grad_mode = kGradOff; }
NoGrad::~NoGrad() { t_grad_mode = previous_; }
EnableGrad::EnableGrad() : previous_(t_grad_mode) { t_grad_mode = kGradOn; }
EnableGrad::~EnableGrad() { t_grad_mode = previous_; }
TraceNoGrad::TraceNoGrad() : previous_(t_grad_mode) { t_grad_mode = kGradOffForTrace; }
TraceNoGrad::~TraceNoGrad() { t_grad_mode = previous_; }

void cut_pending_graph_if_large() {
  Context& ctx = Context::get();
  if (live_graph_nodes() > ctx.options().max_pending_nodes) ctx.sync(SyncCause::size_limit);
}

namespace {
bool any_requires_grad(const OpInputs& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].impl()->requires_grad) return true;
  return false;
}
const TapeHooks* g_tape_hooks = nullptr;
}  // namespace

void install_tape_hooks(const TapeHooks* hooks) { g_tape_hooks = hooks; }

const TapeHooks& tape_hooks(const char* op) {
  if (!g_tape_hooks) {
    throw ValueError(std::string("[") + op +
                     "] a tensor requires grad but the autograd tape (the autodiff layer) is not "
                     "linked; link lazax::lazax (lazax_all), not the api layer alone");
  }
  return *g_tape_hooks;
}

OpResults record_op(OpCode op, const OpInputs& inputs, SharedAttrs attrs) {
  cut_pending_graph_if_large();
  const char* name = op_name(op).data();
  GraphOperands operands;
  operands.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) operands.push_back(operand(inputs[i], name));
  const bool taped = grad_enabled() && any_requires_grad(inputs);
  GraphValue first = record(op, std::move(operands), taped ? attrs : std::move(attrs));
  // The op's results are its node's outputs, except that a folded layout op's one result may
  // be another node's value (trace/graph.h record).
  const size_t n = first.index == 0 && first.node->op == op ? first.node->outputs.size() : 1;
  OpResults out(op);
  if (n == 1) {
    out.push_back(make_pending(std::move(first)));
  } else {
    for (size_t i = 0; i < n; ++i)
      out.push_back(make_pending(GraphValue{first.node, static_cast<int32_t>(i)}));
  }
  // NOLINTNEXTLINE(bugprone-use-after-move): attrs was copied, not moved, when taped
  if (taped) tape_hooks(name).record(op, attrs, inputs, {out.begin(), out.size()});
  return out;
}

OpResults::operator Tensor() && {
  if (results_.size() != 1) {
    throw ValueError("[" + std::string(op_name(op_)) + "] has " + std::to_string(results_.size()) +
                     " results; read them as a list, not as one tensor");
  }
  return std::move(results_[0]);
}

OpResults::operator std::vector<Tensor>() && {
  return std::vector<Tensor>(std::make_move_iterator(results_.begin()),
                             std::make_move_iterator(results_.end()));
}

void throw_shape(const std::string& op, const std::string& msg) {
  throw ShapeError("[" + op + "] " + msg);
}

int64_t norm_dim(int64_t d, int64_t rank, const char* op) {
  int64_t r = d < 0 ? d + std::max<int64_t>(rank, 1) : d;  // a 0-d tensor takes 0 and -1
  if (r < 0 || r >= std::max<int64_t>(rank, 1) || (rank == 0 && d != 0 && d != -1))
    throw ShapeError(std::string("[") + op + "] dimension " + std::to_string(d) +
                     " is out of range for a tensor of rank " + std::to_string(rank));
  return rank == 0 ? 0 : r;
}

namespace {
// Host scalars in lazy mode: one data leaf per (dtype, value), shared by every use, as PyTorch's
// lazy tensors cache the device data of scalars. A step that multiplies by 0.5 a thousand times
// has one graph input for it, not a thousand (each hashed, walked and passed at every sync).
// Bounded: when full, the cache starts over (the next graph may then wire a value twice, which
// costs one recompile).
struct ScalarKey {
  uint64_t bits;
  DType dtype;
  bool operator==(const ScalarKey&) const = default;
};
struct ScalarKeyHash {
  size_t operator()(const ScalarKey& k) const {
    return std::hash<uint64_t>()(k.bits * 31 + static_cast<uint64_t>(k.dtype));
  }
};
struct ScalarLeaf {
  Literal value;
  GraphNodePtr leaf;
};
constexpr size_t kMaxScalarLeaves = 1024;
thread_local std::unordered_map<ScalarKey, ScalarLeaf, ScalarKeyHash> t_scalar_leaves;
}  // namespace

Tensor host_scalar(double v, DType dtype) {
  // Inside a function trace a host scalar is part of the program (static, like a static
  // argument); in lazy mode it is data, so that changing it never recompiles.
  if (v == 0.0 || v == 1.0 || current_frame()) {
    return record_op(OpCode::constant, {}, ConstantAttrs{Literal::scalar_of(dtype, v)});
  }
  ScalarKey key{std::bit_cast<uint64_t>(v), dtype};
  auto it = t_scalar_leaves.find(key);
  if (it == t_scalar_leaves.end()) {
    if (t_scalar_leaves.size() >= kMaxScalarLeaves) t_scalar_leaves.clear();
    Literal value = Literal::scalar_of(dtype, v);
    GraphNodePtr leaf = data_leaf(value).node;
    it = t_scalar_leaves.emplace(key, ScalarLeaf{std::move(value), std::move(leaf)}).first;
  }
  return Tensor(make_pooled<TensorImpl>(it->second.value, it->second.leaf));
}

void Tensor::mark_rebound(TensorImpl& impl) {
  if (impl.pure_capture) impl.rebound_away = true;
}

// ---- in-place: rebind the shared impl to the new value ----
bool in_place_forbidden(const Tensor& t) {
  const TensorImpl& impl = *t.impl();
  return impl.requires_grad && !impl.grad_fn && grad_enabled();
}

void throw_in_place_on_leaf(const Tensor& t, const char* op, const std::string& where) {
  throw ValueError(std::string("[") + op + "] a leaf tensor that requires grad (" + t.type_str() +
                   ") is used in an in-place op" + where +
                   " (as in PyTorch: its gradient would be of the old value). Do parameter "
                   "updates inside lazax::NoGrad (as optimizers do), or compute a new tensor "
                   "(w + 1) instead of updating w in place");
}

namespace {
Tensor& rebind(Tensor& self, const Tensor& value, const char* op) {
  checked(self, op);
  if (value.shape() != self.shape()) {
    throw ShapeError(std::string("[") + op + "] result " + value.type_str() +
                     " does not fit the in-place target " + self.type_str() +
                     "; in-place ops cannot change a tensor's shape");
  }
  TensorImpl* impl = self.impl();
  if (in_place_forbidden(self)) throw_in_place_on_leaf(self, op, "");
  Tensor v = value.dtype() == self.dtype() ? value : value.to(self.dtype());
  // Tape entries that saved this handle keep its old value.
  if (!impl->saved_by.empty()) tape_hooks(op).rebind_saved(self);
  ++impl->version;
  if (v.is_pending()) {
    impl->set_pending(v.impl()->pending(), ValueOwner(self.impl_ptr()));
    // Inside a trace an update of an outside value or an argument is written back after each
    // call, which checks it against its caller's grad mode as above, naming this op; one made
    // under the body's own NoGrad is not checked (and has no gradient history, as outside).
    if (current_frame() && !grad_off_by_no_grad()) note_rebind_op(*impl, op);
  } else {
    impl->set_data(v.impl()->data());
  }
  // The handle now stands for the new value: it takes over its place on the tape.
  if (v.impl()->grad_fn || impl->grad_fn) {
    impl->grad_fn = v.impl()->grad_fn;
    impl->output_index = v.impl()->output_index;
    impl->requires_grad = v.impl()->requires_grad;
  }
  return self;
}
}  // namespace

namespace {
// PyTorch's can_cast for the result of an in-place arithmetic op: not floating into an integer
// tensor, not anything but bool into a bool tensor (it would silently truncate).
const Tensor& castable(const Tensor& self, const Tensor& result, const char* op) {
  const DType to = self.dtype(), from = result.dtype();
  if ((is_floating(from) && !is_floating(to)) || (to == DType::boolean && from != to)) {
    throw DTypeError(std::string("[") + op + "] the result type " + std::string(dtype_name(from)) +
                     " cannot be cast to the in-place target " + self.type_str() +
                     " (as PyTorch); use the out-of-place op and convert explicitly");
  }
  return result;
}
}  // namespace

Tensor& Tensor::add_(const Tensor& o) {
  return rebind(*this, castable(*this, *this + o, "add_"), "add_");
}
Tensor& Tensor::add_(double v) { return rebind(*this, castable(*this, *this + v, "add_"), "add_"); }
Tensor& Tensor::sub_(const Tensor& o) {
  return rebind(*this, castable(*this, *this - o, "sub_"), "sub_");
}
Tensor& Tensor::mul_(const Tensor& o) {
  return rebind(*this, castable(*this, *this * o, "mul_"), "mul_");
}
Tensor& Tensor::mul_(double v) { return rebind(*this, castable(*this, *this * v, "mul_"), "mul_"); }
Tensor& Tensor::div_(double v) { return rebind(*this, castable(*this, *this / v, "div_"), "div_"); }
Tensor& Tensor::sub_(double v) { return rebind(*this, castable(*this, *this - v, "sub_"), "sub_"); }
Tensor& Tensor::div_(const Tensor& o) {
  return rebind(*this, castable(*this, *this / o, "div_"), "div_");
}
Tensor& Tensor::copy_(const Tensor& src) { return copy_as(*this, src, "copy_"); }
Tensor& copy_as(Tensor& self, const Tensor& src, const char* op) {
  checked(src, op);
  return rebind(self, broadcast_to_shape(src, self.shape(), op), op);
}
Tensor& Tensor::zero_() { return rebind(*this, zeros_like(*this), "zero_"); }
Tensor& Tensor::fill_(double v) { return rebind(*this, full(sizes(), v, dtype()), "fill_"); }

// A new handle to the same value (an identity on the tape when it requires grad): unlike x + 0,
// it keeps the dtype and the sign of zeros.
Tensor Tensor::clone() const { return lazax::reshape(*this, sizes()); }
Tensor Tensor::detach() const {
  checked(*this, "detach");
  return impl_->is_pending() ? make_pending(impl_->pending()) : Tensor(impl_->data());
}

// ---- gradients (the tape itself is the autodiff layer's: Tensor::requires_grad_ and
// Tensor::backward are defined there) ----
bool Tensor::requires_grad() const { return defined() && impl_->requires_grad; }
bool Tensor::is_leaf() const { return !defined() || !impl_->grad_fn; }
Tensor Tensor::grad() const { return defined() ? impl_->grad : Tensor(); }
void Tensor::set_grad(const Tensor& g) {
  if (!defined()) throw ValueError("[set_grad] the tensor is undefined");
  if (g.defined() && g.shape() != shape())
    throw ShapeError("[set_grad] gradient " + g.type_str() + " does not match " + type_str());
  impl_->grad = g;
}

void zero_grad(const std::vector<Tensor>& params) {
  for (const Tensor& p : params)
    if (p.defined()) p.impl()->grad = Tensor();
}

// ---- factories ----
Tensor full(const std::vector<int64_t>& shape, double value, DType dtype) {
  Tensor s = host_scalar(value, dtype);
  return broadcast_to_shape(s, Shape(shape), "full");
}
Tensor zeros(const std::vector<int64_t>& shape, DType dtype) { return full(shape, 0.0, dtype); }
Tensor ones(const std::vector<int64_t>& shape, DType dtype) { return full(shape, 1.0, dtype); }
Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.dtype()); }
Tensor ones_like(const Tensor& t) { return ones(t.sizes(), t.dtype()); }
Tensor scalar_tensor(double value, DType dtype) { return Tensor(Literal::scalar_of(dtype, value)); }
Tensor from_vector(const std::vector<float>& values) {
  return from_vector<float>(values, {static_cast<int64_t>(values.size())});
}

Tensor arange(int64_t end, DType dtype) {
  if (end < 0) throw ValueError("[arange] end must be >= 0, got " + std::to_string(end));
  return record_op(OpCode::iota, {}, IotaAttrs{dtype, Shape({end}), 0});
}

Tensor arange(double start, double end, double step, DType dtype) {
  if (step == 0 || (end - start) / step < 0)
    throw ValueError("[arange] empty or infinite range: start " + std::to_string(start) + ", end " +
                     std::to_string(end) + ", step " + std::to_string(step));
  auto n = static_cast<int64_t>(std::ceil((end - start) / step));
  Tensor i = record_op(OpCode::iota, {}, IotaAttrs{DType::f64, Shape({n}), 0});
  return (i * step + start).to(dtype);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "Tensor(undefined)";
  if (t.impl()->is_tracer()) {  // as JAX prints a tracer: what it is, not a value it lacks
    const GraphNode& n = *t.impl()->pending().node;
    check_not_leaked(n, "print");
    return os << "Tracer(" << t.type_str() << ", `" << op_name(n.op) << "` in "
              << describe_trace(*n.frame) << ")";
  }
  Literal l = t.literal();
  return os << "Tensor(" << l.str() << ")";
}

}  // namespace lazax
