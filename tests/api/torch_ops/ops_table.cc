// Driver ops for the Tensor methods and the elementwise functions of lazax/api/tensor.h.
// Each row names the declarations it calls; cases (cases_*.py) pick rows by id.
#include "driver.h"

namespace lazax::torch_ops {
namespace {

using Fn = Tensor (*)(const Tensor&);
using Fn2 = Tensor (*)(const Tensor&, const Tensor&);

OpRow unary(std::string_view id, std::string_view sig, Fn f) {
  return {id, {sig}, [f](Call& c) { return f(c.x(0)); }};
}
OpRow binary(std::string_view id, std::string_view sig, Fn2 f) {
  return {id, {sig}, [f](Call& c) { return f(c.x(0), c.x(1)); }};
}

// The handle an in-place op rebinds: input 0 (every case has inputs of its own).
Tensor target(const Call& c) { return c.x(0); }

}  // namespace

void add_tensor_rows(std::vector<OpRow>& r) {
  // ---- reading values: each result holds what the accessor returned ----
  r.push_back({"literal", {"Tensor::Tensor(Literal)", "Tensor::literal(Loc) const"}, [](Call& c) {
                 return Tensor(c.x(0).literal());
               }});
  r.push_back({"item", {"Tensor::item(Loc) const"}, [](Call& c) {
                 return scalar_tensor(c.x(0).item(), DType::f64);
               }});
  r.push_back({"to_vector", {"Tensor::to_vector(Loc) const"}, [](Call& c) {
                 return from_vector<double>(c.x(0).to_vector<double>(), c.x(0).sizes());
               }});
  r.push_back({"bool", {"Tensor::operator bool() const"}, [](Call& c) {
                 return bool_values({static_cast<bool>(c.x(0))});
               }});
  r.push_back({"sizes",
               {"Tensor::sizes() const", "Tensor::dim() const", "Tensor::numel() const"},
               [](Call& c) {
                 std::vector<int64_t> v = {c.x(0).dim(), c.x(0).numel()};
                 for (int64_t s : c.x(0).sizes()) v.push_back(s);
                 return int_values(v);
               }});
  r.push_back({"size", {"Tensor::size(int64_t) const"}, [](Call& c) {
                 return int_values({c.x(0).size(c.i("dim"))});
               }});
  r.push_back(
      {"to", {"Tensor::to(DType) const"}, [](Call& c) { return c.x(0).to(c.dtype("dtype")); }});

  // ---- in-place ops: the result is the rebound handle ----
  r.push_back(
      {"add_", {"Tensor::add_(const Tensor&)"}, [](Call& c) { return target(c).add_(c.x(1)); }});
  r.push_back({"add_scalar_", {"Tensor::add_(double)"}, [](Call& c) {
                 return target(c).add_(c.d("value"));
               }});
  r.push_back(
      {"sub_", {"Tensor::sub_(const Tensor&)"}, [](Call& c) { return target(c).sub_(c.x(1)); }});
  r.push_back(
      {"mul_", {"Tensor::mul_(const Tensor&)"}, [](Call& c) { return target(c).mul_(c.x(1)); }});
  r.push_back({"mul_scalar_", {"Tensor::mul_(double)"}, [](Call& c) {
                 return target(c).mul_(c.d("value"));
               }});
  r.push_back({"div_scalar_", {"Tensor::div_(double)"}, [](Call& c) {
                 return target(c).div_(c.d("value"));
               }});
  r.push_back(
      {"copy_", {"Tensor::copy_(const Tensor&)"}, [](Call& c) { return target(c).copy_(c.x(1)); }});
  r.push_back({"zero_", {"Tensor::zero_()"}, [](Call& c) { return target(c).zero_(); }});
  r.push_back(
      {"fill_", {"Tensor::fill_(double)"}, [](Call& c) { return target(c).fill_(c.d("value")); }});
  // An in-place op is seen through every copy of the handle (tensor.h's aliasing rule).
  r.push_back({"add_seen_by_copy", {"Tensor::add_(const Tensor&)"}, [](Call& c) {
                 Tensor copy = c.x(0);
                 target(c).add_(c.x(1));
                 return copy;
               }});

  // ---- shape methods ----
  r.push_back({"Tensor::reshape",
               {"Tensor::reshape(const std::vector<int64_t>&) const"},
               [](Call& c) { return c.x(0).reshape(c.ints("shape")); }});
  r.push_back({"Tensor::view", {"Tensor::view(const std::vector<int64_t>&) const"}, [](Call& c) {
                 return c.x(0).view(c.ints("shape"));
               }});
  r.push_back({"Tensor::flatten", {"Tensor::flatten(int64_t,int64_t) const"}, [](Call& c) {
                 return c.x(0).flatten(c.i("start_dim"), c.i("end_dim"));
               }});
  r.push_back({"Tensor::transpose", {"Tensor::transpose(int64_t,int64_t) const"}, [](Call& c) {
                 return c.x(0).transpose(c.i("dim0"), c.i("dim1"));
               }});
  r.push_back({"Tensor::permute",
               {"Tensor::permute(const std::vector<int64_t>&) const"},
               [](Call& c) { return c.x(0).permute(c.ints("dims")); }});
  r.push_back({"Tensor::t", {"Tensor::t() const"}, [](Call& c) { return c.x(0).t(); }});
  r.push_back({"Tensor::unsqueeze", {"Tensor::unsqueeze(int64_t) const"}, [](Call& c) {
                 return c.x(0).unsqueeze(c.i("dim"));
               }});
  r.push_back({"Tensor::squeeze", {"Tensor::squeeze(int64_t) const"}, [](Call& c) {
                 return c.x(0).squeeze(c.i("dim"));
               }});
  r.push_back({"Tensor::expand",
               {"Tensor::expand(const std::vector<int64_t>&) const"},
               [](Call& c) { return c.x(0).expand(c.ints("shape")); }});
  r.push_back(
      {"Tensor::slice", {"Tensor::slice(int64_t,int64_t,int64_t,int64_t) const"}, [](Call& c) {
         return c.x(0).slice(c.i("dim"), c.i("start"), c.i("end"), c.i("step"));
       }});
  r.push_back({"Tensor::narrow", {"Tensor::narrow(int64_t,int64_t,int64_t) const"}, [](Call& c) {
                 return c.x(0).narrow(c.i("dim"), c.i("start"), c.i("length"));
               }});
  r.push_back({"Tensor::select", {"Tensor::select(int64_t,int64_t) const"}, [](Call& c) {
                 return c.x(0).select(c.i("dim"), c.i("index"));
               }});
  r.push_back({"Tensor::operator[]", {"Tensor::operator[](int64_t) const"}, [](Call& c) {
                 return c.x(0)[c.i("index")];
               }});
  r.push_back({"Tensor::contiguous", {"Tensor::contiguous() const"}, [](Call& c) {
                 return c.x(0).contiguous();
               }});
  r.push_back({"Tensor::clone", {"Tensor::clone() const"}, [](Call& c) { return c.x(0).clone(); }});
  r.push_back(
      {"Tensor::detach", {"Tensor::detach() const"}, [](Call& c) { return c.x(0).detach(); }});
  // A clone is a new value: an in-place op on it leaves the original as it was.
  r.push_back({"clone_is_a_copy", {"Tensor::clone() const"}, [](Call& c) {
                 Tensor y = c.x(0).clone();
                 y.add_(c.x(1));
                 return c.x(0);
               }});

  // ---- reduction methods ----
  r.push_back({"Tensor::sum", {"Tensor::sum(const std::vector<int64_t>&,bool) const"}, [](Call& c) {
                 return c.x(0).sum(c.ints("dims"), c.b("keepdim", false));
               }});
  r.push_back({"Tensor::mean",
               {"Tensor::mean(const std::vector<int64_t>&,bool) const"},
               [](Call& c) { return c.x(0).mean(c.ints("dims"), c.b("keepdim", false)); }});
  r.push_back({"Tensor::max", {"Tensor::max(int64_t,bool) const"}, [](Call& c) {
                 return c.x(0).max(c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"Tensor::amax",
               {"Tensor::amax(const std::vector<int64_t>&,bool) const"},
               [](Call& c) { return c.x(0).amax(c.ints("dims"), c.b("keepdim", false)); }});
  r.push_back({"Tensor::argmax", {"Tensor::argmax(int64_t,bool) const"}, [](Call& c) {
                 return c.x(0).argmax(c.i("dim"), c.b("keepdim", false));
               }});

  // ---- elementwise ----
  r.push_back(binary("add", "add(const Tensor&,const Tensor&)", add));
  r.push_back(binary("sub", "sub(const Tensor&,const Tensor&)", sub));
  r.push_back(binary("mul", "mul(const Tensor&,const Tensor&)", mul));
  r.push_back(binary("div", "div(const Tensor&,const Tensor&)", div));
  r.push_back(binary("pow", "pow(const Tensor&,const Tensor&)", pow));
  r.push_back(binary("atan2", "atan2(const Tensor&,const Tensor&)", atan2));
  r.push_back({"pow_scalar", {"pow(const Tensor&,double)"}, [](Call& c) {
                 return pow(c.x(0), c.d("exponent"));
               }});
  r.push_back(binary("maximum", "maximum(const Tensor&,const Tensor&)", maximum));
  r.push_back(binary("minimum", "minimum(const Tensor&,const Tensor&)", minimum));
  r.push_back({"operator+", {"operator+(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) + c.x(1);
               }});
  r.push_back({"operator-", {"operator-(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) - c.x(1);
               }});
  r.push_back({"operator*", {"operator*(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) * c.x(1);
               }});
  r.push_back({"operator/", {"operator/(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) / c.x(1);
               }});
  // Host scalars (C++ double: a floating scalar, as a Python float in PyTorch).
  r.push_back({"tensor+scalar", {"operator+(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) + c.d("value");
               }});
  r.push_back({"tensor-scalar", {"operator-(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) - c.d("value");
               }});
  r.push_back({"tensor*scalar", {"operator*(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) * c.d("value");
               }});
  r.push_back({"tensor/scalar", {"operator/(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) / c.d("value");
               }});
  r.push_back({"scalar+tensor", {"operator+(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") + c.x(0);
               }});
  r.push_back({"scalar-tensor", {"operator-(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") - c.x(0);
               }});
  r.push_back({"scalar*tensor", {"operator*(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") * c.x(0);
               }});
  r.push_back({"scalar/tensor", {"operator/(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") / c.x(0);
               }});
  // Integer host scalars (a C++ integer: an integer scalar, as a Python int in PyTorch).
  r.push_back({"tensor+int", {"operator+(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) + c.i("value");
               }});
  r.push_back({"tensor-int", {"operator-(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) - c.i("value");
               }});
  r.push_back({"tensor*int", {"operator*(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) * c.i("value");
               }});
  r.push_back({"tensor/int", {"operator/(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) / c.i("value");
               }});
  r.push_back({"int+tensor", {"operator+(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") + c.x(0);
               }});
  r.push_back({"int-tensor", {"operator-(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") - c.x(0);
               }});
  r.push_back({"int*tensor", {"operator*(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") * c.x(0);
               }});
  r.push_back({"int/tensor", {"operator/(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") / c.x(0);
               }});
  r.push_back({"tensor<int", {"operator<(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) < c.i("value");
               }});
  r.push_back({"tensor>int", {"operator>(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) > c.i("value");
               }});
  r.push_back({"where_int", {"where(const Tensor&,const Tensor&,I)"}, [](Call& c) {
                 return where(c.x(0), c.x(1), c.i("value"));
               }});
  r.push_back(
      {"pow_int", {"pow(const Tensor&,I)"}, [](Call& c) { return pow(c.x(0), c.i("exponent")); }});
  r.push_back(
      {"add_int_", {"Tensor::add_(I)"}, [](Call& c) { return target(c).add_(c.i("value")); }});
  r.push_back(
      {"mul_int_", {"Tensor::mul_(I)"}, [](Call& c) { return target(c).mul_(c.i("value")); }});
  r.push_back({"integer_scalar", {"integer_scalar(const Tensor&,int64_t)"}, [](Call& c) {
                 return integer_scalar(c.x(0), c.i("value"));
               }});
  r.push_back(
      {"Tensor::operator-", {"Tensor::operator-() const"}, [](Call& c) { return -c.x(0); }});
  r.push_back(unary("neg", "neg(const Tensor&)", neg));
  r.push_back(unary("abs", "abs(const Tensor&)", abs));
  r.push_back(unary("sign", "sign(const Tensor&)", sign));
  r.push_back(unary("exp", "exp(const Tensor&)", exp));
  r.push_back(unary("log", "log(const Tensor&)", log));
  r.push_back(unary("log1p", "log1p(const Tensor&)", log1p));
  r.push_back(unary("expm1", "expm1(const Tensor&)", expm1));
  r.push_back(unary("tanh", "tanh(const Tensor&)", tanh));
  r.push_back(unary("sigmoid", "sigmoid(const Tensor&)", sigmoid));
  r.push_back(unary("sqrt", "sqrt(const Tensor&)", sqrt));
  r.push_back(unary("rsqrt", "rsqrt(const Tensor&)", rsqrt));
  r.push_back(unary("sin", "sin(const Tensor&)", sin));
  r.push_back(unary("cos", "cos(const Tensor&)", cos));
  r.push_back(unary("erf", "erf(const Tensor&)", erf));
  r.push_back(unary("floor", "floor(const Tensor&)", floor));
  r.push_back(unary("round", "round(const Tensor&)", round));
  r.push_back(unary("square", "square(const Tensor&)", square));
  r.push_back(unary("ceil", "ceil(const Tensor&)", ceil));
  r.push_back(unary("erfinv", "erfinv(const Tensor&)", erfinv));
  r.push_back(unary("exp2", "exp2(const Tensor&)", exp2));
  r.push_back(unary("tan", "tan(const Tensor&)", tan));
  r.push_back(unary("isfinite", "isfinite(const Tensor&)", isfinite));
  r.push_back(unary("bitwise_not", "bitwise_not(const Tensor&)", bitwise_not));
  r.push_back(binary("fmod", "fmod(const Tensor&,const Tensor&)", fmod));
  r.push_back(binary("remainder", "remainder(const Tensor&,const Tensor&)", remainder));
  r.push_back(binary("bitwise_and", "bitwise_and(const Tensor&,const Tensor&)", bitwise_and));
  r.push_back(binary("bitwise_or", "bitwise_or(const Tensor&,const Tensor&)", bitwise_or));
  r.push_back(binary("bitwise_xor", "bitwise_xor(const Tensor&,const Tensor&)", bitwise_xor));
  r.push_back(binary("bitwise_left_shift", "bitwise_left_shift(const Tensor&,const Tensor&)",
                     bitwise_left_shift));
  r.push_back(binary("bitwise_right_shift", "bitwise_right_shift(const Tensor&,const Tensor&)",
                     bitwise_right_shift));
  r.push_back({"clamp",
               {"clamp(const Tensor&,std::optional<double>,std::optional<double>)"},
               [](Call& c) { return clamp(c.x(0), c.maybe("min"), c.maybe("max")); }});
  r.push_back(binary("eq", "eq(const Tensor&,const Tensor&)", eq));
  r.push_back(binary("ne", "ne(const Tensor&,const Tensor&)", ne));
  r.push_back(binary("lt", "lt(const Tensor&,const Tensor&)", lt));
  r.push_back(binary("le", "le(const Tensor&,const Tensor&)", le));
  r.push_back(binary("gt", "gt(const Tensor&,const Tensor&)", gt));
  r.push_back(binary("ge", "ge(const Tensor&,const Tensor&)", ge));
  r.push_back({"operator<", {"operator<(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) < c.x(1);
               }});
  r.push_back({"operator>", {"operator>(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) > c.x(1);
               }});
  r.push_back({"tensor<scalar", {"operator<(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) < c.d("value");
               }});
  r.push_back({"tensor>scalar", {"operator>(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) > c.d("value");
               }});
  r.push_back({"where", {"where(const Tensor&,const Tensor&,const Tensor&)"}, [](Call& c) {
                 return where(c.x(0), c.x(1), c.x(2));
               }});
  r.push_back({"where_scalar", {"where(const Tensor&,const Tensor&,double)"}, [](Call& c) {
                 return where(c.x(0), c.x(1), c.d("value"));
               }});
}

}  // namespace lazax::torch_ops
