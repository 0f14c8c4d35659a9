// `lazax bench NAME`: runs one of the benchmarks in bench/ and prints a table, or one JSON object
// with --json.
#include <cstdio>
#include <string>

#include "assume_pure_bench.h"
#include "cli.h"
#include "kernels_bench.h"
#include "trace_bench.h"

namespace lazax::cli {

const char* const kBenchUsage =
    "usage: lazax bench trace [--json] [--ops N] [--reps N] [--no-peers]\n"
    "  trace: the host cost of recording one op (ns/op, f32[16], long chains) and of hashing and\n"
    "         looking up a graph at sync (ns/node), next to LibTorch's eager add and PyTorch's\n"
    "         lazy tensor tracing (torch._lazy) measured on this machine when installed.\n"
    "  --json      print one JSON object instead of a table (absent peers are null)\n"
    "  --ops N     ops per timed chain (default 10000)\n"
    "  --reps N    repetitions; figures are medians (default 9)\n"
    "  --no-peers  skip LibTorch and torch._lazy\n"
    "usage: lazax bench assume-pure [--json] [--layers N] [--steps N] [--warmup N]\n"
    "                               [--torch-steps N] [--no-peers] [--only MODE]\n"
    "  assume-pure: host ms per training step of a decoder (hidden 128, vocab 256, batch 2,\n"
    "         seq 8) in plain lazy mode, with assume_pure over each layer, and with twice the ops\n"
    "         per layer; the optimizer apart; next to torch._lazy tracing the same model.\n"
    "  --layers N       decoder layers (default 100)\n"
    "  --steps N        timed steps per mode (default 100; 2 warm-up steps first, --warmup N)\n"
    "  --torch-steps N  timed steps of the torch._lazy peer (default 10)\n"
    "  --only MODE      profiling aid: run only lazy, assume_pure or double (others print 0)\n";

namespace {

int64_t positive_arg(std::span<const std::string> args, size_t& i) {
  const std::string& flag = args[i];
  if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
  const std::string& v = args[++i];
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || n <= 0)
    throw UsageError(flag + " needs a positive integer, got '" + v + "'");
  return n;
}

// Parses a benchmark's options: the shared ones (--json, --help, --no-peers) here, the others
// by `own(flag, i)` (false: unknown). Returns false when --help was printed.
template <class Own>
bool parse_options(std::span<const std::string> args, bool& json, bool& peers, Own own) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      json = true;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kBenchUsage, stdout);
      return false;
    } else if (a == "--no-peers") {
      peers = false;
    } else if (!own(a, i)) {
      throw UsageError("unknown option '" + a + "'");
    }
  }
  return true;
}

template <class Result>
int print_result(const Result& r, bool json) {
  if (json) {
    std::printf("%s\n", bench::to_json(r).dump().c_str());
  } else {
    std::fputs(bench::to_table(r).c_str(), stdout);
  }
  return 0;
}

int assume_pure_command(std::span<const std::string> args) {
  bench::AssumePureBenchOptions options;
  bool json = false;
  auto own = [&](const std::string& a, size_t& i) {
    if (a == "--layers") {
      options.layers = std::min<int64_t>(positive_arg(args, i), 10000);
    } else if (a == "--steps") {
      options.steps = static_cast<int>(std::min<int64_t>(positive_arg(args, i), 100000));
    } else if (a == "--warmup") {
      options.warmup = static_cast<int>(std::min<int64_t>(positive_arg(args, i), 1000));
    } else if (a == "--only") {
      if (i + 1 >= args.size()) throw UsageError("--only needs a mode");
      options.only = args[++i];
    } else if (a == "--torch-steps") {
      options.torch_steps = static_cast<int>(std::min<int64_t>(positive_arg(args, i), 10000));
    } else {
      return false;
    }
    return true;
  };
  if (!parse_options(args, json, options.peers, own)) return 0;
  return print_result(bench::run_assume_pure_bench(options), json);
}

int trace_command(std::span<const std::string> args) {
  bench::TraceBenchOptions options;
  bool json = false;
  auto own = [&](const std::string& a, size_t& i) {
    if (a == "--ops") {
      options.ops = positive_arg(args, i);
    } else if (a == "--reps") {
      options.reps = static_cast<int>(std::min<int64_t>(positive_arg(args, i), 1000));
    } else {
      return false;
    }
    return true;
  };
  if (!parse_options(args, json, options.peers, own)) return 0;
  return print_result(bench::run_trace_bench(options), json);
}

}  // namespace

int bench_command(std::span<const std::string> args) {
  if (args.empty()) throw UsageError("name a benchmark");
  if (args[0] == "--help" || args[0] == "-h") {
    std::fputs(kBenchUsage, stdout);
    return 0;
  }
  if (args[0] == "assume-pure") return assume_pure_command(args);
  if (args[0] == "trace") return trace_command(args);
  if (args[0] == "kernels") return bench::kernels_bench_command(args);
  throw UsageError("unknown benchmark '" + args[0] + "'");
}

}  // namespace lazax::cli
