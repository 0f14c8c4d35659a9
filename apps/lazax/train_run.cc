// The `lazax train` loop: checks every input before any work, trains, logs, saves and reports.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "batches.h"
#include "corpus.h"
#include "lazax/api/autocast.h"
#include "lazax/api/ops_collective.h"
#include "lazax/autodiff/remat.h"
#include "lazax/core/error.h"
#include "lazax/core/metrics.h"
#include "lazax/dist/dist.h"
#include "lazax/io/file.h"
#include "lazax/io/safetensors.h"
#include "lazax/nn/data_parallel.h"
#include "lazax/optim/adamw.h"
#include "lazax/optim/checkpoint.h"
#include "lazax/optim/schedule.h"
#include "lazax/optim/sgd.h"
#include "lazax/runtime/context.h"
#include "lazax/runtime/metrics_report.h"
#include "progress.h"
#include "signals.h"
#include "train.h"
#include "train_checkpoints.h"
#include "train_shard.h"

namespace lazax::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// An output path we can write: its directory exists and is writable, and it is not a directory.
void check_writable(const std::string& path, const char* flag) {
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (fs::is_directory(p, ec))
    throw IOError(std::string("[train] ") + flag + " " + path + " is a directory; name a file");
  if (!fs::is_directory(dir, ec)) {
    throw IOError(std::string("[train] ") + flag + " " + path + ": the directory " + dir.string() +
                  " does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw IOError(std::string("[train] ") + flag + " " + path + ": the directory " + dir.string() +
                  " is not writable");
  }
}

Tensor to_tokens(const train::Batch& b, int64_t batch, int64_t seq) {
  std::vector<int64_t> ids(b.begin(), b.end());
  return from_vector<int64_t>(ids, {batch, seq + 1});
}

int64_t compiles() { return metrics::snapshot().compiles; }

// The collectives' total time (ms) and bytes so far (dist's DistTime and DistBytes).
std::pair<double, double> dist_totals() {
  const auto timers = metrics::timers();
  const auto counters = metrics::counters();
  auto t = timers.find("DistTime");
  auto b = counters.find("DistBytes");
  return {t == timers.end() ? 0.0 : static_cast<double>(t->second.first) / 1e6,
          b == counters.end() ? 0.0 : static_cast<double>(b->second)};
}

double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  return 0;
}

void write_summary(const std::string& path, const train::Curve& curve,
                   const std::vector<double>& step_ms, double infer_ms, int64_t state_bytes,
                   const std::pair<double, double>& dist_per_step, double peak_rss_max_mb) {
  double steady = 0;
  int n = 0;
  for (size_t i = std::min<size_t>(2, step_ms.size() - 1); i < step_ms.size(); ++i, ++n)
    steady += step_ms[i];
  const auto timers = metrics::timers();
  auto ms = [&](const char* name) {
    auto it = timers.find(name);
    return it == timers.end() ? 0.0 : static_cast<double>(it->second.first) / 1e6;
  };
  nlohmann::ordered_json j;
  j["ms_per_step"] = n ? steady / n : 0.0;
  j["compile_ms"] = ms("CompileTime");
  j["execute_ms"] = ms("ExecuteTime");
  j["trace_ms"] = ms("TraceTime");
  j["compiles"] = compiles();
  // This rank's (rank 0 writes the summary), and the largest of any rank: rank 0 also measured
  // the inference pass after the ranks compared theirs.
  j["peak_rss_mb"] = peak_rss_mb();
  j["peak_rss_mb_max_rank"] = std::max(peak_rss_max_mb, peak_rss_mb());
  j["infer_ms"] = infer_ms;
  j["state_bytes_per_rank"] = state_bytes;
  j["dist_ms_per_step"] = dist_per_step.first;  // in the collectives (waits for peers included)
  j["dist_bytes_per_step"] = dist_per_step.second;
  j["first_loss"] = curve.front().second;
  j["last_loss"] = curve.back().second;
  std::string text = j.dump() + "\n";
  write_file_atomically(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()},
                        "train");
}

