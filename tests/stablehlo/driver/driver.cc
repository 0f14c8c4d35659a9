// stablehlo_driver FILE.mlir OUTDIR [--forward-only] IN0.npy ...: runs the imported program on the
// inputs and writes out<k>.npy for each result; when result 0 is an f32 scalar, jvp.npy, its
// derivative along a tangent of ones for every f32 input (forward mode), and, unless
// --forward-only (a while loop: no reverse mode, as in JAX), grad<i>.npy, its gradient with
// respect to each f32 input, for tests/stablehlo/torch_fixtures.py. With --forward-only the
// backward pass must fail with a NotDifferentiableError naming while_loop instead.
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "lazax/io/npy.h"
#include "lazax/lazax.h"
#include "lazax/stablehlo/load.h"

namespace {

// d out0 / d t along ones for the f32 inputs (the others held fixed).
lazax::Tensor jvp_along_ones(const lazax::StableHloFunction& f,
                             const std::vector<lazax::Tensor>& in) {
  std::vector<lazax::Tensor> primals, tangents;
  for (const lazax::Tensor& t : in) {
    if (t.dtype() != lazax::DType::f32) continue;
    primals.push_back(t.detach());
    tangents.push_back(lazax::ones_like(t));
  }
  auto fn = [&](const std::vector<lazax::Tensor>& xs) {
    std::vector<lazax::Tensor> args;
    size_t k = 0;
    for (const lazax::Tensor& t : in) args.push_back(t.dtype() == lazax::DType::f32 ? xs[k++] : t);
    return f(args)[0];
  };
  return std::get<1>(lazax::jvp(fn, std::tuple{primals}, std::tuple{tangents}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: stablehlo_driver FILE.mlir OUTDIR [--forward-only] [IN.npy...]\n");
    return 2;
  }
  try {
    lazax::StableHloFunction f = lazax::load_stablehlo(argv[1]);
    std::string out = argv[2];
    int first = 3;
    bool reverse = true;
    if (argc > 3 && std::strcmp(argv[3], "--forward-only") == 0) {
      reverse = false;
      first = 4;
    }
    std::vector<lazax::Tensor> in;
    for (int i = first; i < argc; ++i) {
      lazax::Tensor t(lazax::read_npy(argv[i]));
      if (t.dtype() == lazax::DType::f32 && reverse) t.requires_grad_();
      in.push_back(t);
    }
    std::vector<lazax::Tensor> res = f(in);
    for (size_t k = 0; k < res.size(); ++k)
      lazax::write_npy(out + "/out" + std::to_string(k) + ".npy", res[k].literal());
    if (res.empty() || res[0].dtype() != lazax::DType::f32 || res[0].dim() != 0) return 0;
    lazax::write_npy(out + "/jvp.npy", jvp_along_ones(f, in).literal());
    if (!reverse) {
      std::vector<lazax::Tensor> tracked;
      for (const lazax::Tensor& t : in)
        tracked.push_back(t.dtype() == lazax::DType::f32 ? t.detach().requires_grad_() : t);
      try {
        f(tracked)[0].backward();
      } catch (const lazax::NotDifferentiableError& e) {
        if (std::strstr(e.what(), "while_loop") != nullptr) return 0;
        throw;
      }
      std::fprintf(stderr, "stablehlo_driver: backward through a while loop did not fail\n");
      return 1;
    }
    res[0].backward();
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i].requires_grad())
        lazax::write_npy(out + "/grad" + std::to_string(i) + ".npy", in[i].grad().literal());
  } catch (const lazax::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
