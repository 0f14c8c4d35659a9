// schedule_collectives (kernels.h): a started all_reduce or reduce_scatter overlaps the steps
// after it only if it starts early. The program records a gradient's all_reduce after the whole
// backward (data parallel averages the buckets once every gradient exists), so each such
// collective, with the steps that exist only to feed it (its bucket's reshapes and concatenate,
// often the gradients' own GEMMs), moves up to just after the step that makes its last operand.
//
// Order keys: a step that stays keeps (its index, 0); a moved step gets (the largest key index
// of its operands' producers, a counter), so it lands after them and after the moved steps
// before it. A moved collective's index is also at least that of every collective and control
// step before it, so the collective sequence (the same on every rank) does not change.
#include <algorithm>
#include <numeric>
#include <queue>
#include <utility>

#include "kernels.h"

namespace lazax::cpu {
namespace {

// Steps no collective may pass: the collectives, and control flow (a body may hold one).
bool fixed_order(const Step& s) {
  return s.fn == &run_collective || (s.node && has_flag(s.node->op, kHasBodies));
}

}  // namespace

void schedule_collectives(std::vector<Step>& steps, std::span<const int32_t> result_slots) {
  const size_t n = steps.size();
  if (std::none_of(steps.begin(), steps.end(), starts_collective)) return;
  int32_t slots = 0;
  for (const Step& s : steps) {
    for (int32_t i : s.in) slots = std::max(slots, i + 1);
    for (int32_t o : s.out) slots = std::max(slots, o + 1);
  }
  for (int32_t r : result_slots) slots = std::max(slots, r + 1);
  std::vector<int64_t> producer(static_cast<size_t>(slots), -1);  // -1: a parameter
  std::vector<std::vector<size_t>> readers(static_cast<size_t>(slots));
  std::vector<char> result(static_cast<size_t>(slots), 0);
  for (size_t k = 0; k < n; ++k) {
    for (int32_t o : steps[k].out) producer[static_cast<size_t>(o)] = static_cast<int64_t>(k);
    for (int32_t i : steps[k].in) readers[static_cast<size_t>(i)].push_back(k);
  }
  for (int32_t r : result_slots) result[static_cast<size_t>(r)] = 1;

  // Which steps move: each started collective and the steps whose every output only moved
  // steps read. Taken highest index first, so a step's readers are decided before it.
  std::vector<char> moves(n, 0);
  for (size_t c = 0; c < n; ++c) {
    if (!starts_collective(steps[c])) continue;
    moves[c] = 1;
    std::priority_queue<size_t> todo;
    auto push_producers = [&](const Step& s) {
      for (int32_t i : s.in)
        if (const int64_t p = producer[static_cast<size_t>(i)]; p >= 0)
          todo.push(static_cast<size_t>(p));
    };
    push_producers(steps[c]);
    while (!todo.empty()) {
      const size_t k = todo.top();
      todo.pop();
      if (moves[k] || fixed_order(steps[k])) continue;
      bool only_feeds = true;
      for (int32_t o : steps[k].out) {
        if (result[static_cast<size_t>(o)]) only_feeds = false;
        for (size_t r : readers[static_cast<size_t>(o)]) only_feeds = only_feeds && moves[r];
      }
      if (!only_feeds) continue;
      moves[k] = 1;
      push_producers(steps[k]);
    }
  }

  std::vector<std::pair<int64_t, int64_t>> key(n);
  int64_t counter = 0, last_fixed = -1;  // the key index of the last collective or control step
  for (size_t k = 0; k < n; ++k) {
    if (!moves[k]) {
      key[k] = {static_cast<int64_t>(k), 0};
      if (fixed_order(steps[k])) last_fixed = static_cast<int64_t>(k);
      continue;
    }
    int64_t at = -1;
    for (int32_t i : steps[k].in)
      if (const int64_t p = producer[static_cast<size_t>(i)]; p >= 0)
        at = std::max(at, key[static_cast<size_t>(p)].first);
    if (fixed_order(steps[k])) {
      at = std::max(at, last_fixed);
      last_fixed = at;
    }
    key[k] = {at, ++counter};
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
  std::vector<Step> out;
  out.reserve(n);
  for (size_t k : order) out.push_back(std::move(steps[k]));
  steps = std::move(out);
}

}  // namespace lazax::cpu
