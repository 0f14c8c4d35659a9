// Shape rules of ops with sub-functions: call, cond, while, scan. Each checks the sub-functions'
// signatures against the operand types and names the sub-function that does not fit.
#include "common.h"

namespace lazax::shape_rules {
using namespace detail;

namespace {

std::string sig_str(const std::vector<TensorType>& params, const std::vector<TensorType>& results) {
  return "(" + types_str(params) + ") -> (" + types_str(results) + ")";
}

// Parameters of `f` must be exactly `want`; `what` names `f` (a string literal or a callable, built
// only on failure).
// (Compared in place: a call with many operands, such as assume_pure's backward, is recorded
// on every step.)
template <class What>
void check_params(OpCode op, const Function& f, const What& what, std::span<const TensorType> want,
                  const char* want_desc) {
  if (!f.takes(want.size(), [&](size_t i) -> const TensorType& { return want[i]; })) {
    shape_fail(op, text(what) + " @" + f.name() + " takes (" + types_str(f.param_types()) +
                       ") but must take " + want_desc + " (" + types_str(want) + ")");
  }
}

}  // namespace

void call(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
          std::vector<TensorType>& out) {
  const Function& f = sub_function(op, std::get<CallAttrs>(attrs).callee, "callee");
  check_params(op, f, "callee", in, "the argument types");
  out.assign(f.result_types().begin(), f.result_types().end());  // keeps the caller's capacity
}

void cond(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
          std::vector<TensorType>& out) {
  const auto& a = std::get<CondAttrs>(attrs);
  if (in.empty()) shape_fail(op, "needs an index operand (bool or i32 scalar), got none");
  const TensorType& index = in[0];
  if (index.shape.rank() != 0) {
    shape_fail(op, "index must be a scalar, got " + index.str() + "; reduce or slice it first");
  }
  if (index.dtype != DType::boolean && index.dtype != DType::i32) {
    dtype_fail(op, "index must be bool or i32, got " + index.str() + "; convert it first");
  }
  if (a.branches.empty()) shape_fail(op, "needs at least one branch");
  auto operands = in.subspan(1);
  std::vector<TensorType> results0;
  for (size_t b = 0; b < a.branches.size(); ++b) {
    const auto what = [b] { return "branch " + num(static_cast<int64_t>(b)); };
    const Function& f = sub_function(op, a.branches[b], what);
    check_params(op, f, what, operands, "the operand types");
    auto results = f.result_types();
    if (b == 0) {
      results0 = std::move(results);
    } else if (results != results0) {
      shape_fail(op, what() + " @" + f.name() + " returns (" + types_str(results) +
                         ") but branch 0 @" + a.branches[0]->name() + " returns (" +
                         types_str(results0) + "); all branches must return the same types");
    }
  }
  out = std::move(results0);
}

void while_loop(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
                std::vector<TensorType>& out) {
  const auto& a = std::get<WhileAttrs>(attrs);
  const Function& c = sub_function(op, a.cond, "cond");
  const Function& body = sub_function(op, a.body, "body");
  check_params(op, c, "cond", in, "the carry types");
  auto cr = c.result_types();
  if (cr.size() != 1 || cr[0] != TensorType{DType::boolean, Shape{}}) {
    shape_fail(op,
               "cond @" + c.name() + " returns (" + types_str(cr) + ") but must return one bool[]");
  }
  check_params(op, body, "body", in, "the carry types");
  auto br = body.result_types();
  if (!std::equal(br.begin(), br.end(), in.begin(), in.end())) {
    shape_fail(op, "body @" + body.name() + " returns (" + types_str(br) +
                       ") but must return the carry types (" + types_str(in) + ")");
  }
  out.assign(in.begin(), in.end());
}

void scan(OpCode op, std::span<const TensorType> in, const Attrs& attrs,
          std::vector<TensorType>& out) {
  const auto& a = std::get<ScanAttrs>(attrs);
  const Function& body = sub_function(op, a.body, "body");
  if (a.length < 0) shape_fail(op, "length must be >= 0, got " + num(a.length));
  if (a.num_carry < 0 || a.num_carry > static_cast<int64_t>(in.size())) {
    shape_fail(op, "num_carry " + num(a.num_carry) + " must be in [0, " +
                       num(static_cast<int64_t>(in.size())) + "] for operands (" + types_str(in) +
                       ")");
  }
  const auto nc = static_cast<size_t>(a.num_carry);
  auto carry = in.subspan(0, nc);
  std::vector<TensorType> want(carry.begin(), carry.end());
  for (size_t i = nc; i < in.size(); ++i) {
    const TensorType& x = in[i];
    if (x.shape.rank() == 0 || x.shape[0] != a.length) {
      shape_fail(op, "xs operand " + num(static_cast<int64_t>(i - nc)) + " is " + x.str() +
                         " but must have leading dimension length = " + num(a.length));
    }
    TensorType slice = x;
    slice.shape.dims().erase(slice.shape.dims().begin());
    want.push_back(slice);
  }
  check_params(op, body, "body", want, "the carry types then the xs slice types");
  auto br = body.result_types();
  if (br.size() < nc || !std::equal(carry.begin(), carry.end(), br.begin())) {
    shape_fail(op, "body @" + body.name() + " returns (" + types_str(br) +
                       ") but must return the carry types (" + types_str(carry) +
                       ") followed by the y types; signature " + sig_str(body.param_types(), br));
  }
  out.assign(carry.begin(), carry.end());
  for (size_t i = nc; i < br.size(); ++i) {
    TensorType y = br[i];
    y.shape.dims().insert(y.shape.dims().begin(), a.length);
    out.push_back(y);
  }
}

}  // namespace lazax::shape_rules
