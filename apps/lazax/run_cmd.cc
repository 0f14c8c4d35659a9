// `lazax run PROGRAM.lzir --inputs a.npy,b.npy --out DIR [--backend cpu|reference]`
#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "lazax/backend/backend.h"
#include "lazax/io/npy.h"
#include "lazax/ir/printer.h"

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

std::string read_text_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw IOError("[run] " + path + ": is a directory, not a program");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("[run] cannot open the program " + path + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw IOError("[run] cannot read the program " + path);
  return s.str();
}

// The Function API keeps no parameter names, so take them from the signature in the text:
// `func @main(%x: f32[2,3], %w: ...)`. Falls back to "#i" when the text is unusual.
std::vector<std::string> param_names(const std::string& text, const Function& f) {
  std::vector<std::string> names;
  size_t at = text.find("func @" + f.name() + "(");
  if (at != std::string::npos) {
    at = text.find('(', at);
    int depth = 0;
    for (size_t i = at; i < text.size(); ++i) {
      char c = text[i];
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') {
        if (--depth == 0) break;
      }
      if (c == '%' && depth == 1) {
        size_t j = i + 1;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) ||
                                   text[j] == '_' || text[j] == '.'))
          ++j;
        names.push_back(text.substr(i, j - i));
        i = j - 1;
      }
    }
  }
  if (static_cast<int>(names.size()) != f.num_params()) {
    names.clear();
    for (int i = 0; i < f.num_params(); ++i) names.push_back("#" + std::to_string(i));
  }
  return names;
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

std::vector<Literal> run_program(const RunRequest& req) {
  namespace fs = std::filesystem;
  check_backend(req.backend);
  const std::string text = read_text_file(req.program_path);
  FunctionPtr f;
  try {
    f = parse_program(text);
  } catch (const Error& e) {
    throw Error("[run] " + req.program_path + ": " + e.what());
  }
  const std::vector<std::string> names = param_names(text, *f);
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
  std::vector<Literal> inputs = read_args(*f, names, req.input_paths, "input");
  std::vector<Literal> tangents;
  if (jvp) tangents = read_args(*f, names, req.tangent_paths, "tangent");
  std::vector<Literal> outputs = make_backend(req.backend)->compile(f)->run(inputs);

  std::error_code ec;
  fs::create_directories(req.out_dir, ec);
  if (ec || !fs::is_directory(req.out_dir))
    throw IOError("[run] cannot create the output directory " + req.out_dir +
                  (ec ? ": " + ec.message() : ": a file of that name exists"));
  for (size_t i = 0; i < outputs.size(); ++i)
    write_npy((fs::path(req.out_dir) / ("out" + std::to_string(i) + ".npy")).string(), outputs[i]);
  if (req.grad) {
    std::vector<Literal> grads = program_gradients(*f, inputs);
    for (size_t i = 0; i < grads.size(); ++i)
      write_npy((fs::path(req.out_dir) / ("grad" + std::to_string(i) + ".npy")).string(), grads[i]);
  }
  if (jvp) {
    std::vector<Literal> tans = program_jvp(*f, inputs, tangents);
    for (size_t i = 0; i < tans.size(); ++i)
      write_npy((fs::path(req.out_dir) / ("tangent" + std::to_string(i) + ".npy")).string(),
                tans[i]);
  }
  return outputs;
}

void add_run_command(CLI::App& app) {
  auto req = std::make_shared<RunRequest>();
  CLI::App* sub =
      app.add_subcommand("run", "Run a program (.lzir) on .npy inputs, writing .npy outputs");
  sub->footer(
      "Runs @main of PROGRAM (the text form of docs/IR.md) on the .npy inputs, one per\n"
      "parameter in order, and writes its results to DIR/out0.npy, DIR/out1.npy, ...");
  sub->add_option("PROGRAM", req->program_path, "the program (.lzir)")->required();
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
  sub->callback([req, inputs, tangents, jvp] {
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
