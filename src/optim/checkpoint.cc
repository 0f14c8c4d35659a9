// Checkpoints (lazax/optim/checkpoint.h): named tensors with prefixes and string metadata in one
// safetensors file; every check runs before anything is changed.
#include "lazax/optim/checkpoint.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "lazax/core/error.h"
#include "lazax/core/hash.h"
#include "lazax/io/file.h"
#include "lazax/io/safetensors.h"

namespace lazax::optim {
namespace {

constexpr char kFormat[] = "lazax-training-checkpoint/2";
// Version 1 (no checksum) is still read.
constexpr char kFormatV1[] = "lazax-training-checkpoint/1";
const std::set<std::string> kReservedKeys = {
    "format", "step", "data_position", "optim.kind", "optim.lr", "optim.step", "checksum"};

// `what` may quote the file's metadata: escaped.
[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ValueError("[checkpoint] " + escape_for_message(path) + ": " + escape_for_message(what));
}

// The checksum of a checkpoint: each tensor's name, type and bytes and each metadata key and
// value but "checksum", in the file's order, through Hasher (XXH3), as 16 hex digits.
std::string checksum_of(const SafetensorsFile& f) {
  Hasher h;
  for (const auto& [name, lit] : f.tensors) {
    h.add(name).add(lit.type.str()).add_bytes(lit.buffer.data(), lit.type.bytes());
  }
  for (const auto& [key, value] : f.metadata) {
    if (key == "checksum") continue;
    h.add(key).add(value);
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.digest()));
  return buf;
}

// Reads a training checkpoint and checks its format and checksum.
SafetensorsFile read_checked(const std::string& path) {
  SafetensorsFile f = read_safetensors(path);
  const std::optional<std::string> format = f.meta("format");
  if (format == kFormatV1) return f;
  if (format != kFormat) {
    fail(path, "not a lazax training checkpoint (its metadata 'format' is not '" +
                   std::string(kFormat) + "'); for plain weights use load_weights");
  }
  const std::optional<std::string> sum = f.meta("checksum");
  if (!sum) fail(path, "the metadata has no 'checksum'; the file was not written by lazax");
  if (*sum != checksum_of(f)) {
    throw IOError("[checkpoint] " + escape_for_message(path) +
                  ": corrupt: the checksum of its tensors and metadata does not match the one "
                  "recorded (the file changed after it was written); use an earlier checkpoint");
  }
  return f;
}

Literal value_of(const Tensor& t) { return t.literal().clone(); }

// Adds 'prefix+name' to a comma-separated list.
void add_quoted(std::string& list, const std::string& prefix, const std::string& name) {
  list += list.empty() ? "'" : ", '";
  list += prefix;
  list += name;
  list += '\'';
}

[[noreturn]] void type_mismatch(const std::string& path, const char* what, const std::string& name,
                                const Tensor& t, const std::string& prefix, const Literal& lit) {
  fail(path, std::string(what) + " '" + name + "' is " + t.type_str() + " but the file's '" +
                 prefix + name + "' is " + lit.type.str());
}

// The file's tensors under `prefix` that `into` names, checked: each one present with its type,
// nothing else under the prefix. Returns them in the order of `into`.
std::vector<Literal> matching(const SafetensorsFile& file, const std::string& prefix,
                              const NamedTensors& into, const std::string& path, const char* what) {
  std::map<std::string, const Literal*> found;
  for (const auto& [name, lit] : file.tensors) {
    if (name.compare(0, prefix.size(), prefix) == 0) found[name.substr(prefix.size())] = &lit;
  }
  std::vector<Literal> out;
  std::string missing;
  for (const auto& [name, t] : into) {
    auto it = found.find(name);
    if (it == found.end()) {
      add_quoted(missing, prefix, name);
      continue;
    }
    if (it->second->type.dtype != t.dtype() || it->second->shape() != t.shape())
      type_mismatch(path, what, name, t, prefix, *it->second);
    out.push_back(*it->second);
    found.erase(it);
  }
  if (!missing.empty()) fail(path, std::string("the file has no ") + missing);
  if (!found.empty()) {
    std::string names;
    for (const auto& [name, lit] : found) add_quoted(names, prefix, name);
    fail(path, "the file has entries that name no " + std::string(what) + ": " + names);
  }
  return out;
}

void assign(const NamedTensors& into, const std::vector<Literal>& values) {
  NoGrad off;
  for (size_t i = 0; i < into.size(); ++i) {
    Tensor t = into[i].second;
    t.copy_(Tensor(values[i]));
  }
}

int64_t int_meta(const SafetensorsFile& f, const std::string& key, const std::string& path) {
  std::optional<std::string> v = f.meta(key);
  if (!v) fail(path, "the metadata has no '" + key + "'; is this a lazax training checkpoint?");
  char* end = nullptr;
  const long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0')
    fail(path, "the metadata '" + key + "' is '" + *v + "', not an integer");
  return n;
}

std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

CheckpointInfo info_of(const SafetensorsFile& f, const std::string& path) {
  CheckpointInfo info;
  info.step = int_meta(f, "step", path);
  info.data_position = int_meta(f, "data_position", path);
  for (const auto& [key, value] : f.metadata)
    if (!kReservedKeys.count(key)) info.extra.emplace_back(key, value);
  return info;
}

}  // namespace

