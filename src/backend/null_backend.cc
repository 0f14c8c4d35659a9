// The "null" backend, for measuring host cost only: compile() does no verification or lowering
// and run() computes nothing. Each result is a zero-filled Literal of the program's result type,
// allocated once at compile time and shared by every run (buffers are never written in place), so
// a run costs a handful of handle copies. `lazax bench assume-pure` uses it to time tracing,
// dispatch and sync without the reference interpreter's execution. Its numbers are meaningless.
#include "null_backend.h"

namespace lazax {
namespace {

class NullExecutable : public Executable {
 public:
  explicit NullExecutable(FunctionPtr f) : f_(std::move(f)) {
    for (const TensorType& t : f_->result_types()) results_.push_back(Literal::zeros(t));
  }
  std::vector<Literal> run(std::span<const Literal* const>) override { return results_; }
  const Function& function() const override { return *f_; }

 private:
  FunctionPtr f_;
  std::vector<Literal> results_;
};

class NullBackend : public Backend {
 public:
  std::string name() const override { return "null"; }
  std::unique_ptr<Executable> compile(FunctionPtr f) override {
    return std::make_unique<NullExecutable>(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Backend> make_null_backend() { return std::make_unique<NullBackend>(); }

}  // namespace lazax
