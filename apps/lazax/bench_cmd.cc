// `lazax bench NAME`: runs one of the benchmarks in bench/ and prints a table, or one JSON object
// with --json.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "assume_pure_bench.h"
#include "cli.h"
#include "kernels_bench.h"
#include "remat_bench.h"
#include "scan_bench.h"
#include "trace_bench.h"
#include "vmap_bench.h"

namespace lazax::cli {

namespace {

template <class Result>
void print_result(const Result& r, bool json) {
  if (json) {
    std::printf("%s\n", bench::to_json(r).dump().c_str());
  } else {
    std::fputs(bench::to_table(r).c_str(), stdout);
  }
}

void add_trace(CLI::App& bench) {
  auto options = std::make_shared<bench::TraceBenchOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = bench.add_subcommand(
      "trace", "The host cost of recording ops and of looking up a graph, next to peers");
  sub->footer(
      "The host cost of recording one op (ns/op, f32[16], long chains) and of hashing and\n"
      "looking up a graph at sync (ns/node), next to LibTorch's eager add and PyTorch's lazy\n"
      "tensor tracing (torch._lazy) measured on this machine when installed.");
  sub->add_flag("--json", *json, "print one JSON object instead of a table (absent peers: null)");
  sub->add_option("--ops", options->ops, "ops per timed chain (default 10000)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  sub->add_option("--reps", options->reps, "repetitions; figures are medians (default 9)")
      ->check(CLI::Range(1, 1000));
  sub->add_flag_callback(
      "--no-peers", [options] { options->peers = false; }, "skip LibTorch and torch._lazy");
  sub->callback([options, json] { print_result(bench::run_trace_bench(*options), *json); });
}

void add_assume_pure(CLI::App& bench) {
  auto options = std::make_shared<bench::AssumePureBenchOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = bench.add_subcommand(
      "assume-pure", "Host ms per training step of a decoder with and without assume_pure");
  sub->footer(
      "Host ms per training step of nn::Llama (dim 128, vocab 256, batch 2, seq 8) in plain\n"
      "lazy mode, with assume_pure over each layer, and with twice the ops per layer; the\n"
      "optimizer apart; next to torch._lazy tracing the same model.");
  sub->add_flag("--json", *json, "print one JSON object instead of a table (absent peers: null)");
  sub->add_option("--layers", options->layers, "decoder layers (default 100)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}));
  sub->add_option("--steps", options->steps, "timed steps per mode (default 100)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--warmup", options->warmup, "untimed steps first (default 2)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--torch-steps", options->torch_steps,
                  "timed steps of the torch._lazy peer (default 10)")
      ->check(CLI::Range(1, 10000));
  sub->add_option("--only", options->only, "profiling aid: run only this mode (the others print 0)")
      ->check(CLI::IsMember({"lazy", "assume_pure", "double"}));
  sub->add_flag_callback(
      "--no-peers", [options] { options->peers = false; }, "skip torch._lazy");
  sub->callback([options, json] { print_result(bench::run_assume_pure_bench(*options), *json); });
}

void add_kernels(CLI::App& bench) {
  auto options = std::make_shared<bench::KernelsBenchOptions>();
  CLI::App* sub = bench.add_subcommand(
      "kernels", "The cpu backend's kernels against oneDNN, a STREAM triad and PyTorch");
  sub->footer(
      "GEMM through dot_general against oneDNN's own sgemm (256, 1024, 2048, and with a\n"
      "transposed operand), a bf16 1024 GEMM against oneDNN's bf16 matmul (gemm_bf16_*), a\n"
      "fused 6-op elementwise chain against a STREAM triad's bandwidth,\n"
      "softmax and RMS norm over [4096, 4096] (GB/s, one read and one write) against PyTorch.");
  sub->add_flag("--json", options->json, "print one JSON object instead of a table");
  sub->add_flag_callback(
      "--no-peers", [options] { options->peers = false; }, "skip PyTorch");
  sub->add_flag("--cpu-time", options->cpu_time,
                "time by process CPU time instead of wall time (for a loaded machine)");
  sub->add_option("--reps", options->reps, "repetitions; figures are medians (default 5)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--decoder", options->decoder_steps,
                  "only time this many training steps of nn::Llama (tiny size, 4 heads)")
      ->check(CLI::Range(1, 100));
  sub->callback([options] { bench::run_kernels_bench(*options); });
}

void add_remat(CLI::App& bench) {
  auto options = std::make_shared<bench::RematBenchOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = bench.add_subcommand(
      "remat", "What each remat policy saves for nn::Llama's backward, and what it costs");
  sub->footer(
      "nn::Llama at the tiny sizes, layers as assume_pure calls under each policy (none is\n"
      "lazax's default split): bytes the blocks' backward keeps, the matmul FLOPs it\n"
      "recomputes beyond everything_saveable, the best step time and peak live bytes.");
  sub->add_flag("--json", *json, "print one JSON array instead of a table");
  sub->add_option("--steps", options->steps, "timed steps per policy (default 3)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--layers", options->layers, "decoder layers (default tiny's 4)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  sub->callback([options, json] {
    nlohmann::json rows = bench::run_remat_bench(*options);
    if (*json) {
      std::printf("%s\n", rows.dump().c_str());
      return;
    }
    std::printf("%-34s %10s %10s %14s %10s %10s\n", "policy", "saved MB", "host MB", "recompute GF",
                "step ms", "peak MB");
    for (const auto& r : rows) {
      std::printf("%-34s %10.1f %10.1f %14.2f %10.1f %10.1f\n",
                  r["policy"].get<std::string>().c_str(), r["device_bytes"].get<double>() / 1e6,
                  r["host_bytes"].get<double>() / 1e6, r["recompute_flops"].get<double>() / 1e9,
                  r["step_ms"].get<double>(), r["peak_bytes"].get<double>() / 1e6);
    }
  });
}

void add_scan(CLI::App& bench) {
  auto options = std::make_shared<bench::ScanBenchOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = bench.add_subcommand(
      "scan", "First-step time of a deep decoder: layers unrolled against one scan_layers");
  sub->footer(
      "nn::Llama with 32 layers at small sizes (dim 64, batch 1, seq 16: the figure is about\n"
      "tracing and compiling): the time of the first training step (trace, compile and\n"
      "run of forward and backward, from empty program caches) with the layers unrolled and as\n"
      "one scan over their stacked parameters, a second step of each, and the largest\n"
      "difference between their parameter gradients.");
  sub->add_flag("--json", *json, "print one JSON object instead of a table");
  sub->add_option("--layers", options->layers, "decoder layers (default 32)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  sub->add_option("--dim", options->dim, "model width, a multiple of 8 (default 64)")
      ->check(CLI::Range(int64_t{8}, int64_t{8192}));
  sub->add_option("--batch", options->batch, "batch size (default 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  sub->add_option("--seq", options->seq, "sequence length (default 16)")
      ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  sub->add_option("--reps", options->reps, "repetitions; figures are medians (default 3)")
      ->check(CLI::Range(1, 100));
  sub->callback([options, json] {
    nlohmann::json r = bench::run_scan_bench(*options);
    if (*json) {
      std::printf("%s\n", r.dump().c_str());
      return;
    }
    std::printf("%-10s %14s %10s\n", "mode", "first step ms", "step ms");
    std::printf("%-10s %14.1f %10.1f\n", "unrolled", r["unrolled_compile_ms"].get<double>(),
                r["unrolled_step_ms"].get<double>());
    std::printf("%-10s %14.1f %10.1f\n", "scan", r["scan_compile_ms"].get<double>(),
                r["scan_step_ms"].get<double>());
    std::printf(
        "first step %.1fx faster with scan (trace and compile %.1fx); max gradient "
        "difference %.3g\n",
        r["compile_speedup"].get<double>(), r["trace_compile_speedup"].get<double>(),
        r["max_grad_diff"].get<double>());
  });
}

void add_vmap(CLI::App& bench) {
  auto options = std::make_shared<bench::VmapBenchOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = bench.add_subcommand(
      "vmap", "Per-example gradients of an MLP: vmap(grad) against a loop of grads and PyTorch");
  sub->footer(
      "An MLP (in -> hidden, tanh -> out, squared error): the gradient of each example of a\n"
      "batch, by vmap(grad(loss)), by a loop of one grad per example (lazax), and by PyTorch's\n"
      "loop of per-example backward passes (null without torch). Figures are medians of\n"
      "compiled calls, each synced.");
  sub->add_flag("--json", *json, "print one JSON object instead of a table");
  sub->add_option("--batch", options->batch, "examples (default 64)")
      ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  sub->add_option("--reps", options->reps, "repetitions; figures are medians (default 5)")
      ->check(CLI::Range(1, 100));
  sub->callback([options, json] {
    nlohmann::json r = bench::run_vmap_bench(*options);
    if (*json) {
      std::printf("%s\n", r.dump().c_str());
      return;
    }
    std::printf("vmap %.2f ms, loop %.2f ms (%.1fx), torch loop %s ms; max difference %.3g\n",
                r["vmap_ms"].get<double>(), r["loop_ms"].get<double>(), r["speedup"].get<double>(),
                r["torch_loop_ms"].dump().c_str(), r["max_diff"].get<double>());
  });
}

}  // namespace

void add_bench_command(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Measure lazax; `lazax bench NAME --help`");
  bench->require_subcommand(1);
  add_trace(*bench);
  add_assume_pure(*bench);
  add_bench_train(*bench);
  add_bench_dist(*bench);
  add_kernels(*bench);
  add_remat(*bench);
  add_scan(*bench);
  add_vmap(*bench);
}

}  // namespace lazax::cli
