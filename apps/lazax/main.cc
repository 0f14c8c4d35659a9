// The lazax command-line tools (`lazax` and `lazax-bench`, cli.h): CLI11 parses the command line
// and runs the chosen subcommand's callback. Every lazax::Error ends the process with its message
// on stderr and exit code 1; a malformed command line (an unknown flag, a missing or invalid value)
// prints what is wrong and the subcommand's help on stderr and exits with code 2.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.h"
#include "lazax/core/error.h"
#include "lazax/dist/dist.h"
#include "lazax/runtime/context.h"

namespace {

constexpr const char* kUsage =
    "usage: lazax COMMAND [ARGS]   (`lazax COMMAND --help` describes one)";

// The most deeply selected subcommand and its full name ("lazax bench train").
const CLI::App* selected(const CLI::App& app, std::string& name) {
  const CLI::App* at = &app;
  name = app.get_name();
  for (;;) {
    std::vector<const CLI::App*> subs = at->get_subcommands({});
    const CLI::App* next = nullptr;
    for (const CLI::App* s : subs)
      if (s->parsed()) next = s;
    if (!next) return at;
    name += " " + next->get_name();
    at = next;
  }
}

// An error that ends the command: its message and exit code 1. Under mpirun the other ranks may
// be waiting for this one at a collective, so the whole job ends (dist::abort_job names the
// rank), never a hang.
int fail(const std::string& message) {
  int ranks = 1;
  try {
    ranks = lazax::dist::world_size();
  } catch (const lazax::Error&) {  // the options did not parse: the message says so
  }
  if (ranks > 1) lazax::dist::abort_job(message, 1);
  std::fprintf(stderr, "%s\n", message.c_str());
  return 1;
}

int usage_error(const CLI::App& app, const std::string& message) {
  std::string name;
  const CLI::App* sub = selected(app, name);
  std::string prefix = name.substr(0, name.rfind(' '));
  std::string help = sub == &app ? app.help() : sub->help(prefix);
  // The help's "Usage: ..." line, then a pointer to the full help.
  size_t at = help.find("Usage:");
  std::string usage = at == std::string::npos ? "" : help.substr(at, help.find('\n', at) - at);
  std::fprintf(stderr, "%s: %s\n%s\n`%s --help` lists the flags.\n", name.c_str(), message.c_str(),
               usage.c_str(), name.c_str());
  return 2;
}

int run_main(int argc, char** argv) {
  try {
    lazax::Context::get();  // reads the LAZAX_* options (the flags' defaults read them)
  } catch (const lazax::Error& e) {
    return fail(e.what());
  }
  CLI::App app("lazax: the command-line tool of a lazy-tensor library.", "lazax");
  app.require_subcommand(1);
  // A flag given twice takes its last value (before the subcommands copy the defaults).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  lazax::cli::add_commands(app);
  std::vector<std::string> args;
  try {
    args = lazax::cli::command_args(argc, argv);
  } catch (const lazax::Error& e) {
    return fail(e.what());
  }
  std::vector<char*> arg_ptrs;
  arg_ptrs.reserve(args.size());
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  argc = static_cast<int>(arg_ptrs.size());
  argv = arg_ptrs.data();
  if (argc < 2) {
    std::fprintf(stderr, "%s\n\n%s", kUsage, app.help().c_str());
    return 2;
  }
  const std::string first = argv[1];
  if (first == "help") {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  if (first.empty() || first[0] != '-') {
    bool known = false;
    for (const CLI::App* s : app.get_subcommands({})) known = known || s->check_name(first);
    if (!known) {
      std::fprintf(stderr, "lazax: unknown command '%s'\n\n%s", first.c_str(), app.help().c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // the selected subcommand's help, on stdout, exit code 0
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e.what());
  } catch (const lazax::cli::UsageError& e) {
    return usage_error(app, e.what());
  } catch (const lazax::Error& e) {
    return fail(e.what());
  } catch (const std::exception& e) {
    std::string name;
    selected(app, name);
    return fail("[" + name + "] unexpected failure: " + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (...) {  // only when printing a message failed
    return 1;
  }
}
