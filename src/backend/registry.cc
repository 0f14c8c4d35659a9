// The backend registry: each backend by name (backend.h).
#include "cpu/cpu_backend.h"
#include "lazax/backend/backend.h"
#include "lazax/core/error.h"
#include "null_backend.h"
#include "reference_backend.h"

namespace lazax {

std::vector<std::string> backend_names() { return {"cpu", "reference"}; }

std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "reference") return make_reference_backend();
  if (name == "null") return make_null_backend();  // host-cost measurements only
  std::string all;
  for (const auto& n : backend_names()) all += (all.empty() ? "" : ", ") + n;
  throw ValueError("[backend] unknown backend '" + name + "'; available: " + all);
}

}  // namespace lazax
