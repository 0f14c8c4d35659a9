// The pass pipeline: the enabled passes in a fixed order, repeated to a fixed point (bounded),
// with the program written after each pass that changed it when a dump directory is set.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/ir/builder.h"
#include "lazax/ir/printer.h"
#include "lazax/passes/passes.h"

namespace lazax::passes {
namespace {

std::mutex g_dump_dir_mu;
std::string g_dump_dir;  // set_default_dump_dir's

std::string default_dump_dir() {
  std::lock_guard<std::mutex> lock(g_dump_dir_mu);
  return g_dump_dir;
}

struct Pass {
  const char* name;
  std::function<FunctionPtr(const FunctionPtr&)> run;
};

std::vector<Pass> pass_list(const PassOptions& o) {
  std::vector<Pass> passes;
  if (o.inline_calls && !o.keep_calls_outlined)
    passes.push_back({"inline_calls", [](const FunctionPtr& f) { return inline_calls(f); }});
  if (o.simplify) passes.push_back({"simplify", simplify});
  if (o.fold_constants) {
    int64_t max = o.fold_max_elements;
    passes.push_back(
        {"fold_constants", [max](const FunctionPtr& f) { return fold_constants(f, max); }});
  }
  if (o.cse) passes.push_back({"cse", cse});
  if (o.dce) passes.push_back({"dce", dce});
  return passes;
}

class Dumper {
 public:
  Dumper(const PassOptions& o, const Function& input) {
    dir_ = o.dump_dir ? *o.dump_dir : default_dump_dir();
    if (dir_.empty()) return;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(input.hash()));
    prefix_ = dir_ + "/" + hex + "_";
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      throw IOError("[passes] cannot create the dump directory '" + dir_ + "' (LAZAX_DUMP_DIR): " +
                    ec.message() + "; set it to a writable directory or unset it");
    }
    write("input", input);
  }
  void write(const char* pass, const Function& f) {
    if (dir_.empty()) return;
    char index[8];
    std::snprintf(index, sizeof index, "%02d", count_++);
    std::string path = prefix_ + index + "_" + pass + ".lzir";
    std::ofstream out(path);
    out << print_program(f);
    if (!out) {
      throw IOError("[passes] cannot write '" + path +
                    "' (LAZAX_DUMP_DIR); check the directory is writable");
    }
  }

 private:
  std::string dir_, prefix_;
  int count_ = 0;
};

}  // namespace

void set_default_dump_dir(std::string dir) {
  std::lock_guard<std::mutex> lock(g_dump_dir_mu);
  g_dump_dir = std::move(dir);
}

FunctionPtr optimize(FunctionPtr f, const PassOptions& options) {
  if (!f) throw ValueError("[passes] optimize got a null function");
  Dumper dump(options, *f);
  std::vector<Pass> passes = pass_list(options);
  for (int round = 0; round < options.max_iterations; ++round) {
    bool changed = false;
    for (const Pass& p : passes) {
      FunctionPtr g = p.run(f);
      if (g == f || g->hash() == f->hash()) continue;
      f = std::move(g);
      changed = true;
      dump.write(p.name, *f);
    }
    if (!changed) break;
  }
  if (options.verify) verify(*f);
  return f;
}

}  // namespace lazax::passes
