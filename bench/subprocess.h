// Running a peer benchmark program as a subprocess (LibTorch eager, torch._lazy scripts): each
// prints one JSON object as its last line of output. A peer that takes turns with lazax's own
// loops (so that a change in the load of a shared machine falls on both alike) runs as a
// PeerProcess, driven line by line.
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lazax::bench {

// `s` quoted for the shell.
std::string shell_quote(const std::string& s);
// Runs `command` through the shell; returns its exit status and its stdout + stderr.
std::pair<int, std::string> run_command(const std::string& command);
// The last non-empty line of `s` (a peer's JSON result).
std::string last_line(const std::string& s);

// A child process whose stdin, stdout and stderr are one socket to this process: commands go
// in as lines, answers come back as lines (its other output is kept only for error messages).
class PeerProcess {
 public:
  // Starts `argv[0]` with the arguments `argv` (no shell). Check running() afterwards.
  explicit PeerProcess(const std::vector<std::string>& argv);
  ~PeerProcess();  // closes the socket, then waits for the child (killing it if it lingers)
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  bool running() const { return fd_ >= 0; }
  // Sends one line; false when the child is gone.
  bool send(const std::string& line);
  // The next output line that starts with '{' (a JSON object); nullopt at end of output.
  std::optional<std::string> read_json_line();
  // Closes the socket and waits: the exit status (128 + signal when killed, -1 when not started).
  int finish();
  // The last line the child printed (for error messages).
  const std::string& last_output() const { return last_; }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_, last_;
};

}  // namespace lazax::bench
