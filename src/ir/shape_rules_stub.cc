// TEMPORARY weak stubs so the tree links while rules are written; delete when all exist.
#include "lazax/ir/shape_rules.h"
#include "lazax/core/error.h"
namespace lazax::shape_rules {
__attribute__((weak)) void parameter(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void constant(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void iota(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void binary_numeric(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void binary_float(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void unary_numeric(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void unary_float(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void compare(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void select(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void convert(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void broadcast_in_dim(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void reshape(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void transpose(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void slice(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void dynamic_slice(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void dynamic_update_slice(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void concatenate(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void pad(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void reduce(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void argmax(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void dot_general(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void gather(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void scatter_add(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void cumsum(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void random_bits(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void call(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void cond(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void while_loop(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void scan(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
__attribute__((weak)) void identity(OpCode op, std::span<const TensorType>, const Attrs&, std::vector<TensorType>&) { throw UnimplementedError("[" + std::string(op_name(op)) + "] shape rule missing"); }
}
