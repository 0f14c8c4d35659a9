// `lazax bench train`: the same model, weights and batches trained by `lazax train` and by
// PyTorch (bench/torch_train.py, eager and TorchScript, the better reported), each in a process
// of its own so that its peak RSS is its own.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "batches.h"
#include "cli.h"
#include "corpus.h"
#include "lazax/core/error.h"
#include "lazax/io/npy.h"
#include "lazax/io/safetensors.h"
#include "subprocess.h"
#include "train.h"

namespace lazax::cli {
namespace {

namespace fs = std::filesystem;

struct BenchTrainOptions {
  TrainOptions train;
  int64_t warmup = 2;
  int64_t threads = 0;
  bool json = false;
  bool peers = true;
};

nlohmann::json last_json(const std::string& what, const std::pair<int, std::string>& run) {
  std::string line = bench::last_line(run.second);
  if (run.first != 0 || line.empty() || line[0] != '{') {
    throw Error("[bench train] " + what + " failed (exit " + std::to_string(run.first) +
                "): " + run.second.substr(run.second.size() > 2000 ? run.second.size() - 2000 : 0));
  }
  return nlohmann::json::parse(line);
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

void bench_train(const BenchTrainOptions& o) {
  nn::LlamaConfig c = model_config(o.train);
  const int64_t threads =
      o.threads > 0 ? o.threads : std::max<int64_t>(1, std::thread::hardware_concurrency());
  std::string tmpl = (fs::temp_directory_path() / "lazax-bench-train-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw IOError("[bench train] cannot create " + tmpl);
  const fs::path dir = tmpl;
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};

  // The same initial weights and batches for both.
  {
    manual_seed(o.train.seed);
    nn::Llama model(c);
    SafetensorsFile f;
    for (const auto& [name, t] : model.named_parameters())
      f.tensors.emplace_back(name, t.literal());
    write_safetensors((dir / "init.safetensors").string(), f);
  }
  const int64_t total = o.warmup + o.train.steps;
  std::string text;
  try {
    text = train::read_fortunes();
  } catch (const IOError&) {
    for (int i = 0; i < 1 << 16; ++i) text += static_cast<char>('a' + i * 7919 % 26);
  }
  train::CorpusSampler sampler(text, c.batch, c.seq, 1);
  std::vector<int64_t> ids;
  for (int64_t s = 0; s < total; ++s)
    for (int32_t v : sampler.next()) ids.push_back(v);
  write_npy((dir / "batches.npy").string(),
            Literal::from_vector<int64_t>(ids, Shape{total, c.batch, c.seq + 1}));

  using bench::shell_quote;
  const std::string tool = sibling_tool("lazax");
  const std::string init = shell_quote((dir / "init.safetensors").string());
  const std::string batches = shell_quote((dir / "batches.npy").string());
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string cmd =
      shell_quote(tool) + " train --dim " + n(c.dim) + " --layers " + n(c.n_layers) + " --heads " +
      n(c.n_heads) + " --hidden " + n(c.hidden) + " --init " + init + " --batches " + batches +
      " --steps " + n(total) + " --schedule constant --clip 0 --lr 1e-3 --mode " + o.train.mode +
      " --precision " + shell_quote(o.train.precision) + " --backend " + o.train.backend +
      " --threads " + n(threads) + " --svg '' --sample 0 --quiet --summary " +
      shell_quote((dir / "lazax.json").string()) + " 2>&1";
  auto [code, out] = bench::run_command(cmd);
  if (code != 0) {
    throw Error("[bench train] lazax train failed (exit " + std::to_string(code) +
                "): " + bench::last_line(out));
  }
  nlohmann::json lz = read_json(dir / "lazax.json");

  nlohmann::ordered_json r;
  r["model"] = {{"dim", c.dim},       {"layers", c.n_layers}, {"heads", c.n_heads},
                {"hidden", c.hidden}, {"batch", c.batch},     {"seq", c.seq}};
  r["steps"] = o.train.steps;
  r["threads"] = threads;
  r["backend"] = o.train.backend;
  r["precision"] = o.train.precision;
  r["lazax_ms_per_step"] = lz["ms_per_step"];
  r["lazax_compile_ms"] = lz["compile_ms"];
  r["lazax_peak_rss_mb"] = lz["peak_rss_mb"];
  r["lazax_last_loss"] = lz["last_loss"];
  r["lazax_infer_ms"] = lz["infer_ms"];
  r["torch_ms_per_step"] = nullptr;
  r["torch_infer_ms"] = nullptr;
  r["torch_peak_rss_mb"] = nullptr;
  r["torch_blas"] = nullptr;
  if (o.peers) {
    // PyTorch's best configuration, for its run alone.
    const std::string env =
        "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=" + n(threads) +
        " OMP_NUM_THREADS=" + n(threads) +
        " GOMP_SPINCOUNT=0 GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1073741824:"
        "glibc.malloc.trim_threshold=4294967296 /usr/bin/python3 " +
        shell_quote(std::string(LAZAX_SOURCE_DIR) + "/bench/torch_train.py") + " " + init + " " +
        batches + " --layers " + n(c.n_layers) + " --heads " + n(c.n_heads) + " --threads " +
        n(threads) + " --warmup " + n(o.warmup) + " --steps " + n(o.train.steps) +
        " --lr 1e-3 --mode ";
    nlohmann::json best;
    double best_infer = 0;
    for (const char* mode : {"eager", "script"}) {
      nlohmann::json t = last_json(std::string("PyTorch (") + mode + ")",
                                   bench::run_command(env + mode + " 2>&1"));
      r[std::string("torch_") + mode + "_ms_per_step"] = t["ms_per_step"];
      const double infer = t["infer_ms"].get<double>();
      if (best_infer == 0 || infer < best_infer) best_infer = infer;
      if (best.is_null() || t["ms_per_step"].get<double>() < best["ms_per_step"].get<double>())
        best = t;
    }
    r["torch_ms_per_step"] = best["ms_per_step"];
    r["torch_bf16_ms_per_step"] = nullptr;
    if (o.train.precision != "f32") {  // PyTorch's eager step under torch.autocast bf16
      nlohmann::json t =
          last_json("PyTorch (autocast bf16)", bench::run_command(env + "autocast 2>&1"));
      r["torch_bf16_ms_per_step"] = t["ms_per_step"];
      r["torch_bf16_last_loss"] = t["last_loss"];
      r["lazax_over_torch_bf16_time"] =
          lz["ms_per_step"].get<double>() / t["ms_per_step"].get<double>();
    }
    r["torch_infer_ms"] = best_infer;  // the better of eager and TorchScript, as the step
    r["torch_mode"] = best["mode"];
    r["torch_peak_rss_mb"] = best["peak_rss_mb"];
    r["torch_blas"] = best["blas"];
    r["torch_last_loss"] = best["last_loss"];
    const std::string blas = best["blas"].get<std::string>();
    const bool optimized = blas.find("openblas") != std::string::npos ||
                           blas.find("mkl") != std::string::npos ||
                           blas.find("blis") != std::string::npos;
    if (optimized) {
      r["lazax_over_torch_time"] =
          lz["ms_per_step"].get<double>() / best["ms_per_step"].get<double>();
      r["lazax_over_torch_infer"] = lz["infer_ms"].get<double>() / best_infer;
    } else {
      r["note"] =
          "PyTorch used the reference BLAS (" + blas + "): no ratio; install libopenblas0-pthread";
    }
  }
  if (o.json) {
    std::printf("%s\n", r.dump().c_str());
    return;
  }
  for (const auto& [k, v] : r.items()) std::printf("%-26s %s\n", k.c_str(), v.dump().c_str());
}

}  // namespace

void add_bench_train(CLI::App& bench) {
  auto o = std::make_shared<BenchTrainOptions>();
  o->train.steps = 5;
  CLI::App* sub = bench.add_subcommand(
      "train", "ms per training step of the issue-17 model in lazax and in PyTorch");
  sub->footer(
      "Trains the same model from the same weights on the same batches with `lazax train` and\n"
      "with PyTorch (bench/torch_train.py; eager and TorchScript, the better), each in its own\n"
      "process; reports ms per step after the warm-up, lazax's compile time, each peak RSS,\n"
      "ms per forward-only pass (the loss without gradients: inference) and the BLAS library\n"
      "PyTorch loaded (no ratio against the reference BLAS).");
  sub->add_flag("--json", o->json, "print one JSON object");
  add_bench_model_options(*sub, o->train, o->warmup, "override the preset's batch");
  sub->add_option("--threads", o->threads, "threads of each (default: the machine's cores)")
      ->check(CLI::Range(int64_t{0}, int64_t{1024}));
  sub->add_option("--precision", o->train.precision,
                  "f32 (default), bf16 (lazax's matmuls in bf16) or a jmp policy such as "
                  "params=f32,compute=bf16,output=f32 (as lazax train takes it); other than f32, "
                  "PyTorch also runs under torch.autocast bf16 (torch_bf16_ms_per_step)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (v == "f32" || v == "bf16" || v.find('=') != std::string::npos) return "";
            return "give f32, bf16 or a policy such as params=f32,compute=bf16,output=f32";
          },
          "PRECISION", "precision"));
  sub->add_option("--mode", o->train.mode, "lazax's layer mode (default lazy)")
      ->check(CLI::IsMember({"lazy", "assume_pure", "scan"}));
  sub->add_option("--backend", o->train.backend,
                  "lazax's backend (default: $LAZAX_BACKEND, else cpu)")
      ->check(backend_validator());
  sub->add_flag_callback(
      "--no-peers", [o] { o->peers = false; }, "skip PyTorch");
  sub->callback([o] { bench_train(*o); });
}

}  // namespace lazax::cli
