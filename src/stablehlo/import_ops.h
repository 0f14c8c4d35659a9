// Importer rows that live outside import.cc, each mapping one StableHLO op onto lazax primitives
// with the Builder (private to the layer).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ast.h"
#include "lazax/ir/builder.h"

namespace lazax::stablehlo {

// import_random.cc: bitcast_convert (no lazax bitcast primitive: rebuilt from converts and bit
// fields) and rng_bit_generator (THREE_FRY from add/xor/shift ops).
std::vector<ValueRef> bitcast_convert(Builder& b, const OpSyntax& o, std::vector<ValueRef>& in);
std::vector<ValueRef> rng_bit_generator(Builder& b, const OpSyntax& o, std::vector<ValueRef>& in);
// JAX's GPU kernel for threefry2x32 (custom_call @cu_threefry2x32 and its hip and _ffi
// variants): (key0, key1, x0, x1), all ui32 of one shape, to the two output words.
bool is_threefry_target(const std::string& target);
std::vector<ValueRef> threefry_call(Builder& b, const OpSyntax& o, std::vector<ValueRef>& in);

// import_reduce.cc: a reduce of two operands with its body (JAX's argmax/argmin); `in` is the
// two operands, then the two inits.
std::vector<ValueRef> reduce_pair(Builder& b, const OpSyntax& o, std::vector<ValueRef>& in);

}  // namespace lazax::stablehlo
