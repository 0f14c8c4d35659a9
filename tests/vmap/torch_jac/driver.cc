// jacrev, jacfwd and hessian of the small functions that tests/vmap/torch_jac.py defines again in
// PyTorch, for that agreement test.
//
// usage: vmap_jac_driver < IN.json > OUT.json
// IN: {"case": NAME, "shape": [...], "x": [f64 values, row-major]}. OUT: {"jacrev": [...],
// "jacfwd": [...], "shape": [...]} (the Jacobian, y.shape ++ x.shape), and for the scalar
// functions (names starting "h_") also "hessian" (x.shape ++ x.shape).
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "lazax/lazax.h"

using namespace lazax;

namespace {

// The fixed matrix of "tanh_mm": arange(6).reshape(3, 2) / 5 - 0.5, as the script builds it.
Tensor a_matrix() { return arange(6, DType::f64).reshape({3, 2}) / 5.0 - 0.5; }

Tensor f(const std::string& name, const Tensor& x) {
  if (name == "tanh_mm") return matmul(x, a_matrix()).tanh() * x.sum();
  if (name == "softmax_x") return softmax(x, 0) * x;
  if (name == "cumsum_log1p") return cumsum((x * x).log1p(), 0);
  if (name == "h_sin") return (x.sin() * x).sum() + (x * x).sum() * x.sum();
  if (name == "h_lse") return logsumexp(x, {0}) + (x * x * x).sum() / 3.0;
  if (name == "h_mm") return matmul(x, x).tanh().sum();
  throw ValueError("[vmap_jac_driver] unknown case '" + name + "'");
}

std::vector<double> flat(const Tensor& t) { return t.to(DType::f64).to_vector<double>(); }

}  // namespace

int main() {
  try {
    nlohmann::json in = nlohmann::json::parse(std::cin);
    const std::string name = in["case"];
    std::vector<int64_t> shape = in["shape"];
    std::vector<double> xv = in["x"];
    Tensor x = from_vector(xv, shape).to(DType::f64);
    auto fn = [&](const Tensor& v) { return f(name, v); };
    Tensor jr = jacrev(fn)(x);
    nlohmann::json out;
    out["jacrev"] = flat(jr);
    out["jacfwd"] = flat(jacfwd(fn)(x));
    out["shape"] = jr.sizes();
    if (name.rfind("h_", 0) == 0) out["hessian"] = flat(hessian(fn)(x));
    std::cout << out.dump() << "\n";
  } catch (const Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
