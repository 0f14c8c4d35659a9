// A directory of a run's training checkpoints (as Orbax's CheckpointManager): one file per saved
// step, "step-00000100.safetensors" (save_checkpoint's format, written atomically), the newest
// `keep` kept. A run that is killed at any moment leaves the newest complete checkpoint intact
// (and at most a temporary "*.tmp-XXXXXX" file, removed by remove_stale_temporaries); one run
// writes a directory at a time.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lazax/optim/checkpoint.h"

namespace lazax::optim {

struct CheckpointEntry {
  int64_t step = 0;
  std::string path;
};

class CheckpointDir {
 public:
  // Creates `dir` when it is missing; IOError naming it when it cannot be created or is not a
  // writable directory. `keep` >= 1.
  CheckpointDir(std::string dir, int64_t keep);

  const std::string& dir() const { return dir_; }
  std::string path_for(int64_t step) const;
  // The checkpoints in the directory, by step (files named as path_for names them).
  std::vector<CheckpointEntry> list() const;

  // Writes the checkpoint of `info.step` (save_checkpoint), then removes the oldest ones until
  // `keep` are left (never the one just written, never any newer one). On failure (a full disk,
  // an unwritable directory) an IOError says what failed and that the newest previous checkpoint
  // is intact; nothing was removed, and the tensors, optimizer and generator are unchanged.
  void save(const NamedTensors& weights, const Optimizer* optimizer, const Generator* generator,
            const CheckpointInfo& info);
  // The same with the optimizer's state as a state_dict (save_checkpoint's second form).
  void save_state(const NamedTensors& weights, const OptimizerState* optimizer_state,
                  const Generator* generator, const CheckpointInfo& info);

  // The newest checkpoint that verify_checkpoint accepts, or nullopt. Each newer one that it
  // refuses is renamed to "<name>.corrupt" (kept for a look, out of the listing), and its error
  // appended to `skipped` when given.
  std::optional<CheckpointEntry> newest_intact(std::vector<std::string>* skipped = nullptr);

  // Removes the temporary files of writes that did not finish (a killed process); their number.
  int remove_stale_temporaries();

 private:
  std::string dir_;
  int64_t keep_;
};

}  // namespace lazax::optim
