// usage: optim_driver CASES.json OUT_DIR
// For tests/optim/torch_optim.py: runs each case's optimizer steps on .npy parameters and
// gradients and writes the results as .npy. Cases ({"cases": [...]}):
//   {"name", "optimizer": "sgd"|"adamw", "options": {...}, "params": [PATH...],
//    "grads": [[PATH or null per parameter] per step], "lrs": [lr per step],
//    "clip": max_norm or null}
//     -> OUT_DIR/NAME.<i>.npy (each parameter after the last step) and, with clip,
//        OUT_DIR/NAME.norms.npy (f32, clip_grad_norm_'s result per step)
//   {"name", "schedule": "cosine"|"constant", "peak", "warmup", "total", "min", "steps"}
//     -> OUT_DIR/NAME.lrs.npy (f64, the learning rate of steps 0..steps-1)
// Every step syncs, so the steps after the first must not compile again: the driver checks this
// (and that no value was read before the end: no graph break) and fails otherwise.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "lazax/api/tensor.h"
#include "lazax/core/error.h"
#include "lazax/core/metrics.h"
#include "lazax/io/npy.h"
#include "lazax/optim/adamw.h"
#include "lazax/optim/clip_grad.h"
#include "lazax/optim/schedule.h"
#include "lazax/optim/sgd.h"

namespace {

using namespace lazax;
using Json = nlohmann::json;

std::unique_ptr<optim::Optimizer> make_optimizer(const Json& c, optim::NamedTensors params) {
  const Json& o = c.at("options");
  const double lr = c.at("lrs").at(0).get<double>();
  if (c.at("optimizer") == "sgd") {
    optim::SGDOptions s;
    s.lr = lr;
    s.momentum = o.value("momentum", 0.0);
    s.dampening = o.value("dampening", 0.0);
    s.weight_decay = o.value("weight_decay", 0.0);
    s.nesterov = o.value("nesterov", false);
    s.maximize = o.value("maximize", false);
    return std::make_unique<optim::SGD>(std::move(params), s);
  }
  optim::AdamWOptions a;
  a.lr = lr;
  a.beta1 = o.value("beta1", a.beta1);
  a.beta2 = o.value("beta2", a.beta2);
  a.eps = o.value("eps", a.eps);
  a.weight_decay = o.value("weight_decay", a.weight_decay);
  a.amsgrad = o.value("amsgrad", false);
  a.maximize = o.value("maximize", false);
  return std::make_unique<optim::AdamW>(std::move(params), a);
}

void run_optimizer(const Json& c, const std::string& out) {
  const std::string name = c.at("name");
  optim::NamedTensors params;
  for (const Json& p : c.at("params"))
    params.emplace_back("p" + std::to_string(params.size()),
                        Tensor(read_npy(p.get<std::string>())));
  auto opt = make_optimizer(c, params);
  const bool clip = !c.at("clip").is_null();
  std::vector<Tensor> norms;
  int64_t compiles_after_first = 0;
  const int64_t breaks = metrics::counter("GraphBreaks").get();
  const Json& steps = c.at("grads");
  for (size_t s = 0; s < steps.size(); ++s) {
    for (size_t i = 0; i < params.size(); ++i) {
      const Json& g = steps[s][i];
      params[i].second.set_grad(g.is_null() ? Tensor() : Tensor(read_npy(g.get<std::string>())));
    }
    if (clip) norms.push_back(optim::clip_grad_norm_(params, c.at("clip").get<double>()));
    opt->set_lr(c.at("lrs").at(s).get<double>());
    opt->step();
    opt->zero_grad();
    const int64_t before = metrics::counter("UncachedCompile").get();
    lazax::sync();
    if (s > 0) compiles_after_first += metrics::counter("UncachedCompile").get() - before;
  }
  // Steps whose gradients have the same pattern of nulls as the step before record the same
  // program: only a changed pattern may compile again.
  int64_t pattern_changes = 0;
  for (size_t s = 1; s < steps.size(); ++s) {
    for (size_t i = 0; i < params.size(); ++i) {
      if (steps[s][i].is_null() != steps[s - 1][i].is_null()) {
        ++pattern_changes;
        break;
      }
    }
  }
  if (compiles_after_first > pattern_changes || metrics::counter("GraphBreaks").get() != breaks) {
    throw Error("[optim_driver] case " + name + ": " + std::to_string(compiles_after_first) +
                " compiles after the first step (expected at most " +
                std::to_string(pattern_changes) + "), or a graph break");
  }
  for (size_t i = 0; i < params.size(); ++i)
    write_npy(out + "/" + name + "." + std::to_string(i) + ".npy", params[i].second.literal());
  if (clip) {
    std::vector<float> v;
    for (const Tensor& n : norms) v.push_back(static_cast<float>(n.item()));
    write_npy(out + "/" + name + ".norms.npy",
              Literal::from_vector(v, Shape{static_cast<int64_t>(v.size())}));
  }
}

void run_schedule(const Json& c, const std::string& out) {
  optim::LRSchedule sched =
      c.at("schedule") == "constant"
          ? optim::constant_lr(c.at("peak").get<double>())
          : optim::warmup_cosine_lr(c.at("peak").get<double>(), c.at("warmup").get<int64_t>(),
                                    c.at("total").get<int64_t>(), c.at("min").get<double>());
  std::vector<double> lrs;
  for (int64_t s = 0; s < c.at("steps").get<int64_t>(); ++s) lrs.push_back(sched(s));
  write_npy(out + "/" + c.at("name").get<std::string>() + ".lrs.npy",
            Literal::from_vector(lrs, Shape{static_cast<int64_t>(lrs.size())}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: optim_driver CASES.json OUT_DIR\n");
    return 64;
  }
  try {
    std::ifstream in(argv[1]);
    const Json cases = Json::parse(in).at("cases");
    for (const Json& c : cases) {
      if (c.contains("schedule")) {
        run_schedule(c, argv[2]);
      } else {
        run_optimizer(c, argv[2]);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
