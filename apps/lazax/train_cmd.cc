// The command lines of `lazax train` and `lazax sample` (CLI11).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli.h"
#include "lazax/api/autocast.h"
#include "lazax/optim/checkpoint.h"
#include "lazax/runtime/context.h"
#include "train.h"

namespace lazax::cli {
namespace {

using Range64 = CLI::Range;

// --precision: f32, bf16 or a jmp policy string (precision_problem, train.h).
CLI::Validator precision_validator() {
  return {[](std::string& v) { return precision_problem(v); }, "PRECISION", "precision"};
}

void add_sizes(CLI::App* sub, TrainOptions& o) {
  sub->add_option("--model", o.model,
                  "size preset: tiny (dim 256, 4 layers) or small (dim 512, "
                  "8 layers)")
      ->check(CLI::IsMember({"tiny", "small"}));
  const auto pos = CLI::Range(int64_t{1}, int64_t{1} << 20);
  sub->add_option("--dim", o.dim, "model width (overrides the preset)")->check(pos);
  sub->add_option("--layers", o.layers, "decoder layers (overrides the preset)")->check(pos);
  sub->add_option("--heads", o.heads, "attention heads (overrides the preset)")->check(pos);
  sub->add_option("--hidden", o.hidden, "MLP hidden size (overrides the preset)")->check(pos);
  sub->add_option("--batch", o.batch, "sequences per step (overrides the preset)")->check(pos);
  sub->add_option("--seq", o.seq, "tokens per sequence (overrides the preset)")->check(pos);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* sub = app.add_subcommand("train", "Train the byte-level Llama-style language model");
  sub->footer(
      "Trains on the fortunes corpus (or --corpus) and prints a progress line; at the end the\n"
      "metrics report, the loss curve (--svg) and text sampled from the model.\n"
      "Checkpoints: --checkpoint-dir DIR --save-every N writes DIR/step-<N>.safetensors every N\n"
      "steps (atomically; the newest --keep kept); relaunching the same command with --resume "
      "auto\n"
      "continues from the newest intact one. SIGTERM or Ctrl-C stops after the current step, "
      "writes\n"
      "a checkpoint (to DIR and --save) and exits 143 (SIGTERM) or 130 (SIGINT); a second one "
      "ends\n"
      "the run at once. SIGUSR1 writes a checkpoint and goes on.");
  add_sizes(sub, *o);
  sub->add_option("--steps", o->steps, "training steps (default 200)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  sub->add_option("--lr", o->lr, "peak learning rate (default 3e-3)")->check(CLI::Range(0.0, 10.0));
  sub->add_option("--weight-decay", o->weight_decay, "decoupled weight decay (default 0.01)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--optimizer", o->optimizer, "adamw (default) or sgd (momentum 0.9)")
      ->check(CLI::IsMember({"adamw", "sgd"}));
  sub->add_option("--seed", o->seed, "seed of the initialization and of the batches (default 0)");
  sub->add_option("--corpus", o->corpus,
                  "a text file to learn (default: the fortunes in /usr/share/games/fortunes)");
  sub->add_option("--mode", o->mode,
                  "how the layers run: lazy, assume_pure (each layer traced once) or scan")
      ->check(CLI::IsMember({"lazy", "assume_pure", "scan"}));
  sub->add_option("--precision", o->precision,
                  "f32; bf16: matmuls in bf16 (lazax::Autocast, docs/PRECISION.md); or a jmp "
                  "policy such as params=f32,compute=bf16,output=f32: the model computes in bf16, "
                  "its norms in f32 (lazax::Policy). Master weights, optimizer state and "
                  "checkpoints stay f32 (default f32)")
      ->check(precision_validator());
  sub->add_option(
      "--remat", o->remat,
      "what each layer's backward keeps, with --mode assume_pure or scan: none (lazax's default "
      "split), nothing_saveable, everything_saveable, dots_saveable, "
      "dots_with_no_batch_dims_saveable, offload_dot_with_no_batch_dims");
  sub->add_flag("--print-residuals", o->print_residuals,
                "with --mode assume_pure: list what each layer's backward keeps, one line per "
                "value, and where in the model it was made (JAX's print_saved_residuals)");
  sub->add_option("--init", o->init, "start from these weights (FILE.safetensors)");
  sub->add_option("--batches", o->batches,
                  "train on these token ids, in order: an int32/int64 .npy [steps, batch, seq+1]");
  sub->add_option("--schedule", o->schedule,
                  "constant, or cosine (linear warm-up, cosine decay to 10 %; default)")
      ->check(CLI::IsMember({"constant", "cosine"}));
  sub->add_option("--warmup", o->warmup, "warm-up steps of the cosine schedule (default 0)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000000}));
  sub->add_option("--clip", o->clip, "clip the gradients' global norm to this (0: off; default 1)")
      ->check(CLI::Range(0.0, 1e30));
  sub->add_option("--save", o->save,
                  "write a training checkpoint here at the end or when stopped (safetensors)");
  sub->add_option("--resume", o->resume,
                  "continue a run: a checkpoint FILE, a DIR of checkpoints (the newest intact "
                  "one), or auto (the newest in --checkpoint-dir, else start fresh)");
  sub->add_option("--checkpoint-dir", o->checkpoint_dir,
                  "write the run's checkpoints into this directory (step-<N>.safetensors)");
  sub->add_option("--save-every", o->save_every,
                  "a checkpoint every N steps into --checkpoint-dir (0: off)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000000}));
  sub->add_option("--save-every-min", o->save_every_min,
                  "a checkpoint when M wall minutes passed since the last one (0: off)")
      ->check(CLI::Range(0.0, 1e6));
  sub->add_option("--keep", o->keep, "checkpoints kept in --checkpoint-dir (default 3)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  sub->add_option("--eval-every", o->eval_every,
                  "validation loss every N steps (default: at the end only)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000000}));
  sub->add_option("--bucket-mb", o->bucket_mb,
                  "under mpirun: average the gradients in all_reduce buckets of this many MiB "
                  "(default 25, as PyTorch's DDP)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--shard", o->shard,
                  "under mpirun: none (default: every rank holds everything, DDP), optimizer "
                  "(each rank 1/N of the optimizer state and gradients, ZeRO-1/2) or full (the "
                  "parameters too, FSDP)");
  sub->add_option("--log", o->log, "one JSON object per step to this file (JSON Lines)");
  sub->add_option("--svg", o->svg, "the loss-curve picture (default loss.svg; '' for none)");
  sub->add_option("--sample", o->sample_tokens, "bytes to sample at the end (default 200)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000}));
  sub->add_option("--threads", o->threads,
                  "threads of the cpu backend (default: the machine's cores)")
      ->check(CLI::Range(int64_t{0}, int64_t{1024}));
  sub->add_option("--backend", o->backend, "the backend (default: $LAZAX_BACKEND, else cpu)")
      ->check(backend_validator());
  sub->add_flag("--quiet", o->quiet, "no metrics report");
  sub->add_option("--summary", o->summary,
                  "write a JSON summary (ms per step after 2 warm-up steps, compile ms, peak RSS)");
  sub->callback([o] {
    int code = train(*o);
    if (code != 0) std::exit(code);
  });
}

void add_sample_command(CLI::App& app) {
  struct SampleOptions {
    std::string checkpoint, prompt = "Q: ", backend = Context::get().options().backend;
    int64_t tokens = 200;
    double temperature = 0.8;
    uint64_t seed = 0;
    std::string precision = "f32";
  };
  auto o = std::make_shared<SampleOptions>();
  CLI::App* sub =
      app.add_subcommand("sample", "Print text sampled from a model saved by `lazax train`");
  sub->add_option("--checkpoint", o->checkpoint, "the checkpoint (lazax train --save)")->required();
  sub->add_option("--prompt", o->prompt, "the text to continue (default \"Q: \")");
  sub->add_option("--tokens", o->tokens, "bytes to sample (default 200)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  sub->add_option("--temperature", o->temperature,
                  "softmax temperature (default 0.8; 0: always the likeliest byte)")
      ->check(CLI::Range(0.0, 100.0));
  sub->add_option("--seed", o->seed, "seed of the sampling (default 0)");
  sub->add_option("--precision", o->precision,
                  "f32; bf16: matmuls in bf16 (lazax::Autocast); or a policy as for train "
                  "(lazax::Policy), on the f32 checkpoint's weights (default f32)")
      ->check(precision_validator());
  sub->add_option("--backend", o->backend, "the backend (default: $LAZAX_BACKEND, else cpu)")
      ->check(backend_validator());
  sub->callback([o] {
    std::optional<Autocast> autocast;
    if (o->precision == "bf16") autocast.emplace(DType::bf16);
    nn::LlamaConfig c = checkpoint_config(o->checkpoint);
    Context::get().set_backend(o->backend);
    nn::Llama model(c);
    optim::load_checkpoint(o->checkpoint, model.named_parameters(), nullptr, nullptr);
    apply_precision(model, o->precision);
    std::string text = sample_text(model, o->prompt, o->tokens, o->temperature, o->seed);
    std::printf("%s%s\n", o->prompt.c_str(), printable(text).c_str());
  });
}

}  // namespace lazax::cli
