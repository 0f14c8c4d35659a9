#include "lazax/runtime/metrics_report.h"

#include <sstream>

#include "lazax/core/buffer.h"
#include "lazax/core/metrics.h"
#include "lazax/runtime/context.h"

namespace lazax::metrics {

std::string report() {
  std::ostringstream os;
  os << "== lazax metrics ==\n";
  for (const auto& [name, v] : counters()) os << "  " << name << ": " << v << "\n";
  for (const auto& [name, t] : timers()) {
    if (t.second == 0) continue;
    os << "  " << name << ": " << static_cast<double>(t.first) / 1e6 << " ms total over "
       << t.second << " (" << static_cast<double>(t.first) / 1e3 / static_cast<double>(t.second)
       << " us each)\n";
  }
  os << "  CompileCacheEntries: " << Context::get().cache().size() << "\n";
  auto m = memory_stats();
  os << "  LiveBuffers: " << m.live_buffers << "\n  LiveBytes: " << m.live_bytes
     << "\n  PeakBytes: " << m.peak_bytes << "\n";
  auto breaks = graph_breaks();
  if (!breaks.empty()) {
    os << "  graph breaks by source location:\n";
    for (const auto& [where, n] : breaks) os << "    " << where << ": " << n << "\n";
  }
  return os.str();
}

}  // namespace lazax::metrics
