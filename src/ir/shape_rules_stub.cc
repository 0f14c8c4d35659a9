// STUB: replaced by the real shape rules.
#include "lazax/ir/shape_rules.h"
#include "lazax/core/error.h"
namespace lazax::shape_rules {
void parameter(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void constant(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void iota(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void binary_numeric(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void binary_float(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void unary_numeric(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void unary_float(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void compare(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void select(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void convert(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void broadcast_in_dim(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void reshape(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void transpose(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void slice(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void dynamic_slice(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void dynamic_update_slice(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void concatenate(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void pad(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void reduce(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void argmax(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void dot_general(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void gather(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void scatter_add(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void cumsum(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void random_bits(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void call(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void cond(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void while_loop(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void scan(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
void identity(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
}
