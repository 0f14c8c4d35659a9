// `lazax export PROGRAM.lzir --out FILE.mlir [--pretty] [--vjp]`: a lazax program, or its VJP,
// as StableHLO text (docs/STABLEHLO.md, "Export"), for XLA, IREE or JAX.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "cli.h"
#include "lazax/io/file.h"
#include "lazax/ir/printer.h"
#include "lazax/stablehlo/export.h"
#include "lazax/stablehlo/load.h"

namespace lazax::cli {

namespace {

struct ExportRequest {
  std::string program_path, out_path;
  bool pretty = false;
  bool vjp = false;
};

void export_program(const ExportRequest& req) {
  const std::vector<uint8_t> bytes =
      read_regular_file(req.program_path, "export", uint64_t{1} << 30);
  FunctionPtr f;
  try {
    f = parse_program(std::string(bytes.begin(), bytes.end()));
  } catch (const Error& e) {
    throw Error("[export] " + req.program_path + ": " + e.what());
  }
  if (req.vjp) {
    try {
      f = stablehlo::vjp_program(f);
    } catch (const Error& e) {
      throw Error("[export] --vjp of " + req.program_path + ": " + e.what());
    }
  }
  // Everything is converted before the file is opened: a program that cannot be exported
  // leaves no partial file.
  std::string text = stablehlo::export_stablehlo(
      *f, req.pretty ? stablehlo::Form::pretty : stablehlo::Form::generic);
  std::string tmp = req.out_path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush()) {
      throw IOError("[export] cannot write " + tmp +
                    ": check the directory exists and is writable");
    }
  }
  if (std::rename(tmp.c_str(), req.out_path.c_str()) != 0)
    throw IOError("[export] cannot rename " + tmp + " to " + req.out_path);
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto req = std::make_shared<ExportRequest>();
  CLI::App* sub = app.add_subcommand("export", "Write a program (.lzir) as StableHLO (.mlir)");
  sub->footer(
      "Writes @main of PROGRAM and the functions it calls as a StableHLO module. The generic\n"
      "form (default) parses with `mlir-opt --allow-unregistered-dialect`; --pretty writes\n"
      "the short forms JAX prints where an op has one. A primitive without a StableHLO\n"
      "counterpart (docs/STABLEHLO.md) fails the export, naming it; nothing is written then.\n"
      "--vjp writes the program's reverse mode instead: @main takes PROGRAM's inputs, then one\n"
      "cotangent per floating result, and returns the cotangent of each floating input.");
  sub->add_option("PROGRAM", req->program_path, "the program (.lzir)")->required();
  sub->add_option("--out", req->out_path, "the StableHLO file to write (.mlir)")->required();
  sub->add_flag("--pretty", req->pretty, "the pretty form instead of the generic one");
  sub->add_flag("--vjp", req->vjp, "export the program's VJP (inputs ++ cotangents -> gradients)");
  sub->callback([req] {
    export_program(*req);
    std::printf("wrote %s\n", req->out_path.c_str());
  });
}

}  // namespace lazax::cli
