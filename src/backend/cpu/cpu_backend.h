// The optimizing "cpu" backend (make_backend("cpu")).
#pragma once
#include <memory>

#include "lazax/backend/backend.h"

namespace lazax {
std::unique_ptr<Backend> make_cpu_backend();
}  // namespace lazax
