// The "reference" backend (make_backend("reference")): the reference interpreter, the oracle.
#pragma once
#include <memory>

#include "lazax/backend/backend.h"

namespace lazax {
std::unique_ptr<Backend> make_reference_backend();
}  // namespace lazax
