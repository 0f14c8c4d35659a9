// What `lazax train` shows and writes while it runs: the progress line, the per-step JSON log,
// and the loss-curve picture (the signals are signals.h).
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lazax::train {

// One training step, as the --log file records it.
struct StepRecord {
  int64_t step = 0;  // 1-based
  double loss = 0;
  double lr = 0;
  double grad_norm = 0;
  double step_ms = 0;    // wall time of the whole step
  double trace_ms = 0;   // host time recording the graph (forward + backward + optimizer)
  int64_t compiles = 0;  // compilations so far in this process
  std::optional<double> valid_loss;  // when evaluated at this step
};

// One JSON object, one line: step, loss, lr, grad_norm, step_ms, trace_ms, compiles (and
// valid_loss when evaluated).
std::string to_json_line(const StepRecord& r);

// "step 12/200  loss 2.3456  1234 tok/s  ETA 1m05s".
std::string progress_text(int64_t step, int64_t total, double loss, double tokens_per_s,
                          double eta_s);

// Writes progress lines to a stream: redrawn in place with '\r' when it is a terminal, one plain
// line per update otherwise. finish() ends the redrawn line.
class ProgressLine {
 public:
  explicit ProgressLine(std::FILE* out);
  ProgressLine(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}
  void update(const std::string& text);
  void finish();
  bool terminal() const { return terminal_; }

 private:
  std::FILE* out_;
  bool terminal_;
  size_t last_width_ = 0;
};

using Curve = std::vector<std::pair<int64_t, double>>;  // (step, loss)

// An SVG picture of the training loss (blue) and the validation loss (orange) against the
// step, with axes, tick labels and a legend; `reference` (the unigram entropy) as a dashed line.
std::string loss_curve_svg(const Curve& train, const Curve& valid, std::optional<double> reference,
                           const std::string& title);

}  // namespace lazax::train