double mean_loss(const nn::Llama& model, const std::vector<train::Batch>& batches,
                 nn::LayerMode mode) {
  NoGrad no_grad;
  const nn::LlamaConfig& c = model.config();
  double total = 0;
  for (const train::Batch& b : batches) total += model(to_tokens(b, c.batch, c.seq), mode).item();
  return total / static_cast<double>(batches.size());
}

// ms per forward pass (the loss, no gradient) over `batches` taken in turn: the mean of 5 after
// 2 untimed passes (which trace and compile the forward-only program).
double infer_ms_per_step(const nn::Llama& model, const std::vector<train::Batch>& batches,
                         nn::LayerMode mode) {
  NoGrad no_grad;
  const nn::LlamaConfig& c = model.config();
  constexpr int kWarmup = 2, kSteps = 5;
  double total = 0;
  for (int i = 0; i < kWarmup + kSteps; ++i) {
    const train::Batch& b = batches[static_cast<size_t>(i) % batches.size()];
    const auto t0 = Clock::now();
    (void)model(to_tokens(b, c.batch, c.seq), mode).item();
    if (i >= kWarmup) total += ms_since(t0);
  }
  return total / kSteps;
}

}  // namespace

int train(const TrainOptions& options) {
  // Under mpirun every rank trains the same model on its part of each batch (data parallel):
  // rank 0 alone prints, logs, samples and writes files; every rank reads a checkpoint to resume.
  const int ranks = dist::world_size(), rank = dist::rank();
  TrainOptions o = options;
  // --precision bf16: every matmul traced in this run (forward, its VJP, evaluation and the
  // sample) multiplies in bf16; parameters, gradients and AdamW's state stay f32.
  std::optional<Autocast> autocast;
  if (o.precision == "bf16") autocast.emplace(DType::bf16);
  if (rank != 0) {
    o.log.clear();
    o.svg.clear();
    o.summary.clear();
    o.sample_tokens = 0;
    if (std::freopen("/dev/null", "w", stdout) == nullptr)
      throw IOError("[train] rank " + std::to_string(rank) + ": cannot silence its stdout");
  }
  // Everything checked before any work.
  std::shared_ptr<const RematPolicy> remat;
  if (o.remat != "none") {
    if (o.mode == "lazy") {
      throw ValueError("[train] --remat " + o.remat +
                       " applies to the layers as assume_pure calls or as one scan: add --mode "
                       "assume_pure or --mode scan");
    }
    try {
      remat = std::make_shared<const RematPolicy>(policies::by_name(o.remat));
    } catch (const ValueError& e) {
      throw ValueError(std::string("[train] --remat: ") + e.what() + ", or none");
    }
  }
  if (o.print_residuals && o.mode != "assume_pure") {
    throw ValueError(
        "[train] --print-residuals lists what a layer traced by assume_pure keeps: "
        "add --mode assume_pure");
  }
  const nn::ShardMode shard = nn::shard_mode_from_string(o.shard);
  nn::LlamaConfig c = model_config(o);
  std::optional<train::BatchFile> file;
  int64_t steps = o.steps;
  if (!o.batches.empty()) {
    file = train::read_batch_file(o.batches);
    if ((o.batch && o.batch != file->batch) || (o.seq && o.seq != file->seq)) {
      throw ValueError("[train] --batches " + o.batches + " holds batches of " +
                       std::to_string(file->batch) + " x " + std::to_string(file->seq + 1) +
                       " tokens, which disagrees with --batch/--seq; leave those out");
    }
    c.batch = file->batch;
    c.seq = file->seq;
    if (steps > file->steps) {
      throw ValueError("[train] --steps " + std::to_string(steps) + " but --batches " + o.batches +
                       " holds " + std::to_string(file->steps) + " steps");
    }
  }
  if (c.batch % ranks != 0) {
    throw ValueError("[train] --batch " + std::to_string(c.batch) + " does not split over " +
                     std::to_string(ranks) + " ranks; use a batch that is a multiple of " +
                     std::to_string(ranks));
  }
  std::optional<train::Corpus> corpus;
  if (!file || !o.corpus.empty()) corpus = train::load_corpus(o.corpus, c.seq);
  if (!o.save.empty()) check_writable(o.save, "--save");
  RunCheckpoints checkpoints(o);
  const std::string resume_from = checkpoints.resume_path();
  if (!o.svg.empty()) check_writable(o.svg, "--svg");
  if (!o.summary.empty()) check_writable(o.summary, "--summary");
  std::ofstream log;
  if (!o.log.empty()) {
    check_writable(o.log, "--log");
    if (!resume_from.empty()) trim_log(o.log, optim::verify_checkpoint(resume_from).step);
    log.open(o.log, resume_from.empty() ? std::ios::trunc : std::ios::app);
    if (!log) throw IOError("[train] --log " + o.log + ": cannot open it for writing");
  }
  const nn::LayerMode mode = nn::layer_mode_from_string(o.mode);
  Context::get().set_backend(o.backend);
  if (o.threads > 0) set_num_threads(static_cast<int>(o.threads));

  manual_seed(o.seed);
  nn::Llama model(c);
  model.set_remat(remat);
  apply_precision(model, o.precision);
  if (!o.init.empty()) load_weights(model, o.init);
  const int64_t bucket_bytes = static_cast<int64_t>(o.bucket_mb * 1024 * 1024);
  TrainSharding sharding(shard, model, bucket_bytes, mode);
  std::unique_ptr<optim::Optimizer> opt;
  if (o.optimizer == "adamw") {
    optim::AdamWOptions ao;
    ao.lr = o.lr;
    ao.weight_decay = o.weight_decay;
    opt = std::make_unique<optim::AdamW>(sharding.params(), ao);
  } else {
    optim::SGDOptions so;
    so.lr = o.lr;
    so.momentum = 0.9;
    so.weight_decay = o.weight_decay;
    opt = std::make_unique<optim::SGD>(sharding.params(), so);
  }
  const optim::LRSchedule schedule =
      o.schedule == "constant" ? optim::constant_lr(o.lr)
                               : optim::warmup_cosine_lr(o.lr, o.warmup, steps, 0.1 * o.lr);
  std::optional<train::CorpusSampler> sampler;
  if (!file) sampler.emplace(corpus->train, c.batch, c.seq, o.seed * 0x9E3779B97F4A7C15ULL + 1);
  int64_t first = 1;
  if (!resume_from.empty()) {
    Resumed r = RunCheckpoints::load(
        resume_from, model, *opt, c,
        [&](const optim::OptimizerState& s) { return sharding.slice_state(s); });
    first = r.step + 1;
    if (sampler) sampler->rng().set_state(r.rng_state);
  }
  std::vector<train::Batch> valid;
  double entropy = 0;
  if (corpus) {
    valid = train::fixed_windows(corpus->valid, c.batch, c.seq, 4);
    entropy = train::unigram_entropy(corpus->train);
    std::printf("corpus: %s (%zu bytes training, %zu validation); unigram entropy %.4f nats/byte\n",
                corpus->source.c_str(), corpus->train.size(), corpus->valid.size(), entropy);
  }
  std::printf(
      "model: dim %lld, %lld layers, %lld heads, hidden %lld, %lld parameters; batch %lld x "
      "seq %lld; %s, mode %s, backend %s\n",
      static_cast<long long>(c.dim), static_cast<long long>(c.n_layers),
      static_cast<long long>(c.n_heads), static_cast<long long>(c.hidden),
      static_cast<long long>(model.num_parameters()), static_cast<long long>(c.batch),
      static_cast<long long>(c.seq), o.optimizer.c_str(), o.mode.c_str(), o.backend.c_str());
  if (ranks > 1 || shard != nn::ShardMode::none)
    std::printf("ranks: %d, --shard %s\n", ranks, nn::shard_mode_name(shard));
  if (o.print_residuals) {
    std::printf("each layer's backward keeps (--remat %s):\n", o.remat.c_str());
    const Tensor h = zeros({c.batch, c.seq, c.dim});
    std::vector<std::string> lines = sharding.block_saved_residuals(h);
    if (lines.empty()) {
      lines = model.block_saved_residuals(h);
    } else {
      std::printf("  (--shard full: the layer gathers its parameters, arguments 0[k], under %s)\n",
                  nn::regather_policy(model.remat().get()).name.c_str());
    }
    for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
  }
  std::fflush(stdout);

  nn::broadcast_parameters(model.parameters());
  sharding.start();  // the shards sliced from rank 0's values; with full the model drops its own
  // Collective with sharding: every rank gathers, rank 0 writes.
  auto save = [&](int64_t step, bool final) {
    const optim::NamedTensors weights = sharding.full_weights();
    const optim::OptimizerState state = sharding.full_state(*opt);
    if (rank == 0)
      checkpoints.save(step, final, weights, state, c, sampler ? sampler->rng().state() : 0);
    sharding.release();
  };
  int64_t state_bytes = 0;
  std::pair<double, double> dist_steady{0, 0};  // at the start of the first timed step
  std::pair<double, double> dist_end{0, 0};     // after the last step's program
  train::Curve train_curve, valid_curve;
  std::vector<double> step_ms;
  train::ProgressLine progress(stdout);
  std::optional<train::RunSignals> signals(std::in_place);
  const auto t_start = Clock::now();
  int64_t last = first - 1;
  int stop = 0;
  for (int64_t step = first; step <= steps; ++step) {
    const train::Batch b = file ? file->at(step - 1) : sampler->next();
    if (step_ms.size() == std::min<size_t>(2, static_cast<size_t>(steps - first)))
      dist_steady = dist_totals();  // write_summary's steady steps start here
    const auto t0 = Clock::now();
    const double lr = schedule(step - 1);
    opt->zero_grad();
    Tensor tokens = to_tokens(b, c.batch, c.seq);
    if (ranks > 1) tokens = narrow(tokens, 0, rank * (c.batch / ranks), c.batch / ranks);
    sharding.bind();  // full: the parameters gathered from the shards, for this step
    Tensor loss = model(tokens, mode);
    loss.backward();
    // Averaged over the ranks and clipped; the norm is logged every step.
    Tensor norm = sharding.reduce_gradients(o.clip);
    if (ranks > 1) loss = pmean(loss);  // equal parts: the mean over the whole batch
    opt->set_lr(lr);
    opt->step();
    sharding.after_step();
    const double trace_ms = ms_since(t0);
    lazax::sync();
    state_bytes = std::max(state_bytes, sharding.state_bytes(*opt));
    dist_end = dist_totals();
    train::StepRecord r;
    r.step = step;
    r.loss = loss.item();
    if (!std::isfinite(r.loss)) {  // diverged: stop before saving or logging a broken model
      throw Error("[train] the loss is " + std::string(std::isnan(r.loss) ? "NaN" : "infinite") +
                  " at step " + std::to_string(step) + " (learning rate " + std::to_string(lr) +
                  "); the run diverged: lower --lr, set --clip, or resume from an earlier "
                  "checkpoint");
    }
    r.grad_norm = norm.item();
    r.lr = lr;
    r.trace_ms = trace_ms;
    r.compiles = compiles();
    const bool eval_now =
        !valid.empty() && ((o.eval_every > 0 && step % o.eval_every == 0) || step == steps);
    r.step_ms = ms_since(t0);
    if (eval_now) {
      sharding.materialize();
      r.valid_loss = mean_loss(model, valid, mode);
      sharding.release();
    }
    train_curve.emplace_back(step, r.loss);
    step_ms.push_back(r.step_ms);
    if (r.valid_loss) valid_curve.emplace_back(step, *r.valid_loss);
    if (log.is_open()) log << train::to_json_line(r) << '\n' << std::flush;
    const double elapsed_s = ms_since(t_start) / 1000;
    const auto done = static_cast<double>(step - first + 1);
    const double tokens_s = done * static_cast<double>(c.batch * c.seq) / elapsed_s;
    std::string text = train::progress_text(step, steps, r.loss, tokens_s,
                                            elapsed_s / done * static_cast<double>(steps - step));
    if (r.valid_loss) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "  validation %.4f", *r.valid_loss);
      text += buf;
    }
    progress.update(text);
    last = step;
    stop = train::RunSignals::stop_signal();
    if (stop != 0) break;
    bool due = step < steps && checkpoints.due(step, train::RunSignals::checkpoint_requested());
    if (ranks > 1 && shard != nn::ShardMode::none)  // a collective save: every rank or none
      due = pmax(Tensor(Literal::scalar<int32_t>(due ? 1 : 0))).item() > 0;
    if (due) {
      progress.finish();
      save(step, false);
    }
  }
  progress.finish();
  if (stop != 0) {
    std::printf("interrupted (%s) after step %lld\n", stop == SIGINT ? "Ctrl-C" : "SIGTERM",
                static_cast<long long>(last));
  }
  // The last checkpoint is written with the handlers still in place: a second signal ends the
  // process at once, and the atomic write leaves the previous checkpoint whole.
  save(last, true);
  signals.reset();
  std::printf(
      "state per rank: %.2f MiB of parameters, gradients and optimizer state (--shard %s, "
      "%d rank%s)\n",
      static_cast<double>(state_bytes) / (1024.0 * 1024.0), nn::shard_mode_name(shard), ranks,
      ranks == 1 ? "" : "s");
  sharding.materialize();  // full: the whole model again, for the summary and the sample
  if (!o.quiet) std::printf("\n%s", metrics::report().c_str());
  // Every rank takes part (only rank 0 writes the summary): the largest peak RSS of any rank.
  const double peak_rss_max_mb =
      ranks == 1
          ? peak_rss_mb()
          : static_cast<double>(
                pmax(Tensor(Literal::scalar<float>(static_cast<float>(peak_rss_mb())))).item());
  if (!o.summary.empty() && !train_curve.empty()) {
    std::vector<train::Batch> infer_batches;
    for (int64_t i = 0; i < std::min<int64_t>(steps, 4); ++i)
      infer_batches.push_back(file ? file->at(i) : sampler->next());
    const size_t timed = step_ms.size() - std::min<size_t>(2, step_ms.size() - 1);
    const std::pair<double, double> dist_per_step{
        (dist_end.first - dist_steady.first) / static_cast<double>(timed),
        (dist_end.second - dist_steady.second) / static_cast<double>(timed)};
    write_summary(o.summary, train_curve, step_ms, infer_ms_per_step(model, infer_batches, mode),
                  state_bytes, dist_per_step, peak_rss_max_mb);
  }
  if (!train_curve.empty()) {
    std::printf("\nloss: %.4f at step %lld -> %.4f at step %lld", train_curve.front().second,
                static_cast<long long>(train_curve.front().first), train_curve.back().second,
                static_cast<long long>(train_curve.back().first));
    if (!valid_curve.empty()) std::printf("; validation %.4f", valid_curve.back().second);
    if (corpus) std::printf("; unigram entropy %.4f", entropy);
    std::printf(" (nats/byte)\n");
  }
  if (!o.svg.empty() && !train_curve.empty()) {
    std::string svg = train::loss_curve_svg(train_curve, valid_curve,
                                            corpus ? std::optional<double>(entropy) : std::nullopt,
                                            "lazax train: dim " + std::to_string(c.dim) + ", " +
                                                std::to_string(c.n_layers) + " layers");
    write_file_atomically(o.svg, {reinterpret_cast<const uint8_t*>(svg.data()), svg.size()},
                          "train");
    std::printf("loss curve: %s\n", o.svg.c_str());
  }
  if (o.sample_tokens > 0 && stop == 0) {
    std::string text = sample_text(model, o.sample_prompt, o.sample_tokens, 0.8, o.seed + 7);
    std::printf("\nsampled (temperature 0.8):\n%s%s\n", o.sample_prompt.c_str(),
                printable(text).c_str());
  }
  return stop != 0 ? train::interrupted_status(stop) : 0;
}

}  // namespace lazax::cli
