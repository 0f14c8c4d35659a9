// Compiling a Function into a Program (slots, steps, liveness, peak bytes) and running it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "fused.h"
#include "kernels.h"
#include "lazax/core/error.h"
#include "lazax/interp/interpreter.h"
#include "lazax/ir/printer.h"

namespace lazax::cpu {

std::vector<Literal> Step::operands(const Frame& frame) const {
  std::vector<Literal> v;
  v.reserve(in.size());
  for (int32_t s : in) v.push_back(frame[static_cast<size_t>(s)]);
  return v;
}

void Step::store(Frame& frame, std::vector<Literal> outs) const {
  if (outs.size() != out.size()) {
    throw VerifyError("[cpu] " + std::string(op_name(node->op)) + " returned " +
                      std::to_string(outs.size()) + " values, expected " +
                      std::to_string(out.size()));
  }
  for (size_t i = 0; i < out.size(); ++i) frame[static_cast<size_t>(out[i])] = std::move(outs[i]);
}

void run_fallback(const Step& step, Frame& frame) {
  step.store(frame, interpret_node(*step.node, step.operands(frame)));
}

std::vector<Literal> Program::run(std::span<const Literal* const> args) const {
  if (static_cast<int>(args.size()) != f_->num_params()) {
    throw ValueError("[cpu] @" + f_->name() + " takes " + std::to_string(f_->num_params()) +
                     " arguments, got " + std::to_string(args.size()));
  }
  std::vector<Literal> values;
  values.reserve(args.size());
  for (int i = 0; i < f_->num_params(); ++i) {
    const Literal& a = *args[static_cast<size_t>(i)];
    if (a.type != f_->param_type(i)) {
      throw ValueError("[cpu] argument " + std::to_string(i) + " of @" + f_->name() +
                       " should be " + f_->param_type(i).str() + ", got " + a.type.str());
    }
    values.push_back(a);
  }
  return run_values(std::move(values));
}

namespace {

// set_cpu_profile (LAZAX_CPU_PROFILE=1): time spent per kernel kind (gemm, fused, reduce,
// layout, the op of each fallback; control flow counts its bodies' steps, not itself), printed to
// stderr at exit. CpuProfile::ops (=ops) splits each kind by op and result type (the layout op,
// the gemm's shape).
std::atomic<CpuProfile> g_profile_mode{CpuProfile::off};

class Profile {
 public:
  // The profile while one is asked for, else null.
  static Profile* active() {
    const CpuProfile mode = g_profile_mode.load(std::memory_order_relaxed);
    if (mode == CpuProfile::off) return nullptr;
    static auto* p = new Profile();  // NOLINT(cppcoreguidelines-owning-memory): lives to the exit
    p->by_op_.store(mode == CpuProfile::ops, std::memory_order_relaxed);
    return p;
  }
  void add(const Step& s, double seconds) {
    if (has_flag(s.node->op, kHasBodies)) return;
    std::string key = s.fn == &run_fallback     ? "fallback:" + std::string(op_name(s.node->op))
                      : s.fn == &run_gemm       ? "gemm"
                      : s.fn == &run_layout     ? "layout"
                      : s.fn == &run_indexing   ? "indexing"
                      : s.fn == &run_reduce     ? "reduce"
                      : s.fn == &run_convert    ? "convert"
                      : s.fn == &run_collective ? "collective"
                                                : "fused";
    if (by_op_.load(std::memory_order_relaxed)) {
      key += " " + std::string(op_name(s.node->op));
      for (const TensorType& t : s.node->outputs) key += " " + t.str();
      if (s.state) key += s.state->describe();
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto& [t, n] = table_[key];
    t += seconds;
    ++n;
  }
  ~Profile() = default;

 private:
  Profile() {
    instance_ = this;
    std::atexit([] {
      Profile* p = instance_;
      std::vector<std::pair<double, std::string>> rows;
      double total = 0;
      for (auto& [k, v] : p->table_) {
        rows.emplace_back(v.first, k + " (" + std::to_string(v.second) + " runs)");
        total += v.first;
      }
      std::sort(rows.rbegin(), rows.rend());
      std::fprintf(stderr, "[cpu profile] %.3f s in kernels\n", total);
      for (auto& [t, k] : rows)
        std::fprintf(stderr, "  %9.3f s %5.1f%%  %s\n", t, 100 * t / total, k.c_str());
    });
  }
  std::mutex mu_;
  std::map<std::string, std::pair<double, int64_t>> table_;
  std::atomic<bool> by_op_{false};
  static inline Profile* instance_ = nullptr;
};

}  // namespace

namespace {
thread_local BufferPool* t_pool = nullptr;  // the outermost running Program's pool (plan.h)
constexpr size_t kMinPooledBytes = 4096;
}  // namespace

Buffer BufferPool::take(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(bytes);
  if (it == free_.end()) return Buffer::allocate_uninitialized(bytes);
  Buffer b = std::move(it->second);
  free_.erase(it);
  held_ -= static_cast<int64_t>(bytes);
  return b;
}

void BufferPool::give(Buffer b) {
  std::lock_guard<std::mutex> lock(mu_);
  if (held_ + static_cast<int64_t>(b.bytes()) > cap_) return;  // dropped: freed
  held_ += static_cast<int64_t>(b.bytes());
  size_t bytes = b.bytes();
  free_.emplace(bytes, std::move(b));
}

Buffer allocate_output(size_t bytes) {
  if (t_pool && bytes >= kMinPooledBytes) return t_pool->take(bytes);
  return Buffer::allocate_uninitialized(bytes);
}

void recycle(Literal& l) {
  // Only this handle holds it (not the caller, a result or another value): reusable.
  if (t_pool && l.buffer.use_count() == 1 && l.buffer.bytes() >= kMinPooledBytes &&
      l.buffer.memory_kind() == MemoryKind::device)
    t_pool->give(std::move(l.buffer));
  l = Literal();
}

std::vector<Literal> Program::run_values(std::vector<Literal> args) const {
  BufferPool* saved_pool = t_pool;
  if (!saved_pool) t_pool = &pool_;
  struct Restore {
    BufferPool* p;
    ~Restore() { t_pool = p; }
  } restore{saved_pool};
  Frame frame(static_cast<size_t>(num_slots_));
  for (size_t i = 0; i < param_slots_.size(); ++i)
    frame[static_cast<size_t>(param_slots_[i])] = std::move(args[i]);
  Profile* profile = Profile::active();
  PendingCollectives pending;
  for (const Step& s : steps_) {
    for (int32_t w : s.wait) pending.wait(w);
    try {
      if (profile) {
        auto t0 = std::chrono::steady_clock::now();
        s.fn(s, frame);
        profile->add(s,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      } else {
        s.fn(s, frame);
      }
    } catch (OutOfMemoryError& e) {
      if (s.node) {
        const auto i = static_cast<size_t>(s.node - f_->nodes().data());
        e.add_note("running `" + print_node(*f_, i, {.debug_info = false}) + "` in @" + f_->name());
      }
      throw;
    }
    for (int32_t r : s.release) recycle(frame[static_cast<size_t>(r)]);
    if (!pending.empty()) pending.progress();
  }
  pending.wait_all();
  std::vector<Literal> out;
  out.reserve(result_slots_.size());
  for (int32_t r : result_slots_) out.push_back(frame[static_cast<size_t>(r)]);
  return out;
}

class Compiler {
 public:
  ProgramPtr compile(const FunctionPtr& f) {
    if (auto it = done_.find(f.get()); it != done_.end()) return it->second;
    auto p = std::make_shared<Program>();
    build(*p, f);
    done_[f.get()] = p;
    return p;
  }

 private:
  void build(Program& p, const FunctionPtr& given) {
    // Fusion groups: each runs as one step at the place of its last member (grouped again when
    // a broadcast is copied into the groups that read it).
    std::vector<FusionGroup> groups = fuse_groups(*given);
    FunctionPtr fp = split_shared_broadcasts(given, groups);
    if (fp != given) groups = fuse_groups(*fp);
    const Function& f = *fp;
    p.f_ = fp;
    std::vector<int32_t> base(f.nodes().size());
    int32_t n = 0;
    for (size_t i = 0; i < f.nodes().size(); ++i) {
      base[i] = n;
      n += static_cast<int32_t>(f.nodes()[i].outputs.size());
    }
    p.num_slots_ = n;
    auto slot = [&](ValueRef v) { return base[static_cast<size_t>(v.node)] + v.index; };
    for (int i = 0; i < f.num_params(); ++i) p.param_slots_.push_back(base[static_cast<size_t>(i)]);
    for (ValueRef r : f.results()) p.result_slots_.push_back(slot(r));

    std::vector<TensorType> in_types;
    SubCompiler sub = [this](const FunctionPtr& g) { return compile(g); };
    std::vector<int32_t> group_of(f.nodes().size(), -1);
    std::vector<int32_t> last_member(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      for (int32_t m : groups[g].members)
        group_of[static_cast<size_t>(m)] = static_cast<int32_t>(g);
      last_member[g] = groups[g].members.back();
    }
    const std::vector<int32_t> fold = dot_convert_folds(f, group_of);
    std::vector<bool> folded(f.nodes().size(), false);  // converts a dot's step writes
    std::vector<bool> used_outside(f.nodes().size(), false);
    for (const Node& node : f.nodes()) {
      int32_t g = group_of[static_cast<size_t>(&node - f.nodes().data())];
      for (ValueRef v : node.operands)
        if (g < 0 || group_of[static_cast<size_t>(v.node)] != g)
          used_outside[static_cast<size_t>(v.node)] = true;
    }
    for (ValueRef r : f.results()) used_outside[static_cast<size_t>(r.node)] = true;
    for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
      const Node& node = f.nodes()[i];
      if (int32_t g = group_of[i]; g >= 0) {
        if (last_member[static_cast<size_t>(g)] != static_cast<int32_t>(i)) continue;
        Step s;
        s.node = &node;
        s.fn = &run_fused;
        s.state = plan_fused(f, groups[static_cast<size_t>(g)], base, used_outside, s.in, s.out);
        ++p.stats_.fused;
        p.stats_.fused_ops += static_cast<int64_t>(groups[static_cast<size_t>(g)].members.size());
        p.steps_.push_back(std::move(s));
        continue;
      }
      if (folded[i]) continue;
      Step s;
      s.node = &node;
      in_types.clear();
      for (ValueRef v : node.operands) {
        s.in.push_back(slot(v));
        in_types.push_back(f.type(v));
      }
      if (const int32_t c = fold[i]; c >= 0) {
        s.state = plan_gemm(node, in_types, &f.nodes()[static_cast<size_t>(c)].outputs[0]);
        if (s.state) {
          s.fn = &run_gemm;
          s.out.push_back(base[static_cast<size_t>(c)]);
          folded[static_cast<size_t>(c)] = true;
          ++p.stats_.gemm;
          p.steps_.push_back(std::move(s));
          continue;
        }
      }
      for (size_t k = 0; k < node.outputs.size(); ++k)
        s.out.push_back(base[i] + static_cast<int32_t>(k));
      select(node, in_types, sub, s, p.stats_);
      p.steps_.push_back(std::move(s));
    }
    schedule_collectives(p.steps_, p.result_slots_);
    plan_waits(p);
    plan_liveness(p, f, base);
  }

  static void select(const Node& node, std::span<const TensorType> in, const SubCompiler& sub,
                     Step& s, PlanStats& st) {
    // The first kernel that takes the node (a planner returns null when it does not).
    if (has_flag(node.op, kHasBodies)) {
      s.state = plan_control(node, sub);
      s.fn = control_kernel(node.op);
      return;
    }
    if (has_flag(node.op, kCollective)) {
      s.fn = &run_collective;
      ++st.collective;
      return;
    }
    if (node.op == OpCode::dot_general) s.state = plan_gemm(node, in);
    if (s.state) {
      s.fn = &run_gemm;
      ++st.gemm;
      return;
    }
    switch (node.op) {
      case OpCode::broadcast_in_dim:
      case OpCode::transpose:
      case OpCode::slice:
      case OpCode::concatenate:
      case OpCode::pad:
        s.state = plan_layout(node, in);
        break;
      default:
        break;
    }
    if (s.state) {
      s.fn = &run_layout;
      return;
    }
    if (node.op == OpCode::gather || node.op == OpCode::scatter_add) {
      s.state = plan_indexing(node, in);
      if (s.state) {
        s.fn = &run_indexing;
        return;
      }
    }
    if (node.op == OpCode::convert) {
      s.state = plan_convert(node, in);
      if (s.state) {
        s.fn = &run_convert;
        return;
      }
    }
    s.state = plan_reduce(node, in);
    if (s.state) {
      s.fn = &run_reduce;
    } else {
      s.fn = &run_fallback;
      ++st.fallback;
    }
  }

  // The first reader of each collective's result waits for it (a started all_reduce or
  // reduce_scatter is finished there; results are waited for at the end of the run).
  static void plan_waits(Program& p) {
    std::vector<int64_t> started(static_cast<size_t>(p.num_slots_), -1);  // at which step
    const auto n = static_cast<int64_t>(p.steps_.size());
    for (int64_t k = 0; k < n; ++k) {
      Step& s = p.steps_[static_cast<size_t>(k)];
      for (int32_t i : s.in) {
        int64_t& at = started[static_cast<size_t>(i)];
        if (at < 0) continue;
        p.stats_.overlapped += k - at - 1;
        at = -1;
        s.wait.push_back(i);
      }
      if (starts_collective(s)) started[static_cast<size_t>(s.out[0])] = k;
    }
    for (int64_t at : started)  // waited for at the end of the run
      if (at >= 0) p.stats_.overlapped += n - at - 1;
  }

  // Releases each slot after its last reader (never results) and computes the peak bytes of the
  // values live at once, per memory kind.
  static void plan_liveness(Program& p, const Function& f, const std::vector<int32_t>& base) {
    std::vector<int64_t> last(static_cast<size_t>(p.num_slots_), -1);
    for (size_t k = 0; k < p.steps_.size(); ++k)
      for (int32_t s : p.steps_[k].in) last[static_cast<size_t>(s)] = static_cast<int64_t>(k);
    for (int32_t r : p.result_slots_) last[static_cast<size_t>(r)] = INT64_MAX;
    for (size_t k = 0; k < p.steps_.size(); ++k) {
      Step& s = p.steps_[k];
      for (int32_t o : s.out)  // never read: dead at once
        if (last[static_cast<size_t>(o)] < 0)
          last[static_cast<size_t>(o)] = static_cast<int64_t>(k);
      for (int32_t o : s.in)
        if (last[static_cast<size_t>(o)] == static_cast<int64_t>(k)) s.release.push_back(o);
      for (int32_t o : s.out)
        if (last[static_cast<size_t>(o)] == static_cast<int64_t>(k)) s.release.push_back(o);
      std::sort(s.release.begin(), s.release.end());
      s.release.erase(std::unique(s.release.begin(), s.release.end()), s.release.end());
    }
    // Slot -> (bytes, host?) of node outputs; parameters are the caller's and not counted.
    std::vector<int64_t> bytes(static_cast<size_t>(p.num_slots_), 0);
    std::vector<bool> host(static_cast<size_t>(p.num_slots_), false);
    for (size_t i = static_cast<size_t>(f.num_params()); i < f.nodes().size(); ++i) {
      const Node& node = f.nodes()[i];
      bool h = false;
      if (const auto* m = std::get_if<MemoryKindAttrs>(&node.attrs))
        h = m->kind == MemoryKind::host;
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        bytes[static_cast<size_t>(base[i]) + k] = static_cast<int64_t>(node.outputs[k].bytes());
        host[static_cast<size_t>(base[i]) + k] = h;
      }
    }
    std::vector<char> param_slot(static_cast<size_t>(p.num_slots_), 0);
    for (int32_t s : p.param_slots_) param_slot[static_cast<size_t>(s)] = 1;
    int64_t live[2] = {0, 0};
    PlanStats& st = p.stats_;
    st.steps = static_cast<int64_t>(p.steps_.size());
    for (Step& s : p.steps_) {
      for (int32_t o : s.out) live[host[static_cast<size_t>(o)]] += bytes[static_cast<size_t>(o)];
      // outputs written over inputs that die here add no bytes (the inputs are released below)
      const int64_t donated = s.fn == &run_fused ? plan_fused_donors(s, param_slot) : 0;
      int64_t sub = s.state && has_flag(s.node->op, kHasBodies) ? control_peak_bytes(*s.state) : 0;
      st.peak_device_bytes = std::max(st.peak_device_bytes, live[0] - donated + sub);
      st.peak_host_bytes = std::max(st.peak_host_bytes, live[1]);
      for (int32_t r : s.release)
        live[host[static_cast<size_t>(r)]] -= bytes[static_cast<size_t>(r)];
    }
    p.pool_.set_cap(st.peak_device_bytes);
  }

  std::map<const Function*, ProgramPtr> done_;
};

ProgramPtr compile_program(const FunctionPtr& f) { return Compiler().compile(f); }

}  // namespace lazax::cpu

namespace lazax {
void set_cpu_profile(CpuProfile mode) { cpu::g_profile_mode.store(mode); }
}  // namespace lazax
