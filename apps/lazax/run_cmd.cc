// `lazax run PROGRAM.lzir --inputs a.npy,b.npy --out DIR [--backend cpu|reference]`
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string_view>
#include <utility>

#include "cli.h"
#include "lazax/backend/backend.h"
#include "lazax/io/file.h"
#include "lazax/io/npy.h"
#include "lazax/ir/printer.h"
#include "lazax/stablehlo/stablehlo.h"

namespace lazax::cli {

namespace {

// `--backend` takes any backend of the backend layer (backend_names()).
std::string backend_problem(const std::string& name) {
  for (const std::string& b : backend_names())
    if (name == b) return "";
  return "unknown backend '" + name + "'; available backends: " + backend_list();
}

void check_backend(const std::string& name) {
  std::string problem = backend_problem(name);
  if (!problem.empty()) throw UsageError(problem);
}

// A program larger than this is refused unread (the largest real ones are a few MiB).
constexpr uint64_t kMaxProgramBytes = uint64_t{1} << 30;

std::string read_program_text(const std::string& path) {
  // A regular file only: /dev/zero or a pipe would be read forever.
  const std::vector<uint8_t> bytes = read_regular_file(path, "run", kMaxProgramBytes);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<std::string> split_commas(const std::string& s, const char* flag) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma - start));
    if (out.back().empty())
      throw UsageError(std::string("empty file name in ") + flag + " '" + s + "'");
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// The .npy files of `paths`, one per parameter of f, each checked against its parameter's type.
std::vector<Literal> read_args(const Function& f, const std::vector<std::string>& names,
                               const std::vector<std::string>& paths, const char* what) {
  std::vector<Literal> values;
  for (int i = 0; i < f.num_params(); ++i) {
    const std::string& path = paths[static_cast<size_t>(i)];
    Literal v = read_npy(path);
    const TensorType want = f.param_type(i);
    if (v.type != want) {
      std::string msg = std::string("[run] ") + what + " " + std::to_string(i) + " (" +
                        names[static_cast<size_t>(i)] + ") should be " + want.str() + ", got " +
                        v.type.str() + " from " + path;
      if (v.dtype() != want.dtype) throw DTypeError(msg);
      throw ShapeError(msg);
    }
    values.push_back(std::move(v));
  }
  return values;
}

}  // namespace

CLI::Validator backend_validator() { return {backend_problem, "BACKEND", "backend"}; }

std::string backend_list() {
  std::string s;
  for (const std::string& b : backend_names()) s += (s.empty() ? "" : ", ") + b;
  return s;
}

