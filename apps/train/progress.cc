#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace lazax::train {

std::string to_json_line(const StepRecord& r) {
  nlohmann::ordered_json j;
  j["step"] = r.step;
  j["loss"] = r.loss;
  j["lr"] = r.lr;
  j["grad_norm"] = r.grad_norm;
  j["step_ms"] = r.step_ms;
  j["trace_ms"] = r.trace_ms;
  j["compiles"] = r.compiles;
  if (r.valid_loss) j["valid_loss"] = *r.valid_loss;
  return j.dump();
}

namespace {

std::string duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  auto t = static_cast<int64_t>(std::lround(s));
  char buf[32];
  if (t >= 3600) {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(t / 3600),
                  static_cast<long long>(t % 3600 / 60));
  } else if (t >= 60) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(t / 60),
                  static_cast<long long>(t % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(t));
  }
  return buf;
}

}  // namespace

std::string progress_text(int64_t step, int64_t total, double loss, double tokens_per_s,
                          double eta_s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "step %lld/%lld  loss %.4f  %.0f tok/s  ETA %s",
                static_cast<long long>(step), static_cast<long long>(total), loss, tokens_per_s,
                duration(eta_s).c_str());
  return buf;
}

ProgressLine::ProgressLine(std::FILE* out) : out_(out), terminal_(isatty(fileno(out)) != 0) {}

void ProgressLine::update(const std::string& text) {
  if (!terminal_) {
    std::fprintf(out_, "%s\n", text.c_str());
  } else {
    // Pad with spaces over what a longer previous line left.
    std::string pad(last_width_ > text.size() ? last_width_ - text.size() : 0, ' ');
    std::fprintf(out_, "\r%s%s", text.c_str(), pad.c_str());
    last_width_ = text.size();
  }
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (terminal_ && last_width_ > 0) std::fprintf(out_, "\n");
  last_width_ = 0;
  std::fflush(out_);
}

std::string loss_curve_svg(const Curve& train, const Curve& valid, std::optional<double> reference,
                           const std::string& title) {
  constexpr double kW = 720, kH = 420, kL = 60, kR = 20, kT = 40, kB = 50;
  int64_t max_step = 1;
  double lo = 1e300, hi = -1e300;
  for (const Curve* c : {&train, &valid}) {
    for (const auto& [s, v] : *c) {
      max_step = std::max(max_step, s);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (reference) {
    lo = std::min(lo, *reference);
    hi = std::max(hi, *reference);
  }
  if (lo > hi) lo = 0, hi = 1;
  if (hi - lo < 1e-9) hi = lo + 1;
  lo = std::max(0.0, lo - 0.05 * (hi - lo));
  auto x = [&](double s) { return kL + (kW - kL - kR) * s / static_cast<double>(max_step); };
  auto y = [&](double v) { return kT + (kH - kT - kB) * (hi - v) / (hi - lo); };
  std::ostringstream o;
  o.precision(6);
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << kW / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << title
    << "</text>\n";
  // Axes and ticks.
  o << "<line x1=\"" << kL << "\" y1=\"" << kH - kB << "\" x2=\"" << kW - kR << "\" y2=\""
    << kH - kB << "\" stroke=\"black\"/>\n<line x1=\"" << kL << "\" y1=\"" << kT << "\" x2=\"" << kL
    << "\" y2=\"" << kH - kB << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 5; ++i) {
    const double v = lo + (hi - lo) * i / 5, s = static_cast<double>(max_step) * i / 5;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    o << "<text x=\"" << kL - 6 << "\" y=\"" << y(v) + 4 << "\" text-anchor=\"end\">" << buf
      << "</text>\n<line x1=\"" << kL << "\" y1=\"" << y(v) << "\" x2=\"" << kW - kR << "\" y2=\""
      << y(v) << "\" stroke=\"#eee\"/>\n";
    o << "<text x=\"" << x(s) << "\" y=\"" << kH - kB + 16 << "\" text-anchor=\"middle\">"
      << std::llround(s) << "</text>\n";
  }
  o << "<text x=\"" << (kW + kL) / 2 << "\" y=\"" << kH - 12
    << "\" text-anchor=\"middle\">step</text>\n"
    << "<text x=\"16\" y=\"" << (kH - kB + kT) / 2 << "\" transform=\"rotate(-90 16 "
    << (kH - kB + kT) / 2 << ")\" text-anchor=\"middle\">loss (nats/byte)</text>\n";
  auto polyline = [&](const Curve& c, const char* color) {
    if (c.empty()) return;
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\" points=\"";
    for (const auto& [s, v] : c) o << x(static_cast<double>(s)) << ',' << y(v) << ' ';
    o << "\"/>\n";
  };
  if (reference)
    o << "<line x1=\"" << kL << "\" y1=\"" << y(*reference) << "\" x2=\"" << kW - kR << "\" y2=\""
      << y(*reference) << "\" stroke=\"gray\" stroke-dasharray=\"6,4\"/>\n";
  polyline(train, "#1f77b4");
  polyline(valid, "#ff7f0e");
  // Legend.
  double ly = kT + 10;
  auto legend = [&](const char* color, const std::string& label, bool dashed) {
    o << "<line x1=\"" << kW - kR - 190 << "\" y1=\"" << ly << "\" x2=\"" << kW - kR - 165
      << "\" y2=\"" << ly << "\" stroke=\"" << color << "\" stroke-width=\"2\""
      << (dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n<text x=\"" << kW - kR - 160
      << "\" y=\"" << ly + 4 << "\">" << label << "</text>\n";
    ly += 18;
  };
  legend("#1f77b4", "training loss", false);
  if (!valid.empty()) legend("#ff7f0e", "validation loss", false);
  if (reference) legend("gray", "unigram entropy", true);
  o << "</svg>\n";
  return o.str();
}

}  // namespace lazax::train
