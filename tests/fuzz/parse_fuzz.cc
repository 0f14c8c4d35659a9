// libFuzzer target for the IR text parser: any input must either parse or throw a lazax::Error
// (never crash, hang or trip a sanitizer), and whatever parses must round-trip exactly through
// the printer: print(parse(print(f))) == print(f) with the same structural hash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lazax/core/error.h"
#include "lazax/ir/builder.h"
#include "lazax/ir/printer.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parse_fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lazax::FunctionPtr f;
  try {
    f = lazax::parse_program(text);
  } catch (const lazax::Error&) {
    return 0;
  }
  try {
    lazax::verify(*f);
  } catch (const lazax::Error& e) {
    die("a parsed program fails verification", e.what());
  }
  std::string printed = lazax::print_program(*f);
  lazax::FunctionPtr g;
  try {
    g = lazax::parse_program(printed);
  } catch (const lazax::Error& e) {
    die("the printed program does not parse", std::string(e.what()) + "\n" + printed);
  }
  if (g->hash() != f->hash()) die("the hash changed in the round trip", printed);
  if (lazax::print_program(*g) != printed) die("print(parse(print(f))) != print(f)", printed);
  std::string dot = lazax::to_dot(*f);
  if (dot.empty()) die("empty DOT output", printed);
  return 0;
}
