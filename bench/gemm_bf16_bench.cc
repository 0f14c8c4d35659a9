// `lazax bench kernels`: a bf16 [1024, 1024] x [1024, 1024] dot_general (bf16 inputs and result,
// f32 accumulation in oneDNN) against oneDNN's own bf16 matmul primitive on the same buffers.
#include "gemm_bf16_bench.h"

#include <algorithm>
#include <chrono>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>

#include "lazax/backend/backend.h"
#include "lazax/ir/builder.h"

namespace lazax::bench {
namespace {

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double best(int reps, auto&& f) {
  f();  // warm-up
  double b = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = seconds();
    f();
    b = std::min(b, seconds() - t0);
  }
  return b;
}

Literal random_bf16(int64_t n, uint32_t seed) {
  Literal l = Literal::zeros({DType::bf16, Shape{n, n}});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < l.numel(); ++i) l.data<bf16>()[i] = bf16(u(rng));
  return l;
}

}  // namespace

nlohmann::json gemm_bf16_bench(int reps) {
  const int64_t n = 1024;
  Builder b;
  auto x = b.param({DType::bf16, Shape{n, n}});
  auto w = b.param({DType::bf16, Shape{n, n}});
  auto y = b.add(OpCode::dot_general, {x, w}, DotGeneralAttrs{{}, {}, {1}, {0}});
  auto f = b.build({y});
  const Literal a = random_bf16(n, 1), c = random_bf16(n, 2);
  auto exe = make_backend("cpu")->compile(f);
  const std::vector<Literal> args = {a, c};
  const double lazax = best(reps, [&] { exe->run(args); });

  using dnnl::memory;
  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  memory::desc md({n, n}, memory::data_type::bf16, memory::format_tag::ab);
  dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), e));
  std::vector<uint16_t> out(static_cast<size_t>(n * n));
  memory am(md, e, const_cast<void*>(a.buffer.data()));  // NOLINT: read only
  memory bm(md, e, const_cast<void*>(c.buffer.data()));  // NOLINT: read only
  memory cm(md, e, out.data());
  dnnl::stream s(e);
  const double onednn = best(reps, [&] {
    prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    s.wait();
  });
  const double flops = 2.0 * static_cast<double>(n * n * n);
  return {{"gemm_bf16_gflops", flops / lazax / 1e9},
          {"gemm_bf16_onednn_gflops", flops / onednn / 1e9},
          {"gemm_bf16_vs_onednn_1024", onednn / lazax}};
}

}  // namespace lazax::bench
