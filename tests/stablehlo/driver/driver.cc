// stablehlo_driver FILE.mlir OUTDIR IN0.npy ...: runs the imported program on the inputs and
// writes out<k>.npy for each result and grad<i>.npy, the gradient of result 0 (a scalar) with
// respect to each floating input, for tests/stablehlo/torch_fixtures.py.
#include <cstdio>
#include <string>
#include <vector>

#include "lazax/io/npy.h"
#include "lazax/lazax.h"
#include "lazax/stablehlo/load.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: stablehlo_driver FILE.mlir OUTDIR [IN.npy...]\n");
    return 2;
  }
  try {
    lazax::StableHloFunction f = lazax::load_stablehlo(argv[1]);
    std::string out = argv[2];
    std::vector<lazax::Tensor> in;
    for (int i = 3; i < argc; ++i) {
      lazax::Tensor t(lazax::read_npy(argv[i]));
      if (t.dtype() == lazax::DType::f32) t.requires_grad_();
      in.push_back(t);
    }
    std::vector<lazax::Tensor> res = f(in);
    for (size_t k = 0; k < res.size(); ++k)
      lazax::write_npy(out + "/out" + std::to_string(k) + ".npy", res[k].literal());
    if (!res.empty() && res[0].dtype() == lazax::DType::f32 && res[0].dim() == 0) {
      res[0].backward();
      for (size_t i = 0; i < in.size(); ++i)
        if (in[i].requires_grad())
          lazax::write_npy(out + "/grad" + std::to_string(i) + ".npy", in[i].grad().literal());
    }
  } catch (const lazax::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
