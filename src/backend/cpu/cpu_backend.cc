// The "cpu" backend: compiles a Function into a Program (program.cc) and runs it.
#include "cpu_backend.h"

#include "kernels.h"
#include "lazax/ir/builder.h"
#include "lazax/passes/passes.h"

namespace lazax {
namespace {

class CpuExecutable : public Executable {
 public:
  CpuExecutable(cpu::ProgramPtr p, FunctionPtr f) : p_(std::move(p)), f_(std::move(f)) {}
  std::vector<Literal> run(std::span<const Literal* const> args) override { return p_->run(args); }
  // The program as given (callers map results by it), not the optimized one.
  const Function& function() const override { return *f_; }
  PlanStats plan_stats() const override { return p_->stats(); }

 private:
  cpu::ProgramPtr p_;
  FunctionPtr f_;
};

class CpuBackend : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::unique_ptr<Executable> compile(FunctionPtr f) override {
    verify(*f);
    passes::PassOptions o;
    o.verify = false;  // the passes keep a verified program verified (tests/passes check it)
    return std::make_unique<CpuExecutable>(cpu::compile_program(passes::optimize(f, o)), f);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace lazax
