// `lazax train`'s checkpoints (train_checkpoints.h).
#include "train_checkpoints.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/io/file.h"
#include "lazax/optim/checkpoint.h"

namespace lazax::cli {
namespace {

namespace fs = std::filesystem;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool is_dir(const std::string& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool same_dir(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

uint64_t parse_u64(const std::string& v, const std::string& path) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') {
    throw ValueError("[train] " + escape_for_message(path) + ": the metadata " +
                     "'train.sampler_state' is '" + escape_for_message(v) +
                     "', not an integer; was it written by `lazax train`?");
  }
  return n;
}

}  // namespace

RunCheckpoints::RunCheckpoints(const TrainOptions& o) : o_(o), last_save_s_(now_s()) {
  std::string dir = o.checkpoint_dir;
  if (dir.empty() && !o.resume.empty() && o.resume != "auto" && is_dir(o.resume)) dir = o.resume;
  if ((o.save_every > 0 || o.save_every_min > 0) && dir.empty()) {
    throw ValueError(
        "[train] --save-every and --save-every-min write into a directory of checkpoints: add "
        "--checkpoint-dir DIR");
  }
  if (o.resume == "auto" && dir.empty()) {
    throw ValueError(
        "[train] --resume auto continues from the newest checkpoint in --checkpoint-dir: add "
        "--checkpoint-dir DIR (or give --resume a checkpoint file or directory)");
  }
  if (!dir.empty()) dir_.emplace(dir, o.keep);
}

std::string RunCheckpoints::resume_path() {
  std::string path;
  int64_t start = 0;
  if (dir_) {
    if (const int n = dir_->remove_stale_temporaries())
      std::printf("removed %d unfinished checkpoint write(s) in %s\n", n, dir_->dir().c_str());
  }
  if (o_.resume == "auto" || (!o_.resume.empty() && is_dir(o_.resume))) {
    std::optional<optim::CheckpointDir> other;
    if (o_.resume != "auto" && !same_dir(o_.resume, dir_->dir())) {
      other.emplace(o_.resume, o_.keep);
      other->remove_stale_temporaries();
    }
    optim::CheckpointDir& from = other ? *other : *dir_;
    std::vector<std::string> skipped;
    const std::optional<optim::CheckpointEntry> e = from.newest_intact(&skipped);
    for (const std::string& s : skipped)
      std::fprintf(stderr, "[train] skipping a checkpoint that does not load: %s\n", s.c_str());
    if (e) {
      path = e->path;
      start = e->step;
      std::printf("resuming from %s (step %lld)%s\n", path.c_str(), static_cast<long long>(start),
                  skipped.empty() ? "" : ", the newest intact checkpoint");
    } else {
      std::printf("no checkpoint in %s: starting fresh\n", from.dir().c_str());
    }
  } else if (!o_.resume.empty()) {
    path = o_.resume;
    start = optim::verify_checkpoint(path).step;
  }
  if (dir_) {
    for (const optim::CheckpointEntry& e : dir_->list()) {
      if (e.step <= start) continue;
      throw ValueError("[train] --checkpoint-dir " + escape_for_message(dir_->dir()) + " holds " +
                       escape_for_message(e.path) + ", of a later step than this run starts " +
                       "from (step " + std::to_string(start) +
                       "): continue that run with --resume auto, or give another directory");
    }
  }
  return path;
}

Resumed RunCheckpoints::load(const std::string& path, nn::Llama& model, optim::Optimizer& opt,
                             const nn::LlamaConfig& c, const optim::AdaptState& adapt) {
  nn::LlamaConfig saved = checkpoint_config(path);
  if (saved.dim != c.dim || saved.n_layers != c.n_layers || saved.n_heads != c.n_heads ||
      saved.hidden != c.hidden || saved.seq != c.seq || saved.batch != c.batch) {
    throw ValueError("[train] --resume " + escape_for_message(path) + " holds a model of dim " +
                     std::to_string(saved.dim) + ", " + std::to_string(saved.n_layers) +
                     " layers, " + std::to_string(saved.n_heads) + " heads, hidden " +
                     std::to_string(saved.hidden) + ", seq " + std::to_string(saved.seq) +
                     ", batch " + std::to_string(saved.batch) +
                     "; pass the same sizes as the run that wrote it");
  }
  optim::CheckpointInfo info =
      optim::load_checkpoint(path, model.named_parameters(), &opt, &default_generator(), adapt);
  Resumed r;
  r.step = info.step;
  for (const auto& [k, v] : info.extra)
    if (k == "train.sampler_state") r.rng_state = parse_u64(v, path);
  return r;
}

bool RunCheckpoints::due(int64_t step, bool requested) {
  if (requested) return true;
  if (!dir_) return false;
  if (o_.save_every > 0 && step % o_.save_every == 0) return true;
  return o_.save_every_min > 0 && now_s() - last_save_s_ >= o_.save_every_min * 60;
}

void RunCheckpoints::save(int64_t step, bool final, const optim::NamedTensors& weights,
                          const optim::OptimizerState& state, const nn::LlamaConfig& c,
                          uint64_t rng_state) {
  optim::CheckpointInfo info;
  info.step = step;
  info.data_position = step;
  info.extra = {{"train.dim", std::to_string(c.dim)},
                {"train.layers", std::to_string(c.n_layers)},
                {"train.heads", std::to_string(c.n_heads)},
                {"train.hidden", std::to_string(c.hidden)},
                {"train.seq", std::to_string(c.seq)},
                {"train.batch", std::to_string(c.batch)},
                {"train.steps", std::to_string(o_.steps)},
                {"train.sampler_state", std::to_string(rng_state)}};
  bool wrote = false;
  std::error_code ec;
  if (dir_ && step > 0 && !fs::exists(dir_->path_for(step), ec)) {
    dir_->save_state(weights, &state, &default_generator(), info);
    std::printf("checkpoint (step %lld): %s\n", static_cast<long long>(step),
                dir_->path_for(step).c_str());
    wrote = true;
  }
  if (!o_.save.empty() && (final || !dir_)) {
    optim::save_checkpoint_state(o_.save, weights, &state, &default_generator(), info);
    std::printf("checkpoint (step %lld): %s\n", static_cast<long long>(step), o_.save.c_str());
    wrote = true;
  }
  if (!wrote && !final && !dir_)
    std::printf("checkpoint asked for (SIGUSR1), but there is no --checkpoint-dir or --save\n");
  if (wrote || dir_) last_save_s_ = now_s();
  std::fflush(stdout);
}

void trim_log(const std::string& path, int64_t step) {
  std::ifstream in(path);
  if (!in) return;
  std::string kept, line;
  while (std::getline(in, line)) {
    // A line cut short by a kill does not parse: dropped.
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("step") && j["step"].is_number_integer() &&
        j["step"].get<int64_t>() <= step)
      kept += line + '\n';
  }
  write_file_atomically(path, {reinterpret_cast<const uint8_t*>(kept.data()), kept.size()},
                        "train");
}

}  // namespace lazax::cli
