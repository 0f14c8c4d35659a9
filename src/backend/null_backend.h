// Internal to the backend layer: the "null" backend (null_backend.cc), made by make_backend.
#pragma once
#include <memory>

#include "lazax/backend/backend.h"

namespace lazax {

std::unique_ptr<Backend> make_null_backend();

}  // namespace lazax
