// The peers of `lazax bench trace`, each a separate program run as a subprocess: LibTorch
// (heavy headers, an optional dependency) stays out of lazax's own build, and torch._lazy lives
// in Python. Each prints one JSON object as its last line of output.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "trace_bench.h"

namespace lazax::bench {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command` through the shell; returns its exit status and its stdout + stderr.
std::pair<int, std::string> run_command(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "cannot start: " + command};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = ::pclose(p);
  int code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return {code, out};
}

std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t begin = s.find_last_of('\n', end);
  return s.substr(begin == std::string::npos ? 0 : begin + 1,
                  end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

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
