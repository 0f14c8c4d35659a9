#include "lazax/ir/layout_fold.h"

#include "lazax/core/error.h"

namespace lazax {

Attrs compose_layout(OpCode op, const Attrs& inner, const Attrs& outer) {
  switch (op) {
    case OpCode::transpose: {
      // Result dim j of the outer transpose is dim p2[j] of the inner one's result, which is
      // dim p1[p2[j]] of its operand.
      const IntList& p1 = std::get<TransposeAttrs>(inner).permutation;
      IntList composed;
      for (int64_t d : std::get<TransposeAttrs>(outer).permutation)
        composed.push_back(p1[static_cast<size_t>(d)]);
      return TransposeAttrs{composed};
    }
    case OpCode::broadcast_in_dim: {
      // Operand dim i goes to the inner result's dim d1[i], which goes to d2[d1[i]]. A size-1
      // dim stays 1 or is expanded either way; any other size is kept all the way.
      const auto& o = std::get<BroadcastInDimAttrs>(outer);
      IntList composed;
      for (int64_t d : std::get<BroadcastInDimAttrs>(inner).broadcast_dimensions)
        composed.push_back(o.broadcast_dimensions[static_cast<size_t>(d)]);
      return BroadcastInDimAttrs{o.shape, composed};
    }
    case OpCode::reshape:  // row-major, so only the last one's sizes matter
      return outer;
    default:
      throw VerifyError("[compose_layout] " + std::string(op_name(op)) +
                        " is not a foldable layout view (transpose, reshape, broadcast_in_dim)");
  }
}

bool is_layout_identity(OpCode op, const Attrs& attrs, const TensorType& x) {
  switch (op) {
    case OpCode::transpose: {
      const IntList& p = std::get<TransposeAttrs>(attrs).permutation;
      return p.size() == x.shape.rank() && is_iota(p);
    }
    case OpCode::reshape:
      return std::get<ReshapeAttrs>(attrs).new_sizes == x.shape;
    case OpCode::broadcast_in_dim: {
      const auto& a = std::get<BroadcastInDimAttrs>(attrs);
      return a.shape == x.shape && a.broadcast_dimensions.size() == x.shape.rank() &&
             is_iota(a.broadcast_dimensions);
    }
    default:
      return false;
  }
}

}  // namespace lazax
