// Remat policies (JAX's names and semantics), checkpoint_name, and the saved-residuals listing.
// The partition that applies a policy is in function_ad.cc (require).
#include "lazax/autodiff/remat.h"

#include <algorithm>
#include <set>

#include "lazax/api/tensor_impl.h"
#include "lazax/autodiff/function_ad.h"
#include "lazax/core/error.h"
#include "lazax/trace/call_site.h"

namespace lazax {
namespace policies {
namespace {

const std::string* name_of(const Node& node) {
  if (node.op != OpCode::checkpoint_name) return nullptr;
  return &std::get<CheckpointNameAttrs>(node.attrs).name;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

std::set<std::string> name_set(const char* policy, const std::vector<std::string>& names) {
  std::set<std::string> s(names.begin(), names.end());
  if (s.count(""))
    throw ValueError(std::string("[") + policy + "] an empty name: name values with " +
                     "checkpoint_name(x, \"name\") and list those names");
  return s;
}

}  // namespace

RematPolicy everything_saveable() {
  return {"everything_saveable", [](const Function&, const Node&) { return true; }};
}

RematPolicy nothing_saveable() {
  return {"nothing_saveable", [](const Function&, const Node&) { return false; }};
}

RematPolicy dots_saveable() {
  return {"dots_saveable",
          [](const Function&, const Node& n) { return n.op == OpCode::dot_general; }};
}

RematPolicy dots_with_no_batch_dims_saveable() {
  return {"dots_with_no_batch_dims_saveable", [](const Function&, const Node& n) {
            return n.op == OpCode::dot_general &&
                   std::get<DotGeneralAttrs>(n.attrs).lhs_batch.empty();
          }};
}

RematPolicy save_only_these_names(const std::vector<std::string>& names) {
  auto s = name_set("save_only_these_names", names);
  return {"save_only_these_names(" + joined(names) + ")", [s](const Function&, const Node& n) {
            const std::string* name = name_of(n);
            return name && s.count(*name) > 0;
          }};
}

RematPolicy save_any_names_but_these(const std::vector<std::string>& names) {
  auto s = name_set("save_any_names_but_these", names);
  return {"save_any_names_but_these(" + joined(names) + ")", [s](const Function&, const Node& n) {
            const std::string* name = name_of(n);
            return name && s.count(*name) == 0;
          }};
}

RematPolicy save_anything_except_these_names(const std::vector<std::string>& names) {
  auto s = name_set("save_anything_except_these_names", names);
  return {"save_anything_except_these_names(" + joined(names) + ")",
          [s](const Function&, const Node& n) {
            const std::string* name = name_of(n);
            return !name || s.count(*name) == 0;
          }};
}

RematPolicy save_and_offload_only_these_names(const std::vector<std::string>& saved,
                                              const std::vector<std::string>& offloaded) {
  auto keep = name_set("save_and_offload_only_these_names", saved);
  auto host = name_set("save_and_offload_only_these_names", offloaded);
  for (const std::string& n : keep) {
    if (host.count(n))
      throw ValueError("[save_and_offload_only_these_names] '" + n +
                       "' is both saved and offloaded: list each name once");
  }
  auto in = [](const std::set<std::string>& s, const Node& n) {
    const std::string* name = name_of(n);
    return name && s.count(*name) > 0;
  };
  return {"save_and_offload_only_these_names(" + joined(saved) + ";" + joined(offloaded) + ")",
          [keep, host, in](const Function&, const Node& n) { return in(keep, n) || in(host, n); },
          [host, in](const Function&, const Node& n) { return in(host, n); }};
}

RematPolicy memory_budget(int64_t bytes) {
  if (bytes < 0) {
    throw ValueError("[memory_budget] the budget is " + std::to_string(bytes) +
                     " bytes; give a number of bytes >= 0");
  }
  RematPolicy p;
  p.name = "memory_budget(" + std::to_string(bytes) + ")";
  p.budget_bytes = bytes;
  return p;
}

RematPolicy offload_dot_with_no_batch_dims() {
  RematPolicy p = dots_with_no_batch_dims_saveable();
  p.name = "offload_dot_with_no_batch_dims";
  p.offload = p.saveable;
  return p;
}

RematPolicy save_from_both_policies(const RematPolicy& a, const RematPolicy& b) {
  if (!a.saveable || !b.saveable) {
    throw ValueError("[save_from_both_policies] a policy without a predicate");
  }
  std::string name = "save_from_both_policies(" + a.name + "," + b.name + ")";
  // Offloaded where the policy that saves the value offloads it (device wins when both save).
  auto offload = [a, b](const Function& f, const Node& n) {
    const bool a_dev = a.saveable(f, n) && !(a.offload && a.offload(f, n));
    const bool b_dev = b.saveable(f, n) && !(b.offload && b.offload(f, n));
    return !a_dev && !b_dev;
  };
  return {std::move(name),
          [a = a.saveable, b = b.saveable](const Function& f, const Node& n) {
            return a(f, n) || b(f, n);
          },
          std::move(offload)};
}

RematPolicy custom(const std::string& name,
                   std::function<bool(const Function&, const Node&)> saveable) {
  if (name.empty() || !saveable) {
    throw ValueError(
        "[policies::custom] give the policy a name (it keys the program cache) and "
        "a predicate");
  }
  return {"custom:" + name, std::move(saveable)};
}

RematPolicy by_name(const std::string& name) {
  const std::string budget = "memory_budget(";
  if (name.compare(0, budget.size(), budget) == 0 && name.back() == ')') {
    const std::string digits = name.substr(budget.size(), name.size() - budget.size() - 1);
    if (!digits.empty() && digits.size() < 19 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return memory_budget(std::stoll(digits));
  }
  for (RematPolicy p : {everything_saveable(), nothing_saveable(), dots_saveable(),
                        dots_with_no_batch_dims_saveable(), offload_dot_with_no_batch_dims()})
    if (p.name == name) return p;
  throw ValueError(
      "[remat] no policy named '" + name +
      "'; the policies without arguments are everything_saveable, nothing_saveable, "
      "dots_saveable, dots_with_no_batch_dims_saveable, offload_dot_with_no_batch_dims, "
      "and memory_budget(BYTES)");
}

}  // namespace policies

Tensor checkpoint_name(const Tensor& x, const std::string& name) {
  if (name.empty()) {
    throw ValueError(
        "[checkpoint_name] the name is empty: give the value a name that policies "
        "such as save_only_these_names can list");
  }
  return record_op(OpCode::checkpoint_name, {&x}, SharedAttrs(CheckpointNameAttrs{name}));
}

namespace detail {

namespace {
std::vector<bool> every_floating_input(const Function& fn) {
  std::vector<bool> wrt(static_cast<size_t>(fn.num_params()));
  for (size_t i = 0; i < wrt.size(); ++i)
    wrt[i] = is_floating(fn.param_type(static_cast<int>(i)).dtype);
  return wrt;
}
}  // namespace

const autodiff::VjpPrograms& split_for_every_input(const PureEntry& e) {
  return autodiff::vjp_programs(e.fn, every_floating_input(*e.fn), e.remat.get(), e.prevent_cse);
}

std::vector<std::string> saved_residuals(const PureEntry& e,
                                         const std::vector<std::string>& arg_paths) {
  const Function& fn = *e.fn;
  // Built anew: the cached split of a program of the same structure may lack call sites.
  const autodiff::VjpPrograms p =
      autodiff::build_vjp_programs(e.fn, every_floating_input(fn), e.remat.get(), e.prevent_cse);
  std::vector<std::string> lines;
  for (int i : p.bwd_inputs) {
    const std::string type = fn.param_type(i).str();
    const auto k = static_cast<size_t>(i);
    lines.push_back(k < arg_paths.size()
                        ? type + " from the argument " + arg_paths[k]
                        : type + " from captured tensor " + std::to_string(k - arg_paths.size()));
  }
  const Function& fwd = *p.fwd;
  for (int k = 0; k < p.num_residuals; ++k) {
    ValueRef r = fwd.results()[static_cast<size_t>(p.num_outputs) + static_cast<size_t>(k)];
    if (fwd.node(r.node).op == OpCode::copy_to_memory_kind) r = fwd.node(r.node).operands[0];
    const Node& node = fwd.node(r.node);
    std::string line = fwd.type(r).str();
    if (node.op == OpCode::checkpoint_name) {
      line += " named '" + std::get<CheckpointNameAttrs>(node.attrs).name + "'";
    } else {
      line += " output of " + std::string(op_name(node.op));
    }
    if (p.offloaded[static_cast<size_t>(k)]) line += " (offloaded to host)";
    if (node.debug.file) {
      line += " from " + std::string(node.debug.file) + ":" + std::to_string(node.debug.line);
    } else if (std::string where = call_site_location(node.debug.call_site); !where.empty()) {
      line += " from " + where;
    }
    if (node.debug.scope) line += " (" + std::string(node.debug.scope) + ")";
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace detail
}  // namespace lazax
