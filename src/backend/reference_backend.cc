// The reference backend: an Executable that runs the reference interpreter.
#include <cstdlib>

#include "cpu/cpu_backend.h"
#include "lazax/backend/backend.h"
#include "lazax/core/error.h"
#include "lazax/ir/builder.h"
#include "lazax/interp/interpreter.h"
#include "null_backend.h"

namespace lazax {
namespace {

class ReferenceExecutable : public Executable {
 public:
  explicit ReferenceExecutable(FunctionPtr f) : f_(std::move(f)) {}
  std::vector<Literal> run(std::span<const Literal* const> args) override {
    return interpret(*f_, args);
  }
  const Function& function() const override { return *f_; }

 private:
  FunctionPtr f_;
};

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "reference"; }
  std::unique_ptr<Executable> compile(FunctionPtr f) override {
    verify(*f);
    return std::make_unique<ReferenceExecutable>(std::move(f));
  }
};

}  // namespace

std::vector<std::string> backend_names() { return {"cpu", "reference"}; }

std::string default_backend_name() {
  const char* env = std::getenv("LAZAX_BACKEND");
  if (!env || !*env) return "cpu";
  std::string name = env;
  for (const auto& n : backend_names())
    if (n == name) return name;
  if (name == "null") return name;
  throw ValueError("[backend] LAZAX_BACKEND='" + name + "' is not a backend; set it to one of " +
                   "cpu, reference (or unset it for cpu)");
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "reference") return std::make_unique<ReferenceBackend>();
  if (name == "null") return make_null_backend();  // host-cost measurements only
  std::string all;
  for (const auto& n : backend_names()) all += (all.empty() ? "" : ", ") + n;
  throw ValueError("[backend] unknown backend '" + name + "'; available: " + all);
}

}  // namespace lazax
