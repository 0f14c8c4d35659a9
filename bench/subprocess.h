// Running a peer benchmark program as a subprocess (LibTorch eager, torch._lazy scripts): each
// prints one JSON object as its last line of output.
#pragma once
#include <string>
#include <utility>

namespace lazax::bench {

// `s` quoted for the shell.
std::string shell_quote(const std::string& s);
// Runs `command` through the shell; returns its exit status and its stdout + stderr.
std::pair<int, std::string> run_command(const std::string& command);
// The last non-empty line of `s` (a peer's JSON result).
std::string last_line(const std::string& s);

}  // namespace lazax::bench