namespace {

// What the signature decides is checked before anything runs, so that a run fails before it
// writes: .npy holds no bf16 (results and their tangents), and --grad needs a floating scalar.
void check_signature(const Function& f, const RunRequest& req) {
  const std::vector<TensorType>& results = f.result_types();
  for (size_t i = 0; i < results.size(); ++i) {
    if (npy_supports(results[i].dtype)) continue;
    throw DTypeError("[run] result " + std::to_string(i) + " of @" + f.name() + " is " +
                     results[i].str() + ", which a .npy file cannot hold: NumPy has no " +
                     std::string(dtype_name(results[i].dtype)) +
                     " dtype; convert it in the program first (convert {dtype=f32})");
  }
  if (req.grad) check_gradient_signature(f);
}

bool is_run_output(const std::string& name) {
  for (const char* stem : {"out", "grad", "tangent"}) {
    const std::string_view s(stem);
    if (name.size() <= s.size() + 4 || name.compare(0, s.size(), s) != 0 ||
        name.compare(name.size() - 4, 4, ".npy") != 0)
      continue;
    const std::string digits = name.substr(s.size(), name.size() - s.size() - 4);
    if (std::all_of(digits.begin(), digits.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return true;
  }
  return false;
}

// Writes every file of `files` (name, value) into `dir`, each atomically, then removes the
// outN/gradN/tangentN.npy files of an earlier run that this one did not write. When a write
// fails, the files this run already wrote are removed again, so none of them looks current.
void write_outputs(const std::string& dir,
                   const std::vector<std::pair<std::string, const Literal*>>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw IOError("[run] cannot create the output directory " + dir +
                  (ec ? ": " + ec.message() : ": a file of that name exists"));
  std::set<std::string> written;
  for (const auto& [name, value] : files) {
    try {
      write_npy((fs::path(dir) / name).string(), *value);
    } catch (...) {
      for (const std::string& w : written) fs::remove(fs::path(dir) / w, ec);
      throw;
    }
    written.insert(name);
  }
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (is_run_output(name) && !written.count(name)) fs::remove(e.path(), ec);
  }
}

}  // namespace

std::vector<Literal> run_program(const RunRequest& req) {
  check_backend(req.backend);
  const std::string text = read_program_text(req.program_path);
  FunctionPtr f;
  std::vector<std::string> names;
  try {
    if (req.stablehlo) {
      f = stablehlo::import_stablehlo(text);
      for (int i = 0; i < f->num_params(); ++i) names.push_back("%arg" + std::to_string(i));
    } else {
      f = parse_program(text, &names);
    }
  } catch (const Error& e) {
    throw Error("[run] " + req.program_path + ": " + e.what());
  }
  const int n = f->num_params();
  if (static_cast<int>(req.input_paths.size()) != n) {
    std::string sig;
    for (int i = 0; i < n; ++i)
      sig += (i ? ", " : "") + names[static_cast<size_t>(i)] + ": " + f->param_type(i).str();
    throw ValueError("[run] @" + f->name() + " of " + req.program_path + " takes " +
                     std::to_string(n) + " input" + (n == 1 ? "" : "s") + " (" + sig + "), got " +
                     std::to_string(req.input_paths.size()) +
                     "; pass one .npy file per parameter "
                     "with --inputs a.npy,b.npy");
  }
  const bool jvp = !req.tangent_paths.empty();
  if (jvp && static_cast<int>(req.tangent_paths.size()) != n)
    throw ValueError("[run] --jvp needs one tangent per parameter of @" + f->name() + " (" +
                     std::to_string(n) + "), got " + std::to_string(req.tangent_paths.size()));
  check_signature(*f, req);
  std::vector<Literal> inputs = read_args(*f, names, req.input_paths, "input");
  std::vector<Literal> tangents;
  if (jvp) tangents = read_args(*f, names, req.tangent_paths, "tangent");

  // Everything is computed before anything is written.
  std::vector<Literal> outputs = make_backend(req.backend)->compile(f)->run(inputs);
  std::vector<Literal> grads, tans;
  if (req.grad) grads = program_gradients(*f, inputs);
  if (jvp) tans = program_jvp(*f, inputs, tangents);
  std::vector<std::pair<std::string, const Literal*>> files;
  auto add = [&files](const char* stem, const std::vector<Literal>& values) {
    for (size_t i = 0; i < values.size(); ++i)
      files.emplace_back(stem + std::to_string(i) + ".npy", &values[i]);
  };
  add("out", outputs);
  add("grad", grads);
  add("tangent", tans);
  write_outputs(req.out_dir, files);
  return outputs;
}

void add_run_command(CLI::App& app) {
  auto req = std::make_shared<RunRequest>();
  CLI::App* sub = app.add_subcommand(
      "run",
      "Run a program (.lzir, or StableHLO with --stablehlo) on .npy inputs, writing .npy outputs");
  sub->footer(
      "Runs @main of PROGRAM (the text form of docs/IR.md) on the .npy inputs, one per\n"
      "parameter in order, and writes its results to DIR/out0.npy, DIR/out1.npy, ...\n"
      "Files are written only once every result (and gradient and tangent asked for) is\n"
      "computed, each atomically; the run then removes the outN.npy, gradN.npy and\n"
      "tangentN.npy files in DIR that it did not write (of an earlier run), so every such\n"
      "file there is of this run. A run that fails before writing leaves DIR as it was.");
  CLI::Option* program = sub->add_option("PROGRAM", req->program_path, "the program (.lzir)");
  auto mlir = std::make_shared<std::string>();
  CLI::Option* shlo = sub->add_option(
      "--stablehlo", *mlir,
      "FILE.mlir: run this StableHLO program (the text JAX prints, docs/STABLEHLO.md)\n"
      "instead of a .lzir PROGRAM; its @main takes the inputs");
  program->excludes(shlo);
  auto inputs = std::make_shared<std::string>();
  auto tangents = std::make_shared<std::string>();
  sub->add_option("--inputs", *inputs, "A.npy,B.npy,...: one .npy file per parameter");
  sub->add_option("--out", req->out_dir, "the output directory (created if missing)")
      ->required()
      ->check([](const std::string& v) { return v.empty() ? "needs a directory" : ""; });
  sub->add_option("--backend", req->backend,
                  "the backend (default: $LAZAX_BACKEND, else cpu; reference is the oracle)")
      ->check(backend_validator());
  sub->add_flag("--grad", req->grad,
                "also write DIR/grad0.npy, ...: the gradient of result 0 (a floating scalar)\n"
                "with respect to each parameter (zeros where it does not depend on it, and\n"
                "for integer parameters), by lazax's autodiff rules");
  CLI::Option* jvp = sub->add_option(
      "--jvp", *tangents,
      "T0.npy,T1.npy,...: also write DIR/tangent0.npy, ...: the forward-mode derivative\n"
      "of each result along these tangents (one per parameter, of its type; those of\n"
      "integer parameters are ignored), by lazax's JVP rules");
  sub->callback([req, inputs, tangents, jvp, program, shlo, mlir] {
    if (program->count() == 0 && shlo->count() == 0)
      throw UsageError("PROGRAM is required (a .lzir), or --stablehlo FILE.mlir");
    if (shlo->count() > 0) {
      req->program_path = *mlir;
      req->stablehlo = true;
    }
    req->input_paths = split_commas(*inputs, "--inputs");
    req->tangent_paths = split_commas(*tangents, "--jvp");
    if (jvp->count() > 0 && req->tangent_paths.empty())
      throw UsageError("--jvp needs the tangent files");
    std::vector<Literal> outputs = run_program(*req);
    for (size_t i = 0; i < outputs.size(); ++i)
      std::printf("out%zu.npy: %s\n", i, outputs[i].type.str().c_str());
  });
}

}  // namespace lazax::cli
