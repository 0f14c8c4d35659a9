// A directory of training checkpoints (lazax/optim/checkpoint_dir.h).
#include "lazax/optim/checkpoint_dir.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "lazax/core/error.h"
#include "lazax/io/file.h"

namespace lazax::optim {
namespace {

namespace fs = std::filesystem;

constexpr char kPrefix[] = "step-";
constexpr char kSuffix[] = ".safetensors";

// The step of a file named "step-<digits>.safetensors", or -1.
int64_t step_of(const std::string& name) {
  const size_t p = sizeof kPrefix - 1, s = sizeof kSuffix - 1;
  if (name.size() <= p + s || name.compare(0, p, kPrefix) != 0 ||
      name.compare(name.size() - s, s, kSuffix) != 0)
    return -1;
  const std::string digits = name.substr(p, name.size() - p - s);
  if (digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoll(digits);
}

std::string where(const std::string& dir) { return "[checkpoint] " + escape_for_message(dir); }

}  // namespace

CheckpointDir::CheckpointDir(std::string dir, int64_t keep) : dir_(std::move(dir)), keep_(keep) {
  if (keep_ < 1) throw ValueError(where(dir_) + ": keep " + std::to_string(keep_) + " < 1");
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw IOError(where(dir_) + " is not a directory; name a directory for the checkpoints");
  fs::create_directories(dir_, ec);
  if (ec) throw IOError(where(dir_) + ": cannot create the directory: " + ec.message());
  if (::access(dir_.c_str(), W_OK) != 0)
    throw IOError(where(dir_) + " is not writable; give a directory the run may write");
}

std::string CheckpointDir::path_for(int64_t step) const {
  char name[48];
  std::snprintf(name, sizeof name, "%s%08lld%s", kPrefix, static_cast<long long>(step), kSuffix);
  return (fs::path(dir_) / name).string();
}

std::vector<CheckpointEntry> CheckpointDir::list() const {
  std::vector<CheckpointEntry> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const int64_t step = step_of(e.path().filename().string());
    if (step >= 0 && e.is_regular_file(ec)) out.push_back({step, e.path().string()});
  }
  if (ec) throw IOError(where(dir_) + ": cannot list the directory: " + ec.message());
  std::sort(out.begin(), out.end(),
            [](const CheckpointEntry& a, const CheckpointEntry& b) { return a.step < b.step; });
  return out;
}

void CheckpointDir::save(const NamedTensors& weights, const Optimizer* optimizer,
                         const Generator* generator, const CheckpointInfo& info) {
  if (!optimizer) return save_state(weights, nullptr, generator, info);
  const OptimizerState s = optimizer->state_dict();
  save_state(weights, &s, generator, info);
}

void CheckpointDir::save_state(const NamedTensors& weights, const OptimizerState* optimizer,
                               const Generator* generator, const CheckpointInfo& info) {
  const std::vector<CheckpointEntry> before = list();
  const std::string path = path_for(info.step);
  try {
    save_checkpoint_state(path, weights, optimizer, generator, info);
  } catch (const IOError& e) {
    std::string previous = "there is no earlier checkpoint";
    for (const CheckpointEntry& c : before)
      if (c.step < info.step) previous = "the previous checkpoint " + c.path + " is intact";
    throw IOError(where(dir_) + ": the checkpoint of step " + std::to_string(info.step) +
                  " was not written (" + e.what() + "); " + previous +
                  ". Free space there or give another directory, then resume");
  }
  // Only the complete new file counts; the oldest beyond `keep` go.
  std::vector<CheckpointEntry> older;
  for (const CheckpointEntry& c : list())
    if (c.step < info.step) older.push_back(c);
  const auto excess = static_cast<int64_t>(older.size()) - (keep_ - 1);
  for (int64_t i = 0; i < excess; ++i) {
    std::error_code ec;
    fs::remove(older[static_cast<size_t>(i)].path, ec);
  }
}

std::optional<CheckpointEntry> CheckpointDir::newest_intact(std::vector<std::string>* skipped) {
  std::vector<CheckpointEntry> all = list();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    try {
      (void)verify_checkpoint(it->path);
      return *it;
    } catch (const Error& e) {
      std::error_code ec;
      fs::rename(it->path, it->path + ".corrupt", ec);
      if (skipped) {
        skipped->push_back(
            std::string(e.what()) +
            (ec ? "" : " (renamed to " + escape_for_message(it->path) + ".corrupt)"));
      }
    }
  }
  return std::nullopt;
}

int CheckpointDir::remove_stale_temporaries() {
  int removed = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    const size_t at = name.rfind(".tmp-");
    if (at == std::string::npos || step_of(name.substr(0, at)) < 0) continue;
    if (fs::remove(e.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace lazax::optim
