// The one loop of a `scan`: the reference interpreter and the cpu backend both run a scan
// through it, each with its own way of running one step of the body.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "lazax/ir/attrs.h"
#include "lazax/ir/literal.h"

namespace lazax::interp {

// One step of the body: (carry..., x rows...) -> (carry..., y rows...).
using ScanStep = std::function<std::vector<Literal>(std::vector<Literal> args)>;
// Uninitialized storage for the stacked ys and each step's x rows (a backend passes its pool's).
using ScanAllocate = std::function<Buffer(size_t bytes)>;

// Runs `a.length` steps (last row first when a.reverse) over the operands `in` (the carry, then
// the xs, each with leading dim a.length) and returns the final carry, then each y stacked into
// a value of `ys_types` (every row written: no zero fill). The operands and results were checked
// against the scan's types by the caller.
std::vector<Literal> run_scan_loop(
    const ScanAttrs& a, std::span<const Literal> in, std::span<const TensorType> ys_types,
    const ScanStep& step, const ScanAllocate& allocate = [](size_t bytes) {
      return Buffer::allocate_uninitialized(bytes);
    });

}  // namespace lazax::interp
