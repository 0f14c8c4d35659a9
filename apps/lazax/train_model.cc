// The model-side helpers of `lazax train` / `lazax sample`: configuration, learning-rate
// schedule, weights from safetensors, and sampling.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "batches.h"
#include "lazax/core/error.h"
#include "lazax/io/file.h"
#include "lazax/io/safetensors.h"
#include "lazax/nn/policy.h"
#include "train.h"

namespace lazax::cli {

nn::LlamaConfig model_config(const TrainOptions& o) {
  nn::LlamaConfig c = nn::LlamaConfig::preset(o.model);
  if (o.dim) c.dim = o.dim;
  if (o.layers) c.n_layers = o.layers;
  if (o.heads) c.n_heads = o.heads;
  if (o.hidden) c.hidden = o.hidden;
  if (o.batch) c.batch = o.batch;
  if (o.seq) c.seq = o.seq;
  c.validate();
  return c;
}

nn::LlamaConfig checkpoint_config(const std::string& path) {
  SafetensorsFile f = read_safetensors(path);
  auto get = [&](const char* key) {
    std::optional<std::string> v = f.meta(key);
    if (!v) {
      throw ValueError("[train] " + escape_for_message(path) +
                       " is not a checkpoint of `lazax train --save` (its "
                       "metadata lacks " +
                       key + ")");
    }
    char* end = nullptr;
    const long long n = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0') {
      throw ValueError("[train] " + escape_for_message(path) + ": the metadata " + key + " is '" +
                       escape_for_message(*v) + "', not an integer");
    }
    return static_cast<int64_t>(n);
  };
  nn::LlamaConfig c;
  c.dim = get("train.dim");
  c.n_layers = get("train.layers");
  c.n_heads = get("train.heads");
  c.hidden = get("train.hidden");
  c.seq = get("train.seq");
  c.batch = get("train.batch");
  c.validate();
  return c;
}

void load_weights(nn::Llama& model, const std::string& path) {
  SafetensorsFile f = read_safetensors(path);
  nn::StateDict sd;
  std::vector<std::string> unexpected;
  // A training checkpoint's weights are "model.<name>"; its optimizer and generator state are
  // not weights.
  const bool checkpoint = f.meta("format").has_value();
  for (const auto& [name, lit] : f.tensors) {
    if (!checkpoint) {
      sd[name] = Tensor(lit);
    } else if (name.rfind("model.", 0) == 0) {
      sd[name.substr(6)] = Tensor(lit);
    }
  }
  std::vector<std::string> missing;
  for (const auto& [name, p] : model.named_parameters()) {
    auto it = sd.find(name);
    if (it == sd.end()) {
      missing.push_back(name);
      continue;
    }
    if (it->second.type_str() != p.type_str()) {
      std::string msg = "[train] --init " + path + ": ";
      msg += name;
      msg += " is " + it->second.type_str() + ", the model wants " + p.type_str();
      msg += " (check --dim/--layers/--heads/--hidden or --model)";
      throw ShapeError(msg);
    }
  }
  auto named = model.named_parameters();
  for (const auto& [name, t] : sd) {
    bool known =
        std::any_of(named.begin(), named.end(), [&](const auto& np) { return np.first == name; });
    if (!known) unexpected.push_back(name);
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 5; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > 5) s += ", ... (" + std::to_string(v.size()) + " in all)";
    return s;
  };
  if (!missing.empty())
    throw ValueError("[train] --init " + path + " lacks the model's " + list(missing));
  if (!unexpected.empty()) {
    throw ValueError("[train] --init " + path +
                     " has entries the model does not: " + list(unexpected));
  }
  model.load_state_dict(sd);
}

std::string printable(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (!(u == '\n' || u == '\t' || (u >= 0x20 && u < 0x7f))) c = '?';
  }
  return out;
}

std::string sample_text(const nn::Llama& model, const std::string& prompt, int64_t n,
                        double temperature, uint64_t seed) {
  const int64_t T = model.config().seq;
  train::HostRng rng(seed);
  std::vector<int64_t> ctx;
  for (char c : prompt) ctx.push_back(static_cast<unsigned char>(c));
  std::string out;
  NoGrad no_grad;
  for (int64_t i = 0; i < n; ++i) {
    // A fixed window of T bytes (left-padded with newlines), so that one graph serves every byte.
    std::vector<int64_t> window(static_cast<size_t>(T), '\n');
    const int64_t have = std::min<int64_t>(T, static_cast<int64_t>(ctx.size()));
    std::copy(ctx.end() - have, ctx.end(), window.end() - have);
    Tensor logits = model.logits(from_vector<int64_t>(window, {1, T}));
    std::vector<float> last = logits.select(1, T - 1).reshape({256}).to_vector<float>();
    int64_t next = 0;
    if (temperature <= 0) {
      next = std::max_element(last.begin(), last.end()) - last.begin();
    } else {
      const float top = *std::max_element(last.begin(), last.end());
      std::vector<double> p(256);
      double total = 0;
      for (size_t k = 0; k < 256; ++k) total += p[k] = std::exp((last[k] - top) / temperature);
      double u = rng.uniform() * total;
      for (next = 0; next < 255 && u >= p[static_cast<size_t>(next)]; ++next)
        u -= p[static_cast<size_t>(next)];
    }
    ctx.push_back(next);
    out += static_cast<char>(next);
  }
  return out;
}

std::string precision_problem(const std::string& precision) {
  if (precision == "f32" || precision == "bf16") return "";
  if (precision.find('=') == std::string::npos)
    return "unknown precision '" + precision +
           "'; use f32, bf16 or a policy such as params=f32,compute=bf16,output=f32";
  try {
    if (Policy::parse(precision).param_dtype != DType::f32)
      return "the policy '" + precision + "' must keep params=f32 (the master weights, the " +
             "optimizer's state and checkpoints are f32)";
  } catch (const ValueError& e) {
    return e.what();
  }
  return "";
}

void apply_precision(nn::Llama& model, const std::string& precision) {
  if (const std::string problem = precision_problem(precision); !problem.empty())
    throw ValueError("[train] --precision: " + problem);
  if (precision == "f32" || precision == "bf16") return;
  const Policy p = Policy::parse(precision);
  model.set_policy(p);
  nn::set_policy<nn::RMSNorm>(model, Policy{DType::f32, DType::f32, p.compute_dtype});
}

}  // namespace lazax::cli
