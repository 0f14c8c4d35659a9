// `lazax demo`: writes fixed inputs for the bundled example (examples/mlp.lzir) to a temporary
// directory, runs it through the same code path as `lazax run`, and prints what happened.
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "lazax/io/npy.h"

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

}  // namespace

namespace {

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

}  // namespace

void add_demo_command(CLI::App& app) {
  app.add_subcommand("demo", "Run the bundled example program and print what happens")
      ->footer(
          "Runs examples/mlp.lzir (tanh(x @ w)) on fixed inputs through `lazax run`'s code path,\n"
          "then trains a small decoder for a few steps.")
      ->callback(run_demo);
}

}  // namespace lazax::cli
