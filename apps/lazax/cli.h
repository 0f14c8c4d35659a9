// Shared pieces of the lazax tool's subcommands: usage errors and the `run` code path, which
// `lazax demo` reuses.
#pragma once
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "lazax/backend/backend.h"
#include "lazax/ir/function.h"
#include "lazax/ir/literal.h"

namespace lazax::cli {

// A malformed command line: main prints the message and the usage and exits with code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What `lazax run` does, as data.
struct RunRequest {
  std::string program_path;
  std::vector<std::string> input_paths;
  std::string out_dir;
  std::string backend = default_backend_name();
  bool grad = false;  // also write DIR/grad<i>.npy (program_gradients)
  // With tangents (one .npy per parameter, of its type): also write DIR/tangent<i>.npy
  // (program_jvp).
  std::vector<std::string> tangent_paths;
};

// Parses the program, reads and checks the inputs against @main's parameters, runs the backend
// and writes out_dir/out0.npy, out1.npy, ...; returns the outputs. Throws lazax::Error.
std::vector<Literal> run_program(const RunRequest& request);

// `--grad`: the gradient of @main's result 0 (a floating scalar) with respect to each parameter,
// by the autodiff rules (run_grad.cc); zeros for parameters it does not depend on and for
// integer and bool parameters.
std::vector<Literal> program_gradients(const Function& f, const std::vector<Literal>& inputs);

// `--jvp`: the forward-mode derivative of every result of @main at `inputs` along `tangents`
// (one per parameter, of its type), by the JVP rules (run_grad.cc); integer and bool parameters
// have no tangent (theirs are ignored), and a result that is not floating or depends on no
// floating parameter gets zeros.
std::vector<Literal> program_jvp(const Function& f, const std::vector<Literal>& inputs,
                                 const std::vector<Literal>& tangents);

// Names of the backends `--backend` accepts, comma-separated.
std::string backend_list();

// The subcommands: each gets the arguments after its name and returns the exit code.
int run_command(std::span<const std::string> args);
int demo_command(std::span<const std::string> args);
// The decoder training part of the demo (decoder_demo.cc).
void decoder_demo();
int bench_command(std::span<const std::string> args);

extern const char* const kRunUsage;
extern const char* const kDemoUsage;
extern const char* const kBenchUsage;

}  // namespace lazax::cli
