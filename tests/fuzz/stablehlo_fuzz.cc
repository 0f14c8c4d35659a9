// libFuzzer target for the StableHLO parser and importer: any input must either import or throw a
// lazax::Error (never crash, hang, trip a sanitizer or allocate without bound: constants are
// capped at kMaxConstantElements before anything is allocated), and whatever imports must export
// (or be refused by a "[stablehlo export]" error) and import back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lazax/core/error.h"
#include "lazax/stablehlo/export.h"
#include "lazax/stablehlo/stablehlo.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "stablehlo_fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lazax::FunctionPtr f;
  try {
    f = lazax::stablehlo::import_stablehlo(text);
  } catch (const lazax::Error&) {
    return 0;
  }
  std::string exported;
  try {
    exported = lazax::stablehlo::export_stablehlo(*f);
  } catch (const lazax::Error& e) {
    if (std::string_view(e.what()).rfind("[stablehlo export]", 0) != 0)
      die("export failed without its own error", e.what());
    return 0;
  }
  try {
    lazax::FunctionPtr g = lazax::stablehlo::import_stablehlo(exported);
    if (g->result_types() != f->result_types()) die("the result types changed", exported);
  } catch (const lazax::Error& e) {
    die("the exported text does not import", std::string(e.what()) + "\n" + exported);
  }
  return 0;
}
