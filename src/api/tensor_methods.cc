// Tensor's method forms (torch::Tensor's names): each is the free function of the same name.
#include "lazax/api/tensor_impl.h"

namespace lazax {

Tensor Tensor::amin(const std::vector<int64_t>& d, bool k) const {
  return lazax::amin(*this, d, k);
}
Tensor Tensor::prod(const std::vector<int64_t>& d, bool k) const {
  return lazax::prod(*this, d, k);
}
Tensor Tensor::logsumexp(const std::vector<int64_t>& d, bool k) const {
  return lazax::logsumexp(*this, d, k);
}
Tensor Tensor::cumsum(int64_t dim) const { return lazax::cumsum(*this, dim); }
Tensor Tensor::min(int64_t d, bool k) const { return lazax::min(*this, d, k); }
Tensor Tensor::max() const { return lazax::max(*this); }
Tensor Tensor::min() const { return lazax::min(*this); }
Tensor Tensor::argmin(int64_t d, bool k) const { return lazax::argmin(*this, d, k); }
Tensor Tensor::all() const { return lazax::all(*this); }
Tensor Tensor::all(int64_t d, bool k) const { return lazax::all(*this, d, k); }
Tensor Tensor::any() const { return lazax::any(*this); }
Tensor Tensor::any(int64_t d, bool k) const { return lazax::any(*this, d, k); }
Tensor Tensor::cumprod(int64_t dim) const { return lazax::cumprod(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return lazax::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return lazax::cummin(*this, dim); }
Tensor Tensor::flip(const std::vector<int64_t>& dims) const { return lazax::flip(*this, dims); }
std::tuple<Tensor, Tensor> Tensor::sort(int64_t d, bool desc) const {
  return lazax::sort(*this, d, desc);
}
Tensor Tensor::argsort(int64_t d, bool desc) const { return lazax::argsort(*this, d, desc); }
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t d, bool largest) const {
  return lazax::topk(*this, k, d, largest);
}

Tensor Tensor::abs() const { return lazax::abs(*this); }
Tensor Tensor::neg() const { return lazax::neg(*this); }
Tensor Tensor::sign() const { return lazax::sign(*this); }
Tensor Tensor::exp() const { return lazax::exp(*this); }
Tensor Tensor::log() const { return lazax::log(*this); }
Tensor Tensor::log1p() const { return lazax::log1p(*this); }
Tensor Tensor::expm1() const { return lazax::expm1(*this); }
Tensor Tensor::sqrt() const { return lazax::sqrt(*this); }
Tensor Tensor::rsqrt() const { return lazax::rsqrt(*this); }
Tensor Tensor::square() const { return lazax::square(*this); }
Tensor Tensor::sin() const { return lazax::sin(*this); }
Tensor Tensor::cos() const { return lazax::cos(*this); }
Tensor Tensor::tanh() const { return lazax::tanh(*this); }
Tensor Tensor::sigmoid() const { return lazax::sigmoid(*this); }
Tensor Tensor::erf() const { return lazax::erf(*this); }
Tensor Tensor::floor() const { return lazax::floor(*this); }
Tensor Tensor::round() const { return lazax::round(*this); }
Tensor Tensor::ceil() const { return lazax::ceil(*this); }
Tensor Tensor::erfinv() const { return lazax::erfinv(*this); }
Tensor Tensor::exp2() const { return lazax::exp2(*this); }
Tensor Tensor::tan() const { return lazax::tan(*this); }
Tensor Tensor::isfinite() const { return lazax::isfinite(*this); }
Tensor Tensor::bitwise_not() const { return lazax::bitwise_not(*this); }
Tensor Tensor::fmod(const Tensor& o) const { return lazax::fmod(*this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return lazax::remainder(*this, o); }
Tensor Tensor::bitwise_and(const Tensor& o) const { return lazax::bitwise_and(*this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return lazax::bitwise_or(*this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return lazax::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_left_shift(const Tensor& o) const {
  return lazax::bitwise_left_shift(*this, o);
}
Tensor Tensor::bitwise_right_shift(const Tensor& o) const {
  return lazax::bitwise_right_shift(*this, o);
}
Tensor Tensor::relu() const { return lazax::relu(*this); }
Tensor Tensor::gelu(bool tanh_approximation) const {
  return lazax::gelu(*this, tanh_approximation);
}
Tensor Tensor::silu() const { return lazax::silu(*this); }
Tensor Tensor::softmax(int64_t dim) const { return lazax::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return lazax::log_softmax(*this, dim); }
Tensor Tensor::pow(const Tensor& exponent) const { return lazax::pow(*this, exponent); }
Tensor Tensor::pow(double exponent) const { return lazax::pow(*this, exponent); }
Tensor Tensor::clamp(std::optional<double> lo, std::optional<double> hi) const {
  return lazax::clamp(*this, lo, hi);
}
Tensor Tensor::maximum(const Tensor& o) const { return lazax::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return lazax::minimum(*this, o); }
Tensor Tensor::matmul(const Tensor& o) const { return lazax::matmul(*this, o); }
Tensor Tensor::add(const Tensor& o) const { return lazax::add(*this, o); }
Tensor Tensor::sub(const Tensor& o) const { return lazax::sub(*this, o); }
Tensor Tensor::mul(const Tensor& o) const { return lazax::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return lazax::div(*this, o); }
Tensor Tensor::eq(const Tensor& o) const { return lazax::eq(*this, o); }
Tensor Tensor::ne(const Tensor& o) const { return lazax::ne(*this, o); }
Tensor Tensor::lt(const Tensor& o) const { return lazax::lt(*this, o); }
Tensor Tensor::le(const Tensor& o) const { return lazax::le(*this, o); }
Tensor Tensor::gt(const Tensor& o) const { return lazax::gt(*this, o); }
Tensor Tensor::ge(const Tensor& o) const { return lazax::ge(*this, o); }

}  // namespace lazax
