#include "subprocess.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <thread>

namespace lazax::bench {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

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
  begin = begin == std::string::npos ? 0 : begin + 1;
  return s.substr(begin, end + 1 - begin);
}

PeerProcess::PeerProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) return;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return;
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return;
  }
  if (pid == 0) {  // the child: only async-signal-safe calls until exec
    ::dup2(sv[1], 0);
    ::dup2(sv[1], 1);
    ::dup2(sv[1], 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(sv[1]);
  pid_ = pid;
  fd_ = sv[0];
}

PeerProcess::~PeerProcess() { finish(); }

bool PeerProcess::send(const std::string& line) {
  if (fd_ < 0) return false;
  std::string s = line + "\n";
  size_t done = 0;
  while (done < s.size()) {
    // MSG_NOSIGNAL: a child that died answers EPIPE, not a SIGPIPE that would end this process.
    ssize_t n = ::send(fd_, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::optional<std::string> PeerProcess::read_json_line() {
  while (fd_ >= 0) {
    size_t nl;
    while ((nl = buffer_.find('\n')) != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      last_ = line;
      if (line[0] == '{') return line;
    }
    std::array<char, 4096> buf;
    ssize_t n = ::read(fd_, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer_.append(buf.data(), static_cast<size_t>(n));
  }
  std::string rest = last_line(buffer_);
  if (!rest.empty()) last_ = rest;
  return std::nullopt;
}

int PeerProcess::finish() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (pid_ < 0) return -1;
  int status = 0;
  // A peer exits at end of input; one that does not within 10 s is killed.
  for (int i = 0; i < 1000; ++i) {
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (i == 999) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status)
                           : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace lazax::bench
