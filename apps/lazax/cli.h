// Shared pieces of the lazax tool's subcommands: usage errors, the registration of each
// subcommand on the CLI11 command line (main.cc), and the `run` code path, which `lazax demo`
// reuses.
#pragma once
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "lazax/backend/backend.h"
#include "lazax/ir/function.h"
#include "lazax/ir/literal.h"
#include "lazax/runtime/context.h"

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace lazax::cli {

// A malformed command line that CLI11's validators cannot see (a flag's value that needs
// context): main prints the message and the subcommand's help and exits with code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What `lazax run` does, as data.
struct RunRequest {
  std::string program_path;
  std::vector<std::string> input_paths;
  std::string out_dir;
  std::string backend = Context::get().options().backend;
  bool grad = false;  // also write DIR/grad<i>.npy (program_gradients)
  // With tangents (one .npy per parameter, of its type): also write DIR/tangent<i>.npy
  // (program_jvp).
  std::vector<std::string> tangent_paths;
  bool stablehlo = false;  // the program is StableHLO text (`--stablehlo FILE.mlir`)
};

// Parses the program, reads and checks the inputs against @main's parameters, runs the backend
// and writes out_dir/out0.npy, out1.npy, ...; returns the outputs. Throws lazax::Error.
std::vector<Literal> run_program(const RunRequest& request);

// `--grad`: the gradient of @main's result 0 (a floating scalar) with respect to each parameter,
// by the autodiff rules (run_grad.cc); zeros for parameters it does not depend on and for
// integer and bool parameters.
std::vector<Literal> program_gradients(const Function& f, const std::vector<Literal>& inputs);
// Throws the ValueError `--grad` would when result 0 of `f` is not a floating scalar: the
// check from the signature alone, made before anything runs.
void check_gradient_signature(const Function& f);

// `--jvp`: the forward-mode derivative of every result of @main at `inputs` along `tangents`
// (one per parameter, of its type), by the JVP rules (run_grad.cc); integer and bool parameters
// have no tangent (theirs are ignored), and a result that is not floating or depends on no
// floating parameter gets zeros.
std::vector<Literal> program_jvp(const Function& f, const std::vector<Literal>& inputs,
                                 const std::vector<Literal>& tangents);

// Names of the backends `--backend` accepts, comma-separated.
std::string backend_list();
// The `--backend` validator: "unknown backend 'x'; available backends: ...".
CLI::Validator backend_validator();

// This executable's commands and arguments. Two executables share main.cc: `lazax` (its
// commands in tool_commands.cc) and `lazax-bench` (bench_tool.cc), the benchmarks, which `lazax
// bench ...` runs, so that `lazax run` and `lazax train` do not carry the benchmarks' code.
void add_commands(CLI::App& app);
// The arguments main parses ("lazax", then the command's). `lazax bench ...` replaces the process
// with `lazax-bench ...` here and does not return (or throws IOError if it cannot);
// `lazax-bench NAME ...` parses as `lazax bench NAME ...`.
std::vector<std::string> command_args(int argc, char** argv);
// The path of the executable `name` ("lazax", "lazax-bench") beside this one: both are built
// into one directory and installed into one.
std::string sibling_tool(const std::string& name);

// The subcommands: each registers itself, its flags and validators on `app` (CLI11); its
// callback does the work and throws lazax::Error or UsageError on failure.
void add_run_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_sample_command(CLI::App& app);
void add_export_command(CLI::App& app);
struct TrainOptions;
// The flags `bench train` and `bench dist` share: --model and the preset overrides (--dim,
// --layers, --heads, --hidden, --batch, --seq), --steps and --warmup (bench_model_flags.cc).
void add_bench_model_options(CLI::App& sub, TrainOptions& train, int64_t& warmup,
                             const char* batch_help);
// `lazax bench train` (bench_train.cc), under `bench`.
void add_bench_train(CLI::App& bench);
// `lazax bench dist` (bench_dist.cc): data parallel against PyTorch DDP.
void add_bench_dist(CLI::App& bench);
// The decoder training part of `lazax demo --example`: a small nn::Llama (decoder_demo.cc).
void decoder_demo();

}  // namespace lazax::cli
