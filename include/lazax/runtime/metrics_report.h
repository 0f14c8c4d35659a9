// The metrics report: counters, timers, graph breaks by source location, memory.
#pragma once
#include <string>

namespace lazax::metrics {

// Text report of every counter and timer, the graph breaks with their source locations, the
// compile cache size, live buffers and bytes, and peak bytes.
std::string report();

}  // namespace lazax::metrics
