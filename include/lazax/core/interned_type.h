// Interned tensor types: one immortal copy of each distinct TensorType, shared by every graph
// node and tensor handle of that type. A TensorType is 72 bytes (dtype and an inline shape); a
// training step records thousands of ops over a few dozen distinct types, and keeping a copy in
// each node and each handle made a third of their memory (the lazy mode is memory-bound).
// A pointer to an interned type stays valid for the rest of the process, across syncs and on
// every thread. Distinct types are never freed: a program keeps one block per distinct shape
// it ever records, as its compile cache keeps one program per distinct graph.
#pragma once
#include <cstdint>

#include "lazax/core/shape.h"

namespace lazax {

// The interned copy of `t` (made on first sight). Thread-safe; each thread looks up recently
// used types in a small cache of its own, and takes a lock only to intern a type it has not
// used yet.
const TensorType& intern_type(const TensorType& t);

// Number of distinct types interned so far (for tests and metrics).
int64_t interned_type_count();

}  // namespace lazax
