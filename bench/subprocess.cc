#include "subprocess.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

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

}  // namespace lazax::bench
