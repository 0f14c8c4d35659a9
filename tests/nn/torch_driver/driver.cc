// Runs one nn module on .npy inputs for tests/nn/torch_nn.py (the PyTorch agreement test).
//
// usage: nn_torch_driver DIR
// DIR/case.json names the module and its sizes; DIR/params/NAME.npy hold its state dict (loaded
// strictly); DIR/x.npy is the input (tokens for "llama"); DIR/ct.npy a cotangent for the output.
// Writes DIR/out.npy (the output; for "llama" the loss), DIR/grad_x.npy (floating inputs) and
// DIR/grads/NAME.npy, the gradients of sum(out * ct) (for "llama": of the loss).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "lazax/io/npy.h"
#include "lazax/lazax.h"

namespace fs = std::filesystem;
using namespace lazax;

namespace {

nn::StateDict read_params(const fs::path& dir) {
  nn::StateDict sd;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".npy")
      sd.emplace(e.path().stem().string(), Tensor(read_npy(e.path())));
  }
  return sd;
}

template <class M>
Tensor run(M& m, const fs::path& dir, const std::function<Tensor(const Tensor&)>& fwd) {
  m.load_state_dict(read_params(dir / "params"));
  Tensor x(read_npy(dir / "x.npy"));
  if (is_floating(x.dtype())) x.requires_grad_();
  Tensor out = fwd(x);
  Tensor loss = out;
  if (fs::exists(dir / "ct.npy")) loss = sum(out * Tensor(read_npy(dir / "ct.npy")));
  loss.backward();
  lazax::sync();
  write_npy(dir / "out.npy", out.literal());
  if (is_floating(x.dtype())) write_npy(dir / "grad_x.npy", x.grad().literal());
  fs::create_directories(dir / "grads");
  for (const auto& [name, p] : m.named_parameters())
    write_npy(dir / "grads" / (name + ".npy"), p.grad().literal());
  return out;
}

int main_impl(const fs::path& dir) {
  std::ifstream f(dir / "case.json");
  nlohmann::json c = nlohmann::json::parse(f);
  std::string mod = c.at("module");
  auto i = [&](const char* k) { return c.at(k).get<int64_t>(); };
  if (mod == "linear") {
    nn::Linear m(i("in"), i("out"), c.at("bias").get<bool>());
    run(m, dir, [&](const Tensor& x) { return m(x); });
  } else if (mod == "embedding") {
    nn::Embedding m(i("num"), i("dim"));
    run(m, dir, [&](const Tensor& x) { return m(x); });
  } else if (mod == "rmsnorm") {
    nn::RMSNorm m(i("dim"), c.at("eps").get<double>());
    run(m, dir, [&](const Tensor& x) { return m(x); });
  } else if (mod == "layernorm") {
    nn::LayerNorm m(i("dim"), c.at("eps").get<double>());
    run(m, dir, [&](const Tensor& x) { return m(x); });
  } else if (mod == "attention") {
    nn::Attention m(i("dim"), i("heads"));
    run(m, dir, [&](const Tensor& x) { return m.forward(x); });
  } else if (mod == "feed_forward") {
    nn::FeedForward m(i("dim"), i("hidden"));
    run(m, dir, [&](const Tensor& x) { return m.forward(x); });
  } else if (mod == "block" || mod == "llama") {
    nn::LlamaConfig cfg;
    cfg.dim = i("dim");
    cfg.n_layers = i("n_layers");
    cfg.n_heads = i("heads");
    cfg.hidden = i("hidden");
    if (mod == "block") {
      nn::TransformerBlock m(cfg);
      run(m, dir, [&](const Tensor& x) { return m.forward(x); });
    } else {
      nn::Llama m(cfg);
      nn::LayerMode mode = nn::layer_mode_from_string(c.at("mode"));
      run(m, dir, [&](const Tensor& x) { return m.forward(x, mode); });
    }
  } else {
    std::cerr << "nn_torch_driver: unknown module '" << mod << "'\n";
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: nn_torch_driver DIR\n";
    return 2;
  }
  try {
    return main_impl(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "nn_torch_driver: " << e.what() << "\n";
    return 1;
  }
}
