#include "lazax/runtime/compile_cache.h"

#include <algorithm>
#include <sstream>

namespace lazax {

GraphSummary GraphSummary::of(const Function& f) {
  GraphSummary s;
  s.inputs = f.param_types();
  for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    s.ops.push_back({n.op, n.outputs.empty() ? TensorType{} : n.outputs[0], n.debug});
  }
  return s;
}

Executable* CompileCache::find(uint64_t key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.exe.get();
}

Executable& CompileCache::insert(uint64_t key, std::unique_ptr<Executable> exe,
                                 GraphSummary summary) {
  auto& e = entries_[key];
  e.exe = std::move(exe);
  e.summary = std::move(summary);
  order_.push_back(key);
  return *e.exe;
}

namespace {
size_t common_prefix(const GraphSummary& a, const GraphSummary& b, bool with_types) {
  size_t n = std::min(a.ops.size(), b.ops.size()), i = 0;
  while (i < n && a.ops[i].op == b.ops[i].op && (!with_types || a.ops[i].type == b.ops[i].type))
    ++i;
  return i;
}
// Closeness: same number of inputs first, then the longest run of the same ops (types aside),
// then how many input types agree.
size_t similarity(const GraphSummary& a, const GraphSummary& b) {
  size_t same_inputs = 0;
  if (a.inputs.size() == b.inputs.size())
    for (size_t i = 0; i < a.inputs.size(); ++i) same_inputs += a.inputs[i] == b.inputs[i];
  return (a.inputs.size() == b.inputs.size() ? 1u << 30 : 0) + common_prefix(a, b, false) * 64 +
         same_inputs;
}
std::string where(const DebugInfo& d) {
  if (!d.file) return "";
  return std::string(" (made at ") + d.file + ":" + std::to_string(d.line) + ")";
}
}  // namespace

int64_t CompileCache::max_planned_peak_bytes() const {
  int64_t peak = 0;
  for (const auto& [key, e] : entries_)
    peak = std::max(peak, e.exe->plan_stats().peak_device_bytes);
  return peak;
}

std::string CompileCache::explain_miss(const GraphSummary& s) const {
  if (entries_.empty()) return "the cache is empty (first compile)";
  const GraphSummary* best = nullptr;
  size_t best_score = 0;
  for (uint64_t k : order_) {
    const GraphSummary& c = entries_.at(k).summary;
    size_t score = similarity(s, c);
    if (!best || score > best_score) {
      best = &c;
      best_score = score;
    }
  }
  std::ostringstream os;
  os << "closest cached graph (" << best->inputs.size() << " inputs, " << best->ops.size()
     << " ops) differs: ";
  if (best->inputs.size() != s.inputs.size()) {
    os << "it has " << best->inputs.size() << " inputs, this one " << s.inputs.size();
    return os.str();
  }
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (s.inputs[i] != best->inputs[i]) {
      bool dtype = s.inputs[i].dtype != best->inputs[i].dtype;
      os << "input " << i << " " << (dtype ? "dtype" : "shape") << " changed: was "
         << best->inputs[i].str() << ", now " << s.inputs[i].str();
      return os.str();
    }
  }
  size_t p = common_prefix(s, *best, true);
  if (p < s.ops.size() && p < best->ops.size()) {
    os << "program structure: op " << p << " was " << op_name(best->ops[p].op) << " -> "
       << best->ops[p].type.str() << ", now " << op_name(s.ops[p].op) << " -> "
       << s.ops[p].type.str() << where(s.ops[p].debug);
  } else if (s.ops.size() != best->ops.size()) {
    os << "program structure: it has " << best->ops.size() << " ops, this one " << s.ops.size();
  } else {
    os << "program structure: same ops and input types, different wiring or attributes";
  }
  return os.str();
}

}  // namespace lazax
