// cond / switch / while_loop / scan: bodies traced with the pure-function machinery, captured
// tensors appended as operands, one control-flow node recorded.
#include "lazax/autodiff/control_flow.h"

#include "lazax/autodiff/function_ad.h"
#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/tape.h"
#include "lazax/ir/builder.h"

namespace lazax {
namespace {

struct Traced {
  FunctionPtr fn;
  Tensors captures;
};

Traced trace_body(const std::string& name, const Tensors& example, const BranchFn& body) {
  PureOptions opts;
  opts.name = name;
  auto e = detail::trace_pure(opts, name, example, body);
  if (!e->arg_writebacks.empty() || !e->outer_writebacks.empty()) {
    throw ValueError("[" + name + "] the body updates a tensor in place (" +
                     std::to_string(e->arg_writebacks.size() + e->outer_writebacks.size()) +
                     " write-backs); control-flow bodies must be pure: return the new value");
  }
  return {e->fn, e->captures};
}

// A function with params (explicit..., all_captures...) that calls `t.fn` on the explicit params
// and its own captures, which sit at `offset` among all captures.
FunctionPtr widen(const Traced& t, const std::string& name,
                  const std::vector<TensorType>& explicit_types,
                  const std::vector<TensorType>& all_capture_types, size_t offset) {
  Builder b(name);
  std::vector<ValueRef> ex, caps;
  for (const auto& ty : explicit_types) ex.push_back(b.param(ty));
  for (const auto& ty : all_capture_types) caps.push_back(b.param(ty));
  std::vector<ValueRef> args = ex;
  for (size_t i = 0; i < t.captures.size(); ++i) args.push_back(caps[offset + i]);
  return b.build(b.add_multi(OpCode::call, args, CallAttrs{t.fn}));
}

std::vector<TensorType> types_of(const Tensors& ts) {
  std::vector<TensorType> out;
  for (const Tensor& t : ts) {
    if (!t.defined()) throw ValueError("[control flow] an operand is undefined");
    out.push_back({t.dtype(), t.shape()});
  }
  return out;
}

std::string type_list(const std::vector<TensorType>& ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].str();
  return s + ")";
}

}  // namespace

Tensors switch_(const Tensor& index, const std::vector<BranchFn>& branches,
                const Tensors& operands) {
  if (branches.empty()) throw ValueError("[cond] needs at least one branch");
  if (index.dim() != 0 || (index.dtype() != DType::boolean && !is_integer(index.dtype())))
    throw DTypeError("[cond] the predicate must be a bool or integer scalar, got " +
                     index.type_str());
  std::vector<Traced> traced;
  for (size_t i = 0; i < branches.size(); ++i)
    traced.push_back(trace_body("cond_branch" + std::to_string(i), operands, branches[i]));
  for (size_t i = 1; i < traced.size(); ++i) {
    if (traced[i].fn->result_types() != traced[0].fn->result_types()) {
      throw ShapeError("[cond] branch " + std::to_string(i) + " returns " +
                       type_list(traced[i].fn->result_types()) + " but branch 0 returns " +
                       type_list(traced[0].fn->result_types()) +
                       "; both branches must return the same number, dtypes and shapes");
    }
  }
  Tensors caps;
  std::vector<size_t> offsets;
  for (const Traced& t : traced) {
    offsets.push_back(caps.size());
    for (const Tensor& c : t.captures) caps.push_back(c);
  }
  std::vector<TensorType> ex = types_of(operands), cap_types = types_of(caps);
  CondAttrs attrs;
  for (size_t i = 0; i < traced.size(); ++i)
    attrs.branches.push_back(
        widen(traced[i], "branch" + std::to_string(i), ex, cap_types, offsets[i]));
  // cond takes a bool or i32 index; others are clamped first (an i64 index of 2^32 is past the
  // last branch, not 0).
  Tensor idx = index.dtype() == DType::boolean || index.dtype() == DType::i32
                   ? index
                   : clamp(index, 0.0, static_cast<double>(branches.size() - 1)).to(DType::i32);
  Tensors in = {idx};
  for (const Tensor& t : operands) in.push_back(t);
  for (const Tensor& t : caps) in.push_back(t);
  return record_op(OpCode::cond, in, attrs);
}

Tensors cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
             const Tensors& operands) {
  if (pred.dim() != 0 || (pred.dtype() != DType::boolean && !is_integer(pred.dtype())))
    throw DTypeError("[cond] the predicate must be a bool or integer scalar, got " +
                     pred.type_str() + "; compare first (e.g. gt(x, 0))");
  // An integer predicate is true when nonzero (as in C and lax.cond), not an index: 2 is true.
  Tensor is_true = pred.dtype() == DType::boolean ? pred : ne(pred, zeros({}, pred.dtype()));
  return switch_(is_true, {false_fn, true_fn}, operands);  // index 0 is the false branch
}

