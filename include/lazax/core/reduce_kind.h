// How a collective combines the values of the ranks (all_reduce, reduce_scatter): the attribute
// of those ops (lazax/ir/attrs.h) and the argument of the MPI calls (lazax/dist/collectives.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace lazax {

// mean is sum divided by the number of ranks in the group (float dtypes only).
enum class ReduceKind : uint8_t { sum, mean, max, min };

inline std::string_view reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum:
      return "sum";
    case ReduceKind::mean:
      return "mean";
    case ReduceKind::max:
      return "max";
    case ReduceKind::min:
      return "min";
  }
  return "?";
}
inline std::optional<ReduceKind> reduce_kind_from_name(std::string_view s) {
  for (ReduceKind k : {ReduceKind::sum, ReduceKind::mean, ReduceKind::max, ReduceKind::min})
    if (reduce_kind_name(k) == s) return k;
  return std::nullopt;
}

}  // namespace lazax
