// The reference backend: an Executable that runs the reference interpreter.
#include "reference_backend.h"

#include "lazax/interp/interpreter.h"
#include "lazax/ir/builder.h"

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

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace lazax
