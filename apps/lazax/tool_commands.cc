// The commands of the `lazax` executable. `lazax bench ...` runs the benchmarks' executable,
// `lazax-bench`, in this process's place (cli.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>

#include "cli.h"
#include "lazax/core/error.h"

namespace lazax::cli {

void add_commands(CLI::App& app) {
  add_run_command(app);
  add_demo_command(app);
  add_train_command(app);
  add_sample_command(app);
  // Listed in `lazax --help`; command_args hands the command line to lazax-bench before parsing.
  app.add_subcommand("bench", "Measure lazax; `lazax bench NAME --help` (runs lazax-bench)");
  add_export_command(app);
}

std::vector<std::string> command_args(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (argc < 2 || args[1] != "bench") return args;
  const std::string bench = sibling_tool("lazax-bench");
  std::vector<char*> exec_args;
  exec_args.reserve(static_cast<size_t>(argc));
  exec_args.push_back(const_cast<char*>(bench.c_str()));
  for (int i = 2; i < argc; ++i) exec_args.push_back(argv[i]);
  exec_args.push_back(nullptr);
  ::execv(bench.c_str(), exec_args.data());
  throw IOError("[lazax bench] cannot run the benchmarks' executable " + bench + ": " +
                std::strerror(errno) +
                "; it is built and installed beside lazax (ninja lazax-bench)");
}

}  // namespace lazax::cli