Tensors while_loop(const BranchFn& cond_fn, const BranchFn& body, const Tensors& init) {
  Traced c = trace_body("while_cond", init, cond_fn);
  Traced b = trace_body("while_body", init, body);
  std::vector<TensorType> carry = types_of(init);
  if (c.fn->result_types().size() != 1 ||
      c.fn->result_types()[0] != TensorType{DType::boolean, Shape{}})
    throw ShapeError("[while_loop] cond_fn must return one bool scalar, got " +
                     type_list(c.fn->result_types()));
  if (b.fn->result_types() != carry)
    throw ShapeError("[while_loop] body must return the carry types " + type_list(carry) +
                     ", got " + type_list(b.fn->result_types()));
  // The carry grows by the captures, which pass through the loop unchanged.
  Tensors caps = c.captures;
  for (const Tensor& t : b.captures) caps.push_back(t);
  std::vector<TensorType> cap_types = types_of(caps);
  std::vector<TensorType> all = carry;
  for (const auto& t : cap_types) all.push_back(t);
  FunctionPtr cf = widen(c, "cond", carry, cap_types, 0);
  // body: returns new carry ++ the captures unchanged.
  Builder bb("body");
  std::vector<ValueRef> ps;
  ps.reserve(all.size());
  for (const auto& t : all) ps.push_back(bb.param(t));
  std::vector<ValueRef> args(ps.begin(), ps.begin() + static_cast<long>(carry.size()));
  for (size_t i = 0; i < b.captures.size(); ++i)
    args.push_back(ps[carry.size() + c.captures.size() + i]);
  std::vector<ValueRef> outs = bb.add_multi(OpCode::call, args, CallAttrs{b.fn});
  for (size_t i = carry.size(); i < all.size(); ++i) outs.push_back(ps[i]);
  FunctionPtr bf = bb.build(outs);
  Tensors in = init;
  for (const Tensor& t : caps) in.push_back(t);
  Tensors r = record_op(OpCode::while_, in, WhileAttrs{cf, bf});
  r.resize(init.size());
  return r;
}

std::pair<Tensors, Tensors> scan(const ScanFn& body, const Tensors& init, const Tensors& xs,
                                 bool reverse) {
  return scan(body, init, xs, ScanOptions{.reverse = reverse});
}

std::pair<Tensors, Tensors> scan(const ScanFn& body, const Tensors& init, const Tensors& xs,
                                 const ScanOptions& options) {
  const bool reverse = options.reverse;
  int64_t length = -1;
  Tensors x_slices;
  for (const Tensor& x : xs) {
    if (x.dim() == 0)
      throw ShapeError("[scan] xs must have a leading dimension, got " + x.type_str());
    if (length >= 0 && x.size(0) != length)
      throw ShapeError("[scan] all xs need the same leading dimension, got " +
                       std::to_string(length) + " and " + x.type_str());
    length = x.size(0);
    std::vector<int64_t> dims = x.sizes();
    x_slices.push_back(zeros(std::vector<int64_t>(dims.begin() + 1, dims.end()), x.dtype()));
  }
  if (length < 0)
    throw ValueError("[scan] needs at least one xs tensor (use fori_loop for a counted loop)");
  size_t nc = init.size();
  size_t ny = 0;
  Tensors example = init;
  for (const Tensor& x : x_slices) example.push_back(x);
  Traced b = trace_body("scan_body", example, [&](const Tensors& a) {
    Tensors c(a.begin(), a.begin() + static_cast<long>(nc)),
        x(a.begin() + static_cast<long>(nc), a.end());
    auto [nc_out, ys] = body(c, x);
    if (nc_out.size() != nc)
      throw ShapeError("[scan] body returned " + std::to_string(nc_out.size()) + " carries for " +
                       std::to_string(nc));
    ny = ys.size();
    Tensors out = nc_out;
    for (const Tensor& y : ys) out.push_back(y);
    return out;
  });
  std::vector<TensorType> carry = types_of(init);
  auto res = b.fn->result_types();
  for (size_t i = 0; i < nc; ++i) {
    if (res[i] != carry[i]) {
      throw ShapeError("[scan] the body's carry " + std::to_string(i) + " comes back as " +
                       res[i].str() + " but went in as " + carry[i].str() +
                       "; a carry must keep its dtype and shape");
    }
  }
  // Captures ride along as extra carries (returned unchanged).
  Builder bb("scan_body");
  std::vector<TensorType> cap_types = types_of(b.captures);
  std::vector<ValueRef> cps, caps, xps;
  for (const auto& t : carry) cps.push_back(bb.param(t));
  for (const auto& t : cap_types) caps.push_back(bb.param(t));
  for (const Tensor& x : x_slices) xps.push_back(bb.param({x.dtype(), x.shape()}));
  std::vector<ValueRef> args = cps;
  for (auto v : xps) args.push_back(v);
  for (auto v : caps) args.push_back(v);
  std::vector<ValueRef> r = bb.add_multi(OpCode::call, args, CallAttrs{b.fn});
  std::vector<ValueRef> outs(r.begin(), r.begin() + static_cast<long>(nc));
  for (auto v : caps) outs.push_back(v);
  for (size_t i = nc; i < r.size(); ++i) outs.push_back(r[i]);
  FunctionPtr body_fn = bb.build(outs);
  Tensors in = init;
  for (const Tensor& t : b.captures) in.push_back(t);
  for (const Tensor& x : xs) in.push_back(x);
  ScanAttrs attrs{body_fn, length, static_cast<int64_t>(nc + b.captures.size()), reverse};
  // (On the tape: the forward scan stacks what the backward keeps, so the forward runs once.)
  Tensors all = autodiff::scan_with_vjp(attrs, in, options.remat.get(), options.prevent_cse);
  Tensors final_carry(all.begin(), all.begin() + static_cast<long>(nc));
  Tensors ys(all.begin() + static_cast<long>(nc + b.captures.size()), all.end());
  (void)ny;
  return {final_carry, ys};
}

Tensors fori_loop(int64_t lower, int64_t upper,
                  const std::function<Tensors(const Tensor& i, const Tensors& carry)>& body,
                  const Tensors& init) {
  if (upper <= lower) return init;
  Tensor idx = arange(upper - lower, DType::i32) + static_cast<double>(lower);
  auto [c, ys] =
      scan([&](const Tensors& carry,
               const Tensors& x) { return std::make_pair(body(x[0], carry), Tensors{}); },
           init, {idx});
  return c;
}

}  // namespace lazax
