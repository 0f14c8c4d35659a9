// The lazax command-line tool: dispatches to a subcommand. Every lazax::Error ends the process
// with its message on stderr and exit code 1; a malformed command line exits with code 2.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.h"
#include "lazax/core/error.h"

namespace {

struct Subcommand {
  const char* name;
  int (*fn)(std::span<const std::string>);
  const char* const* usage;
  const char* summary;
};

const Subcommand kSubcommands[] = {
    {"run", lazax::cli::run_command, &lazax::cli::kRunUsage,
     "run a program (.lzir) on .npy inputs, writing .npy outputs"},
    {"demo", lazax::cli::demo_command, &lazax::cli::kDemoUsage,
     "run the bundled example program and print what happens"},
    {"bench", lazax::cli::bench_command, &lazax::cli::kBenchUsage,
     "measure lazax (`bench trace`: host cost of recording and syncing)"},
};

void print_usage(std::FILE* to) {
  std::fprintf(to, "usage: lazax COMMAND [ARGS]\n\ncommands:\n");
  for (const Subcommand& s : kSubcommands) std::fprintf(to, "  %-6s %s\n", s.name, s.summary);
  std::fprintf(to, "\n`lazax COMMAND --help` describes a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_usage(stderr);
    return 2;
  }
  const std::string& cmd = args[0];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    print_usage(stdout);
    return 0;
  }
  for (const Subcommand& s : kSubcommands) {
    if (cmd != s.name) continue;
    std::span<const std::string> rest(args.data() + 1, args.size() - 1);
    try {
      return s.fn(rest);
    } catch (const lazax::cli::UsageError& e) {
      std::fprintf(stderr, "lazax %s: %s\n\n%s", s.name, e.what(), *s.usage);
      return 2;
    } catch (const lazax::Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "[%s] unexpected failure: %s\n", s.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "lazax: unknown command '%s'\n\n", cmd.c_str());
  print_usage(stderr);
  return 2;
}
