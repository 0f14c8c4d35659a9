// broadcast_parameters and average_gradients (lazax/nn/data_parallel.h).
#include "lazax/nn/data_parallel.h"

#include "lazax/api/ops_collective.h"
#include "lazax/dist/dist.h"

namespace lazax::nn {

void broadcast_parameters(const std::vector<Tensor>& params) {
  if (dist::world_size() == 1) return;
  NoGrad no_grad;
  for (const Tensor& p : params) {
    Tensor q = p;  // a handle to the same parameter: copy_ rebinds it for every holder
    q.copy_(broadcast_from(p, 0));
  }
}

int64_t average_gradients(const std::vector<Tensor>& params, int64_t bucket_bytes) {
  if (dist::world_size() == 1) return 0;
  NoGrad no_grad;
  std::vector<Tensor> bucket;  // parameters whose gradients fill the current bucket
  int64_t bytes = 0, buckets = 0;
  auto flush = [&] {
    if (bucket.empty()) return;
    std::vector<Tensor> flat;
    flat.reserve(bucket.size());
    for (const Tensor& p : bucket) flat.push_back(p.grad().reshape({-1}));
    Tensor mean = pmean(flat.size() == 1 ? flat[0] : cat(flat, 0));
    int64_t at = 0;
    for (Tensor& p : bucket) {
      const int64_t n = p.grad().numel();
      p.set_grad(narrow(mean, 0, at, n).reshape(p.grad().sizes()));
      at += n;
    }
    bucket.clear();
    bytes = 0;
    ++buckets;
  };
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const Tensor& g = it->grad();
    if (!g.defined()) continue;
    const auto b = static_cast<int64_t>(g.numel() * static_cast<int64_t>(dtype_size(g.dtype())));
    if (!bucket.empty() && (bytes + b > bucket_bytes || bucket.back().grad().dtype() != g.dtype()))
      flush();
    bucket.push_back(*it);
    bytes += b;
  }
  flush();
  return buckets;
}

}  // namespace lazax::nn
