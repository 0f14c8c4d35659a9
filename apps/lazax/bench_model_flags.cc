// add_bench_model_options (cli.h): the model and step flags of `bench train` and `bench dist`.
#include <CLI/CLI.hpp>

#include "cli.h"
#include "train.h"

namespace lazax::cli {

void add_bench_model_options(CLI::App& sub, TrainOptions& train, int64_t& warmup,
                             const char* batch_help) {
  sub.add_option("--model", train.model, "tiny (default) or small")
      ->check(CLI::IsMember({"tiny", "small"}));
  const auto pos = CLI::Range(int64_t{1}, int64_t{1} << 20);
  sub.add_option("--dim", train.dim, "override the preset's width")->check(pos);
  sub.add_option("--layers", train.layers, "override the preset's layers")->check(pos);
  sub.add_option("--heads", train.heads, "override the preset's heads")->check(pos);
  sub.add_option("--hidden", train.hidden, "override the preset's MLP size")->check(pos);
  sub.add_option("--batch", train.batch, batch_help)->check(pos);
  sub.add_option("--seq", train.seq, "override the preset's sequence length")->check(pos);
  sub.add_option("--steps", train.steps, "timed steps (default 5)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  sub.add_option("--warmup", warmup, "untimed steps first (default 2)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
}

}  // namespace lazax::cli
