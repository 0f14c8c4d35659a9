// `lazax demo`: writes fixed inputs for the bundled example (examples/mlp.lzir) to a temporary
// directory, runs it through the same code path as `lazax run`, and prints what happened.
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli.h"
#include "lazax/io/npy.h"
#include "lazax/optim/checkpoint_dir.h"
#include "train.h"

#ifndef LAZAX_SOURCE_DIR
#error "LAZAX_SOURCE_DIR must name the source tree (set by apps/lazax/CMakeLists.txt)"
#endif

namespace lazax::cli {

namespace {

namespace fs = std::filesystem;

// Removes the demo's scratch directory however the demo ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "lazax-demo-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      throw IOError("[demo] cannot create a temporary directory " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

void print_matrix(const char* name, const Literal& v) {
  std::printf("  %s: %s\n", name, v.type.str().c_str());
  if (v.shape().rank() != 2) {
    std::printf("    %s\n", v.str().c_str());
    return;
  }
  for (int64_t r = 0; r < v.shape()[0]; ++r) {
    std::printf("    [");
    for (int64_t c = 0; c < v.shape()[1]; ++c)
      std::printf("%s%9.5f", c ? ", " : "", v.at(r * v.shape()[1] + c));
    std::printf("]\n");
  }
}

void run_demo() {
  const std::string program = std::string(LAZAX_SOURCE_DIR) + "/examples/mlp.lzir";
  std::ifstream in(program);
  if (!in) throw IOError("[demo] cannot open the example program " + program);
  std::stringstream text;
  text << in.rdbuf();

  std::printf("lazax demo: a one-layer MLP, tanh(x @ w), run by the reference interpreter\n\n");
  std::printf("program (%s):\n%s\n", program.c_str(), text.str().c_str());

  TempDir dir;
  Literal x = Literal::from_vector<float>({0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f}, Shape{2, 3});
  Literal w = Literal::from_vector<float>(
      {0.1f, -0.2f, 0.3f, 0.4f, 0.5f, 0.6f, -0.7f, 0.8f, -0.9f, 1.0f, 0.2f, -0.1f}, Shape{3, 4});
  RunRequest req;
  req.program_path = program;
  req.input_paths = {(dir.path / "x.npy").string(), (dir.path / "w.npy").string()};
  req.out_dir = (dir.path / "out").string();
  write_npy(req.input_paths[0], x);
  write_npy(req.input_paths[1], w);
  std::printf("inputs:\n");
  print_matrix("%x", x);
  print_matrix("%w", w);

  std::printf("\n$ lazax run mlp.lzir --inputs x.npy,w.npy --out out\n");
  run_program(req);
  std::printf("outputs (read back from out/):\n");
  for (int i = 0;; ++i) {
    fs::path out = fs::path(req.out_dir) / ("out" + std::to_string(i) + ".npy");
    if (!fs::exists(out)) break;
    std::string name = out.filename().string();
    print_matrix(name.c_str(), read_npy(out.string()));
  }
  decoder_demo();
}

// The demo's training run: the `tiny` preset of issue 17 (dim 256, 4 layers, 8 heads, hidden 768,
// sequence 128, batch 8) on the cpu backend: 0.5-1 s a step on this 2-core machine, so 200 steps
// take about 4 minutes, and the loss falls well below the corpus's unigram entropy.
void run_training_demo(const std::string& out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  TrainOptions o;
  o.model = "tiny";
  o.steps = 200;
  o.lr = 3e-3;
  o.warmup = 20;
  o.eval_every = 50;
  o.svg = (fs::path(out_dir) / "loss.svg").string();
  o.save = (fs::path(out_dir) / "model.safetensors").string();
  // A checkpoint every 100 steps; an interrupted demo continues where it stopped when run again,
  // a finished one starts over.
  o.checkpoint_dir = (fs::path(out_dir) / "checkpoints").string();
  o.save_every = 100;
  o.resume = "auto";
  {
    optim::CheckpointDir d(o.checkpoint_dir, o.keep);
    const std::optional<optim::CheckpointEntry> newest = d.newest_intact();
    if (newest && newest->step >= o.steps) fs::remove_all(o.checkpoint_dir, ec);
  }
  o.sample_prompt = "Q: What is the meaning of life?\nA: ";
  std::printf(
      "lazax demo: trains a byte-level language model (the Llama-style `tiny` model of\n"
      "`lazax train`: dim 256, 4 layers, 3.5M parameters) on the fortunes of Debian's `fortunes`\n"
      "package, on the cpu backend; about 4 minutes. Ctrl-C stops it early (and still saves); run\n"
      "the demo again to continue from the newest checkpoint (one every 100 steps).\n"
      "$ lazax train --model tiny --steps 200 --lr 3e-3 --warmup 20 --eval-every 50\n"
      "      --svg %s --save %s\n"
      "      --checkpoint-dir %s --save-every 100 --resume auto\n\n",
      o.svg.c_str(), o.save.c_str(), o.checkpoint_dir.c_str());
  std::fflush(stdout);
  if (const int code = train(o); code != 0) std::exit(code);
  std::printf(
      "\nThe loss is the mean cross-entropy in nats per byte of predicting the next byte. A model\n"
      "that knows only how often each byte occurs scores the unigram entropy; falling well below\n"
      "it means the model learned context (letters, words, layout). %s plots both curves; the\n"
      "sample shows what the model writes. `lazax sample --checkpoint %s` samples more.\n",
      o.svg.c_str(), o.save.c_str());
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto example = std::make_shared<bool>(false);
  auto out = std::make_shared<std::string>("lazax-demo");
  CLI::App* sub = app.add_subcommand(
      "demo", "Train a small language model on the fortunes, with a loss curve and a sample");
  sub->footer(
      "Trains the tiny model with `lazax train` (about 4 minutes on the cpu backend).\n"
      "--example instead runs examples/mlp.lzir (tanh(x @ w)) on fixed inputs through\n"
      "`lazax run`'s code path, then trains a small nn::Llama for a few steps.");
  sub->add_flag("--example", *example, "the example-program walkthrough instead");
  sub->add_option("--out", *out, "where the picture and the checkpoint go (default lazax-demo)");
  sub->callback([example, out] {
    if (*example) {
      run_demo();
    } else {
      run_training_demo(*out);
    }
  });
}

}  // namespace lazax::cli
