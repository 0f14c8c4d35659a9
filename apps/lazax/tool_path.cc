// sibling_tool (cli.h): the executables beside this one.
#include <filesystem>

#include "cli.h"
#include "lazax/core/error.h"

namespace lazax::cli {

std::string sibling_tool(const std::string& name) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw IOError("[lazax] cannot find its own executable (/proc/self/exe): " + ec.message());
  return (self.parent_path() / name).string();
}

}  // namespace lazax::cli
