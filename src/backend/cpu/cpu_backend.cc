// The "cpu" backend: compiles a Function into a Program (program.cc) and runs it.
#include "cpu_backend.h"

#include "kernels.h"
#include "lazax/ir/builder.h"

namespace lazax {
namespace {

class CpuExecutable : public Executable {
 public:
  explicit CpuExecutable(cpu::ProgramPtr p) : p_(std::move(p)) {}
  std::vector<Literal> run(std::span<const Literal* const> args) override { return p_->run(args); }
  const Function& function() const override { return p_->function(); }
  PlanStats plan_stats() const override { return p_->stats(); }

 private:
  cpu::ProgramPtr p_;
};

class CpuBackend : public Backend {
 public:
  CpuBackend() { cpu::init_threads(); }
  std::string name() const override { return "cpu"; }
  std::unique_ptr<Executable> compile(FunctionPtr f) override {
    verify(*f);
    return std::make_unique<CpuExecutable>(cpu::compile_program(f));
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace lazax
