// The peers of `lazax bench trace`, each a separate program run as a subprocess: LibTorch
// (heavy headers, an optional dependency) stays out of lazax's own build, and torch._lazy lives
// in Python. Each prints one JSON object as its last line of output.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "subprocess.h"
#include "trace_bench.h"

namespace lazax::bench {
namespace {

PeerResult run_peer(const std::string& what, const std::string& command) {
  auto [code, out] = run_command(command);
  std::string line = last_line(out);
  if (code != 0)
    return {std::nullopt, what + " failed (exit " + std::to_string(code) + "): " + line};
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("ns_per_op") || !j["ns_per_op"].is_number())
    return {std::nullopt, what + " printed no figure: " + line};
  double ns = j["ns_per_op"].get<double>();
  j.erase("ns_per_op");
  return {ns, j.dump()};
}

std::string args(int64_t ops, int reps) {
  return " --ops " + std::to_string(ops) + " --reps " + std::to_string(reps);
}

}  // namespace

PeerResult measure_libtorch_eager_add(int64_t ops, int reps) {
#ifdef LAZAX_LIBTORCH_EAGER_ADD
  const std::string exe = LAZAX_LIBTORCH_EAGER_ADD;
  if (::access(exe.c_str(), X_OK) != 0) return {std::nullopt, "not built: " + exe};
  return run_peer("libtorch_eager_add", shell_quote(exe) + args(ops, reps));
#else
  (void)ops;
  (void)reps;
  return {std::nullopt, "LibTorch was not found when lazax was configured (Debian: libtorch-dev)"};
#endif
}

PeerResult measure_torch_lazy_add(int64_t ops, int reps) {
  const std::string python = LAZAX_BENCH_PYTHON;
  const std::string script = LAZAX_TORCH_LAZY_SCRIPT;
  if (::access(python.c_str(), X_OK) != 0) return {std::nullopt, python + " not found"};
  auto [code, out] = run_command(shell_quote(python) + " -c 'import torch._lazy.ts_backend'");
  if (code != 0)
    return {std::nullopt,
            python + " cannot import torch._lazy (Debian: python3-torch): " + last_line(out)};
  return run_peer("torch_lazy_trace.py",
                  shell_quote(python) + " " + shell_quote(script) + args(ops, reps));
}

}  // namespace lazax::bench
