// `lazax train`'s checkpoints: where a run starts (--resume FILE, DIR or auto), where its
// checkpoints go (--save FILE, --checkpoint-dir DIR with --save-every, --save-every-min, --keep)
// and what each one holds: the weights, the optimizer state, the generator, the step (which is
// the schedule's position and the --batches position) and the batch sampler's state.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "lazax/nn/llama.h"
#include "lazax/optim/checkpoint.h"
#include "lazax/optim/checkpoint_dir.h"
#include "train.h"

namespace lazax::cli {

// The state a checkpoint restores beyond the tensors.
struct Resumed {
  int64_t step = 0;
  uint64_t rng_state = 0;
};

class RunCheckpoints {
 public:
  // Checks the checkpoint flags and opens (creates) --checkpoint-dir; errors name the flag.
  explicit RunCheckpoints(const TrainOptions& o);

  // The checkpoint the run continues from ("" to start fresh), printing which and why: --resume
  // FILE is that file (a bad one is an error); DIR or auto the newest intact checkpoint of the
  // directory, skipping (and saying so) newer corrupt ones. A fresh run, or one resumed from
  // step s, refuses a --checkpoint-dir that holds checkpoints of later steps.
  std::string resume_path();

  // Loads `path` into the model, optimizer and generator; checks the sizes against `c`. The
  // file's optimizer state (full shapes) passes through `adapt` (a sharded optimizer's slice).
  static Resumed load(const std::string& path, nn::Llama& model, optim::Optimizer& opt,
                      const nn::LlamaConfig& c, const optim::AdaptState& adapt = {});

  // Whether the loop should checkpoint after `step` (--save-every, --save-every-min, SIGUSR1).
  bool due(int64_t step, bool requested);
  bool has_dir() const { return dir_.has_value(); }
  // Writes the checkpoint of `step` to --checkpoint-dir (unless it holds that step already) and,
  // when `final` and --save is given, to --save; prints where. The weights and the optimizer
  // state are in full shapes (gathered when sharded), so the file is the same whatever --shard.
  void save(int64_t step, bool final, const optim::NamedTensors& weights,
            const optim::OptimizerState& state, const nn::LlamaConfig& c, uint64_t rng_state);

 private:
  const TrainOptions& o_;
  std::optional<optim::CheckpointDir> dir_;
  int64_t last_saved_ = -1;
  double last_save_s_ = 0;  // steady clock, seconds
};

// Drops the lines of a --log file after `step` (a run killed after logging a step it did not
// checkpoint), so that the resumed run's lines follow on.
void trim_log(const std::string& path, int64_t step);

}  // namespace lazax::cli