CheckpointInfo verify_checkpoint(const std::string& path) {
  return info_of(read_checked(path), path);
}

void save_weights(const std::string& path, const NamedTensors& weights) {
  lazax::sync();
  SafetensorsFile f;
  for (const auto& [name, t] : weights) f.tensors.emplace_back(name, value_of(t));
  write_safetensors(path, f);
}

void load_weights(const std::string& path, const NamedTensors& weights) {
  const SafetensorsFile f = read_safetensors(path);
  assign(weights, matching(f, "", weights, path, "weight"));
}

void save_checkpoint(const std::string& path, const NamedTensors& weights,
                     const Optimizer* optimizer, const Generator* generator,
                     const CheckpointInfo& info) {
  if (!optimizer) return save_checkpoint_state(path, weights, nullptr, generator, info);
  const OptimizerState s = optimizer->state_dict();
  save_checkpoint_state(path, weights, &s, generator, info);
}

void save_checkpoint_state(const std::string& path, const NamedTensors& weights,
                           const OptimizerState* optimizer_state, const Generator* generator,
                           const CheckpointInfo& info) {
  for (const auto& [key, value] : info.extra) {
    if (kReservedKeys.count(key))
      throw ValueError("[checkpoint] the extra metadata key '" + key + "' is reserved; rename it");
  }
  lazax::sync();
  SafetensorsFile f;
  f.metadata = {{"format", kFormat},
                {"step", std::to_string(info.step)},
                {"data_position", std::to_string(info.data_position)}};
  for (const auto& [name, t] : weights) f.tensors.emplace_back("model." + name, value_of(t));
  if (optimizer_state) {
    const OptimizerState& s = *optimizer_state;
    f.metadata.emplace_back("optim.kind", s.kind);
    f.metadata.emplace_back("optim.lr", exact(s.lr));
    f.metadata.emplace_back("optim.step", std::to_string(s.step));
    for (const auto& [name, t] : s.tensors) f.tensors.emplace_back("optim." + name, value_of(t));
  }
  if (generator) f.tensors.emplace_back("rng.state", generator->get_state());
  for (const auto& kv : info.extra) f.metadata.push_back(kv);
  f.metadata.emplace_back("checksum", checksum_of(f));
  write_safetensors(path, f);
}

CheckpointInfo load_checkpoint(const std::string& path, const NamedTensors& weights,
                               Optimizer* optimizer, Generator* generator,
                               const AdaptState& adapt) {
  const SafetensorsFile f = read_checked(path);
  CheckpointInfo info = info_of(f, path);
  // Check everything first.
  const std::vector<Literal> values = matching(f, "model.", weights, path, "weight");
  OptimizerState state;
  if (optimizer) {
    std::optional<std::string> kind = f.meta("optim.kind"), lr = f.meta("optim.lr");
    if (!kind || !lr) fail(path, "the file holds no optimizer state (no 'optim.kind'/'optim.lr')");
    state.kind = *kind;
    char* end = nullptr;
    state.lr = std::strtod(lr->c_str(), &end);
    if (lr->empty() || *end != '\0') fail(path, "the metadata 'optim.lr' is '" + *lr + "'");
    state.step = int_meta(f, "optim.step", path);
    for (const auto& [name, lit] : f.tensors) {
      if (name.compare(0, 6, "optim.") == 0)
        state.tensors.emplace_back(name.substr(6), Tensor(lit));
    }
    if (adapt) state = adapt(state);
    try {
      optimizer->check_state_dict(state);
    } catch (const ValueError& e) {
      fail(path, std::string("optimizer state: ") + e.what());
    }
  }
  const Literal* rng = f.find("rng.state");
  if (generator) {
    if (!rng) fail(path, "the file holds no generator state ('rng.state')");
    if (rng->dtype() != DType::i64 || rng->shape() != Shape{2})
      fail(path, "'rng.state' is " + rng->type.str() + ", expected i64[2]");
  }
  // Then change.
  assign(weights, values);
  if (optimizer) optimizer->load_state_dict(state);
  if (generator) generator->set_state(*rng);
  return info;
}

}  // namespace lazax::optim
