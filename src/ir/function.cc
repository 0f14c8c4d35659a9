#include "lazax/ir/function.h"

#include <mutex>
#include <set>
#include <unordered_set>

#include "lazax/core/error.h"
#include "lazax/core/hash.h"
#include "lazax/core/interned_type.h"

namespace lazax {

const char* intern_string(std::string_view s) {
  static std::mutex mu;
  static std::set<std::string, std::less<>> pool;
  std::lock_guard<std::mutex> lock(mu);
  auto it = pool.find(s);
  if (it == pool.end()) it = pool.emplace(s).first;
  return it->c_str();
}

uint64_t node_hash(OpCode op, const Attrs& attrs, const std::vector<TensorType>& outputs,
                   std::span<const uint64_t> operand_hashes,
                   std::span<const int32_t> operand_indices) {
  Hasher h(static_cast<uint64_t>(op) + 1);
  h.add(hash_attrs(attrs));
  h.add(static_cast<uint64_t>(outputs.size()));
  for (const auto& t : outputs) {
    h.add(static_cast<uint64_t>(t.dtype));
    h.add_bytes(t.shape.dims().data(), t.shape.rank() * sizeof(int64_t));
  }
  for (size_t i = 0; i < operand_hashes.size(); ++i) {
    h.add(operand_hashes[i]);
    h.add_signed(operand_indices[i]);
  }
  return h.digest();
}

Node make_param_node(int64_t index, const TensorType& t) {
  Node p;
  p.op = OpCode::parameter;
  p.attrs = ParameterAttrs{index};
  p.outputs = {t};
  p.hash = node_hash(p.op, p.attrs, p.outputs, {}, {});
  return p;
}

void seal_node(Node& n, const std::vector<Node>& nodes) {
  SmallVec<uint64_t, 4> hashes;
  SmallVec<int32_t, 4> idx;
  for (auto r : n.operands) {
    hashes.push_back(nodes[static_cast<size_t>(r.node)].hash);
    idx.push_back(r.index);
  }
  n.hash = node_hash(n.op, n.attrs, n.outputs, {hashes.begin(), hashes.size()},
                     {idx.begin(), idx.size()});
}

Function::Function(std::string name, std::vector<Node> nodes, int num_params,
                   std::vector<ValueRef> results)
    : name_(std::move(name)),
      nodes_(std::move(nodes)),
      num_params_(num_params),
      results_(std::move(results)) {
  Hasher h(0x6c617a6178ull);
  h.add(static_cast<uint64_t>(num_params_));
  for (const auto& n : nodes_) h.add(n.hash);
  for (auto r : results_) {
    if (r.node < 0 || static_cast<size_t>(r.node) >= nodes_.size() || r.index < 0 ||
        static_cast<size_t>(r.index) >= nodes_[static_cast<size_t>(r.node)].outputs.size())
      throw VerifyError("[verify] @" + name_ + " returns %" + std::to_string(r.node) + "#" +
                        std::to_string(r.index) + ", which does not exist");
    h.add(nodes_[static_cast<size_t>(r.node)].hash);
    h.add_signed(r.index);
  }
  hash_ = h.digest();
  result_types_.reserve(results_.size());
  for (auto r : results_) result_types_.push_back(type(r));
  interned_result_types_.reserve(results_.size());
  for (const TensorType& t : result_types_) interned_result_types_.push_back(&intern_type(t));
  params_well_formed_ = num_params_ >= 0 && static_cast<size_t>(num_params_) <= nodes_.size();
  for (int i = 0; params_well_formed_ && i < num_params_; ++i)
    params_well_formed_ = nodes_[static_cast<size_t>(i)].outputs.size() == 1;
  if (params_well_formed_) {
    interned_param_types_.reserve(static_cast<size_t>(num_params_));
    for (int i = 0; i < num_params_; ++i)
      interned_param_types_.push_back(&intern_type(nodes_[static_cast<size_t>(i)].outputs[0]));
  }
}

std::vector<TensorType> Function::param_types() const {
  std::vector<TensorType> out;
  out.reserve(static_cast<size_t>(num_params_));
  for (int i = 0; i < num_params_; ++i) out.push_back(param_type(i));
  return out;
}

std::vector<FunctionPtr> Function::callees() const {
  std::vector<FunctionPtr> out;
  std::unordered_set<const Function*> seen;
  auto push = [&](const FunctionPtr& f) {
    if (f && seen.insert(f.get()).second) out.push_back(f);
  };
  for (const auto& n : nodes_) {
    if (!has_flag(n.op, kHasBodies)) continue;
    std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, CallAttrs>) {
            push(a.callee);
          } else if constexpr (std::is_same_v<A, CondAttrs>) {
            for (const auto& b : a.branches) push(b);
          } else if constexpr (std::is_same_v<A, WhileAttrs>) {
            push(a.cond);
            push(a.body);
          } else if constexpr (std::is_same_v<A, ScanAttrs>) {
            push(a.body);
          }
        },
        n.attrs);
  }
  return out;
}

int64_t Function::total_nodes() const {
  int64_t n = static_cast<int64_t>(nodes_.size()) - num_params_;
  for (const auto& c : callees()) n += c->total_nodes();
  return n;
}

}  // namespace lazax
