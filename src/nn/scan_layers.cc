#include "lazax/nn/scan_layers.h"

namespace lazax::nn::detail {

std::vector<Tensor> stack_layer_parameters(const std::vector<std::vector<Tensor>>& flat,
                                           const std::string& type_name) {
  const std::vector<Tensor>& first = flat.at(0);
  if (first.empty())
    throw ValueError("[nn::scan_layers] the " + type_name +
                     " layers have no parameters to scan over; run them in a plain loop");
  for (size_t i = 1; i < flat.size(); ++i) {
    bool same = flat[i].size() == first.size();
    for (size_t j = 0; same && j < first.size(); ++j)
      same = flat[i][j].dtype() == first[j].dtype() && flat[i][j].shape() == first[j].shape();
    if (!same) {
      throw ShapeError("[nn::scan_layers] layer " + std::to_string(i) + " (" + type_name +
                       ") has parameters of other shapes or dtypes than layer 0; scan needs "
                       "identically shaped layers");
    }
  }
  std::vector<Tensor> xs;
  xs.reserve(first.size());
  for (size_t j = 0; j < first.size(); ++j) {
    std::vector<Tensor> col;
    col.reserve(flat.size());
    for (const auto& layer : flat) col.push_back(layer[j]);
    xs.push_back(stack(col, 0));
  }
  return xs;
}

}  // namespace lazax::nn::detail
