#include "lazax/autodiff/tree.h"

namespace lazax::detail {

std::vector<std::string> split_field_names(std::string_view names) {
  std::vector<std::string> out;
  while (!names.empty()) {
    const size_t comma = names.find(',');
    std::string_view name = names.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    out.emplace_back(name);
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace lazax::detail
