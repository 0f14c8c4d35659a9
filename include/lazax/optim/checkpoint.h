// Checkpoints in the safetensors format (lazax/io/safetensors.h), written atomically.
//
// Weights alone (save_weights/load_weights): the tensors under their own names, as other tools
// write model weights. A training checkpoint (save_checkpoint/load_checkpoint) holds in one file
// everything a resumed run needs to continue bit for bit:
//   tensors   "model.<name>" (weights), "optim.<entry>" (Optimizer::state_dict), "rng.state"
//             (Generator::get_state, i64[2])
//   metadata  "format" = "lazax-training-checkpoint/2", "step", "data_position",
//             "optim.kind", "optim.lr" (%.17g), "optim.step", the caller's extra keys, and
//             "checksum": 16 hex digits of a hash (XXH3, core/hash.h) of every tensor's name,
//             type and bytes and every other metadata key and value, in the file's order.
// Loading is strict and all-or-nothing: a missing, unexpected or wrongly typed entry is an error
// naming it (and the file), and then no weight, optimizer or generator has changed. A truncated
// file is an IOError of the safetensors reader; a file whose checksum does not match (a flipped
// bit, a changed value) is an IOError "corrupt". Version 1 files (no checksum) are still read.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lazax/api/random.h"
#include "lazax/optim/optimizer.h"

namespace lazax::optim {

// Writes `weights` under their names (synced first: one sync for all of them).
void save_weights(const std::string& path, const NamedTensors& weights);
// Replaces the values of `weights` (in place: every handle to them sees the new values) by the
// file's tensors of the same names. Strict: each weight must be in the file with its dtype and
// shape, and the file must hold nothing else; IOError for a bad file, ValueError naming the
// entries otherwise.
void load_weights(const std::string& path, const NamedTensors& weights);

struct CheckpointInfo {
  int64_t step = 0;           // training steps done
  int64_t data_position = 0;  // where the training data continues (batches or tokens consumed)
  // More metadata (string values); keys must not clash with the reserved ones above.
  std::vector<std::pair<std::string, std::string>> extra;
};

// Writes a training checkpoint. `optimizer` and `generator` may be null (not saved).
void save_checkpoint(const std::string& path, const NamedTensors& weights,
                     const Optimizer* optimizer, const Generator* generator,
                     const CheckpointInfo& info);
// The same with the optimizer's state given as a state_dict (null: not saved): a sharded
// optimizer passes its state gathered to the parameters' full shapes, so that the file is the
// same as an unsharded optimizer's.
void save_checkpoint_state(const std::string& path, const NamedTensors& weights,
                           const OptimizerState* optimizer_state, const Generator* generator,
                           const CheckpointInfo& info);
// Reads the checkpoint at `path` and checks its format and checksum without loading it (the
// errors of load_checkpoint's file checks); returns its step, data position and extra metadata.
CheckpointInfo verify_checkpoint(const std::string& path);

// Restores what save_checkpoint wrote into `weights` (in place), `optimizer` and `generator`
// (each may be null: then what the file holds for it is ignored) and returns
// the step, data position and extra metadata. Strict about weights and optimizer state (see
// above); a generator asked for must be in the file.
// `adapt`, when given, maps the file's optimizer state before it is checked and loaded (a sharded
// optimizer takes its rank's slice of each full-shaped entry).
using AdaptState = std::function<OptimizerState(const OptimizerState&)>;
CheckpointInfo load_checkpoint(const std::string& path, const NamedTensors& weights,
                               Optimizer* optimizer, Generator* generator,
                               const AdaptState& adapt = {});

}  // namespace lazax::optim
