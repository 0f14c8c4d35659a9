// The commands of the `lazax-bench` executable: the benchmarks (bench_cmd.cc), which `lazax bench
// ...` runs (cli.h). `lazax-bench NAME ...` is `lazax bench NAME ...`.
#include <CLI/CLI.hpp>

#include "cli.h"
#include "lazax/core/error.h"

namespace lazax::cli {

void add_commands(CLI::App& app) { add_bench_command(app); }

std::vector<std::string> command_args(int argc, char** argv) {
  std::vector<std::string> args{"lazax", "bench"};
  args.reserve(static_cast<size_t>(argc) + 1);
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return args;
}

}  // namespace lazax::cli
