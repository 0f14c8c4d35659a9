// Driver ops for Tensor's method forms, comparison operators and compound assignment (each
// compared with torch's own method or operator on the cases of its free function:
// cases_methods.py).
#include "driver.h"

namespace lazax::torch_ops {
namespace {

// The handle an in-place op rebinds: input 0 (every case has inputs of its own).
Tensor target(const Call& c) { return c.x(0); }

}  // namespace

void add_method_rows(std::vector<OpRow>& r) {
  r.push_back({"Tensor::abs", {"Tensor::abs() const"}, [](Call& c) { return c.x(0).abs(); }});
  r.push_back({"Tensor::neg", {"Tensor::neg() const"}, [](Call& c) { return c.x(0).neg(); }});
  r.push_back({"Tensor::sign", {"Tensor::sign() const"}, [](Call& c) { return c.x(0).sign(); }});
  r.push_back({"Tensor::exp", {"Tensor::exp() const"}, [](Call& c) { return c.x(0).exp(); }});
  r.push_back({"Tensor::log", {"Tensor::log() const"}, [](Call& c) { return c.x(0).log(); }});
  r.push_back({"Tensor::log1p", {"Tensor::log1p() const"}, [](Call& c) { return c.x(0).log1p(); }});
  r.push_back({"Tensor::expm1", {"Tensor::expm1() const"}, [](Call& c) { return c.x(0).expm1(); }});
  r.push_back({"Tensor::sqrt", {"Tensor::sqrt() const"}, [](Call& c) { return c.x(0).sqrt(); }});
  r.push_back({"Tensor::rsqrt", {"Tensor::rsqrt() const"}, [](Call& c) { return c.x(0).rsqrt(); }});
  r.push_back(
      {"Tensor::square", {"Tensor::square() const"}, [](Call& c) { return c.x(0).square(); }});
  r.push_back({"Tensor::sin", {"Tensor::sin() const"}, [](Call& c) { return c.x(0).sin(); }});
  r.push_back({"Tensor::cos", {"Tensor::cos() const"}, [](Call& c) { return c.x(0).cos(); }});
  r.push_back({"Tensor::tanh", {"Tensor::tanh() const"}, [](Call& c) { return c.x(0).tanh(); }});
  r.push_back(
      {"Tensor::sigmoid", {"Tensor::sigmoid() const"}, [](Call& c) { return c.x(0).sigmoid(); }});
  r.push_back({"Tensor::erf", {"Tensor::erf() const"}, [](Call& c) { return c.x(0).erf(); }});
  r.push_back({"Tensor::floor", {"Tensor::floor() const"}, [](Call& c) { return c.x(0).floor(); }});
  r.push_back({"Tensor::round", {"Tensor::round() const"}, [](Call& c) { return c.x(0).round(); }});
  r.push_back({"Tensor::relu", {"Tensor::relu() const"}, [](Call& c) { return c.x(0).relu(); }});
  r.push_back({"Tensor::silu", {"Tensor::silu() const"}, [](Call& c) { return c.x(0).silu(); }});
  r.push_back({"Tensor::gelu", {"Tensor::gelu(bool) const"}, [](Call& c) {
                 return c.x(0).gelu(c.b("tanh", false));
               }});
  r.push_back({"Tensor::softmax", {"Tensor::softmax(int64_t) const"}, [](Call& c) {
                 return c.x(0).softmax(c.i("dim"));
               }});
  r.push_back({"Tensor::log_softmax", {"Tensor::log_softmax(int64_t) const"}, [](Call& c) {
                 return c.x(0).log_softmax(c.i("dim"));
               }});
  r.push_back({"Tensor::amin",
               {"Tensor::amin(const std::vector<int64_t>&,bool) const"},
               [](Call& c) { return c.x(0).amin(c.ints("dims"), c.b("keepdim", false)); }});
  r.push_back({"Tensor::prod",
               {"Tensor::prod(const std::vector<int64_t>&,bool) const"},
               [](Call& c) { return c.x(0).prod(c.ints("dims"), c.b("keepdim", false)); }});
  r.push_back({"Tensor::logsumexp",
               {"Tensor::logsumexp(const std::vector<int64_t>&,bool) const"},
               [](Call& c) { return c.x(0).logsumexp(c.ints("dims"), c.b("keepdim", false)); }});
  r.push_back({"Tensor::cumsum", {"Tensor::cumsum(int64_t) const"}, [](Call& c) {
                 return c.x(0).cumsum(c.i("dim"));
               }});
  r.push_back({"Tensor::min", {"Tensor::min(int64_t,bool) const"}, [](Call& c) {
                 return c.x(0).min(c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"Tensor::argmin", {"Tensor::argmin(int64_t,bool) const"}, [](Call& c) {
                 return c.x(0).argmin(c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"Tensor::all", {"Tensor::all() const"}, [](Call& c) { return c.x(0).all(); }});
  r.push_back({"Tensor::any", {"Tensor::any() const"}, [](Call& c) { return c.x(0).any(); }});
  r.push_back({"Tensor::all_dim", {"Tensor::all(int64_t,bool) const"}, [](Call& c) {
                 return c.x(0).all(c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"Tensor::any_dim", {"Tensor::any(int64_t,bool) const"}, [](Call& c) {
                 return c.x(0).any(c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"Tensor::cumprod", {"Tensor::cumprod(int64_t) const"}, [](Call& c) {
                 return c.x(0).cumprod(c.i("dim"));
               }});
  r.push_back({"Tensor::cummax", {"Tensor::cummax(int64_t) const"}, [](Call& c) {
                 return std::get<1>(c.x(0).cummax(c.i("dim")));
               }});
  r.push_back({"Tensor::cummin", {"Tensor::cummin(int64_t) const"}, [](Call& c) {
                 return std::get<0>(c.x(0).cummin(c.i("dim")));
               }});
  r.push_back({"Tensor::flip", {"Tensor::flip(const std::vector<int64_t>&) const"}, [](Call& c) {
                 return c.x(0).flip(c.ints("dims"));
               }});
  r.push_back({"Tensor::sort", {"Tensor::sort(int64_t,bool) const"}, [](Call& c) {
                 return std::get<0>(c.x(0).sort(c.i("dim"), c.b("descending", false)));
               }});
  r.push_back({"Tensor::argsort", {"Tensor::argsort(int64_t,bool) const"}, [](Call& c) {
                 return c.x(0).argsort(c.i("dim"), c.b("descending", false));
               }});
  r.push_back({"Tensor::topk", {"Tensor::topk(int64_t,int64_t,bool) const"}, [](Call& c) {
                 return std::get<1>(c.x(0).topk(c.i("k"), c.i("dim"), c.b("largest", true)));
               }});
  r.push_back({"Tensor::pow", {"Tensor::pow(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).pow(c.x(1));
               }});
  r.push_back({"Tensor::pow_scalar", {"Tensor::pow(double) const"}, [](Call& c) {
                 return c.x(0).pow(c.d("exponent"));
               }});
  r.push_back({"Tensor::pow_int", {"Tensor::pow(I) const"}, [](Call& c) {
                 return c.x(0).pow(c.i("exponent"));
               }});
  r.push_back({"Tensor::ceil", {"Tensor::ceil() const"}, [](Call& c) { return c.x(0).ceil(); }});
  r.push_back(
      {"Tensor::erfinv", {"Tensor::erfinv() const"}, [](Call& c) { return c.x(0).erfinv(); }});
  r.push_back({"Tensor::exp2", {"Tensor::exp2() const"}, [](Call& c) { return c.x(0).exp2(); }});
  r.push_back({"Tensor::tan", {"Tensor::tan() const"}, [](Call& c) { return c.x(0).tan(); }});
  r.push_back({"Tensor::isfinite", {"Tensor::isfinite() const"}, [](Call& c) {
                 return c.x(0).isfinite();
               }});
  r.push_back({"Tensor::bitwise_not", {"Tensor::bitwise_not() const"}, [](Call& c) {
                 return c.x(0).bitwise_not();
               }});
  r.push_back({"Tensor::fmod", {"Tensor::fmod(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).fmod(c.x(1));
               }});
  r.push_back({"Tensor::remainder", {"Tensor::remainder(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).remainder(c.x(1));
               }});
  r.push_back({"Tensor::bitwise_and", {"Tensor::bitwise_and(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).bitwise_and(c.x(1));
               }});
  r.push_back({"Tensor::bitwise_or", {"Tensor::bitwise_or(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).bitwise_or(c.x(1));
               }});
  r.push_back({"Tensor::bitwise_xor", {"Tensor::bitwise_xor(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).bitwise_xor(c.x(1));
               }});
  r.push_back({"Tensor::bitwise_left_shift",
               {"Tensor::bitwise_left_shift(const Tensor&) const"},
               [](Call& c) { return c.x(0).bitwise_left_shift(c.x(1)); }});
  r.push_back({"Tensor::bitwise_right_shift",
               {"Tensor::bitwise_right_shift(const Tensor&) const"},
               [](Call& c) { return c.x(0).bitwise_right_shift(c.x(1)); }});
  r.push_back({"Tensor::clamp",
               {"Tensor::clamp(std::optional<double>,std::optional<double>) const"},
               [](Call& c) { return c.x(0).clamp(c.maybe("min"), c.maybe("max")); }});
  r.push_back({"Tensor::clamp_min", {"Tensor::clamp_min(double) const"}, [](Call& c) {
                 return c.x(0).clamp_min(c.d("min"));
               }});
  r.push_back({"Tensor::clamp_max", {"Tensor::clamp_max(double) const"}, [](Call& c) {
                 return c.x(0).clamp_max(c.d("max"));
               }});
  r.push_back({"Tensor::maximum", {"Tensor::maximum(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).maximum(c.x(1));
               }});
  r.push_back({"Tensor::minimum", {"Tensor::minimum(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).minimum(c.x(1));
               }});
  r.push_back({"Tensor::matmul", {"Tensor::matmul(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).matmul(c.x(1));
               }});
  r.push_back({"Tensor::add", {"Tensor::add(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).add(c.x(1));
               }});
  r.push_back({"Tensor::sub", {"Tensor::sub(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).sub(c.x(1));
               }});
  r.push_back({"Tensor::mul", {"Tensor::mul(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).mul(c.x(1));
               }});
  r.push_back({"Tensor::div", {"Tensor::div(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).div(c.x(1));
               }});
  r.push_back({"Tensor::eq", {"Tensor::eq(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).eq(c.x(1));
               }});
  r.push_back({"Tensor::ne", {"Tensor::ne(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).ne(c.x(1));
               }});
  r.push_back({"Tensor::lt", {"Tensor::lt(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).lt(c.x(1));
               }});
  r.push_back({"Tensor::le", {"Tensor::le(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).le(c.x(1));
               }});
  r.push_back({"Tensor::gt", {"Tensor::gt(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).gt(c.x(1));
               }});
  r.push_back({"Tensor::ge", {"Tensor::ge(const Tensor&) const"}, [](Call& c) {
                 return c.x(0).ge(c.x(1));
               }});
  r.push_back({"operator==", {"operator==(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) == c.x(1);
               }});
  r.push_back({"operator!=", {"operator!=(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) != c.x(1);
               }});
  r.push_back({"operator<=", {"operator<=(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) <= c.x(1);
               }});
  r.push_back({"operator>=", {"operator>=(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return c.x(0) >= c.x(1);
               }});
  r.push_back({"tensor==scalar", {"operator==(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) == c.d("value");
               }});
  r.push_back({"tensor!=scalar", {"operator!=(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) != c.d("value");
               }});
  r.push_back({"tensor<=scalar", {"operator<=(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) <= c.d("value");
               }});
  r.push_back({"tensor>=scalar", {"operator>=(const Tensor&,double)"}, [](Call& c) {
                 return c.x(0) >= c.d("value");
               }});
  r.push_back({"scalar==tensor", {"operator==(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") == c.x(0);
               }});
  r.push_back({"scalar!=tensor", {"operator!=(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") != c.x(0);
               }});
  r.push_back({"scalar<tensor", {"operator<(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") < c.x(0);
               }});
  r.push_back({"scalar<=tensor", {"operator<=(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") <= c.x(0);
               }});
  r.push_back({"scalar>tensor", {"operator>(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") > c.x(0);
               }});
  r.push_back({"scalar>=tensor", {"operator>=(double,const Tensor&)"}, [](Call& c) {
                 return c.d("value") >= c.x(0);
               }});
  r.push_back({"tensor==int", {"operator==(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) == c.i("value");
               }});
  r.push_back({"tensor!=int", {"operator!=(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) != c.i("value");
               }});
  r.push_back({"tensor<=int", {"operator<=(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) <= c.i("value");
               }});
  r.push_back({"tensor>=int", {"operator>=(const Tensor&,I)"}, [](Call& c) {
                 return c.x(0) >= c.i("value");
               }});
  r.push_back({"int==tensor", {"operator==(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") == c.x(0);
               }});
  r.push_back({"int!=tensor", {"operator!=(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") != c.x(0);
               }});
  r.push_back({"int<tensor", {"operator<(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") < c.x(0);
               }});
  r.push_back({"int<=tensor", {"operator<=(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") <= c.x(0);
               }});
  r.push_back({"int>tensor", {"operator>(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") > c.x(0);
               }});
  r.push_back({"int>=tensor", {"operator>=(I,const Tensor&)"}, [](Call& c) {
                 return c.i("value") >= c.x(0);
               }});
  r.push_back({"sub_scalar_", {"Tensor::sub_(double)"}, [](Call& c) {
                 return target(c).sub_(c.d("value"));
               }});
  r.push_back(
      {"div_", {"Tensor::div_(const Tensor&)"}, [](Call& c) { return target(c).div_(c.x(1)); }});
  r.push_back(
      {"sub_int_", {"Tensor::sub_(I)"}, [](Call& c) { return target(c).sub_(c.i("value")); }});
  r.push_back(
      {"div_int_", {"Tensor::div_(I)"}, [](Call& c) { return target(c).div_(c.i("value")); }});
  r.push_back({"operator+=", {"Tensor::operator+=(const Tensor&)"}, [](Call& c) {
                 Tensor t = target(c);
                 t += c.x(1);
                 return t;
               }});
  r.push_back({"operator+=scalar", {"Tensor::operator+=(S)"}, [](Call& c) {
                 Tensor t = target(c);
                 if (c.args.at("value").is_number_integer()) {
                   t += c.i("value");
                 } else {
                   t += c.d("value");
                 }
                 return t;
               }});
  r.push_back({"operator-=", {"Tensor::operator-=(const Tensor&)"}, [](Call& c) {
                 Tensor t = target(c);
                 t -= c.x(1);
                 return t;
               }});
  r.push_back({"operator-=scalar", {"Tensor::operator-=(S)"}, [](Call& c) {
                 Tensor t = target(c);
                 if (c.args.at("value").is_number_integer()) {
                   t -= c.i("value");
                 } else {
                   t -= c.d("value");
                 }
                 return t;
               }});
  r.push_back({"operator*=", {"Tensor::operator*=(const Tensor&)"}, [](Call& c) {
                 Tensor t = target(c);
                 t *= c.x(1);
                 return t;
               }});
  r.push_back({"operator*=scalar", {"Tensor::operator*=(S)"}, [](Call& c) {
                 Tensor t = target(c);
                 if (c.args.at("value").is_number_integer()) {
                   t *= c.i("value");
                 } else {
                   t *= c.d("value");
                 }
                 return t;
               }});
  r.push_back({"operator/=", {"Tensor::operator/=(const Tensor&)"}, [](Call& c) {
                 Tensor t = target(c);
                 t /= c.x(1);
                 return t;
               }});
  r.push_back({"operator/=scalar", {"Tensor::operator/=(S)"}, [](Call& c) {
                 Tensor t = target(c);
                 if (c.args.at("value").is_number_integer()) {
                   t /= c.i("value");
                 } else {
                   t /= c.d("value");
                 }
                 return t;
               }});
}

}  // namespace lazax::torch_ops
