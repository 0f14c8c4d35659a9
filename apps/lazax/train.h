// `lazax train` and `lazax sample`: the options, the checkpoint format and the pieces shared by
// the training loop (train_cmd.cc), the sampler (sample_cmd.cc) and the bench (bench_train.cc).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazax/backend/backend.h"
#include "lazax/nn/llama.h"
#include "lazax/runtime/context.h"

namespace lazax::cli {

struct TrainOptions {
  std::string model = "tiny";
  // Overrides of the preset (0: the preset's).
  int64_t dim = 0, layers = 0, heads = 0, hidden = 0, batch = 0, seq = 0;
  int64_t steps = 200;
  double bucket_mb = 25;  // under mpirun: gradients averaged in all_reduce buckets of this size
  std::string shard = "none";  // none (DDP), optimizer (ZeRO-1/2) or full (FSDP)
  double lr = 3e-3;
  double weight_decay = 0.01;
  std::string optimizer = "adamw";
  uint64_t seed = 0;
  std::string corpus;  // empty: the fortunes
  std::string mode = "lazy";
  std::string remat = "none";
  // bf16: matmuls under Autocast(bf16); a jmp policy string: the model under that Policy
  // (apply_precision); f32 weights and state either way
  std::string precision = "f32";
  bool print_residuals = false;  // list what a layer's backward keeps (--mode assume_pure)
  std::string init, batches, save, resume, log, svg = "loss.svg";
  std::string schedule = "cosine";
  // Checkpoints (train_checkpoints.h): --resume is a file, a directory or "auto".
  std::string checkpoint_dir;
  int64_t save_every = 0;     // steps (0: off)
  double save_every_min = 0;  // wall minutes (0: off)
  int64_t keep = 3;
  int64_t warmup = 0;
  double clip = 1.0;
  int64_t eval_every = 0;  // 0: at the end only
  int64_t threads = 0;
  std::string backend = Context::get().options().backend;
  int64_t sample_tokens = 200;  // sampled at the end (0: none)
  std::string sample_prompt = "Q: ";
  bool quiet = false;   // no metrics report (tests)
  std::string summary;  // a JSON summary of the run here (lazax bench train)
};

// The model's configuration from the preset and the overrides.
nn::LlamaConfig model_config(const TrainOptions& o);

// Reads a checkpoint's model configuration from its metadata (written by `lazax train --save`).
nn::LlamaConfig checkpoint_config(const std::string& path);

// Loads --init weights (a safetensors file of the model's parameters under their names, or the
// weights of a training checkpoint) into `model`. A missing, unexpected or wrongly shaped or typed
// entry is a ValueError / ShapeError naming it and the file.
void load_weights(nn::Llama& model, const std::string& path);

// What --precision accepts: "f32", "bf16" (Autocast, set by the caller) or a jmp policy string
// (lazax::Policy::parse, "params=f32,compute=bf16,output=f32") whose params are f32. Returns the
// problem, or "" when `precision` is good.
std::string precision_problem(const std::string& precision);
// --precision POLICY: gives `model` the policy and its RMSNorms compute=f32, output=the policy's
// compute dtype (docs/PRECISION.md's recipe); "f32" and "bf16" leave the model as it is.
void apply_precision(nn::Llama& model, const std::string& precision);

// `n` bytes sampled after `prompt` at `temperature` (0: the most likely byte), feeding the model
// windows of its training length.
std::string sample_text(const nn::Llama& model, const std::string& prompt, int64_t n,
                        double temperature, uint64_t seed);

// `text` for a terminal: bytes other than printable ASCII, newline and tab become '?' (a model
// early in training emits any byte).
std::string printable(const std::string& text);

int train(const TrainOptions& o);

}  // namespace lazax::cli
