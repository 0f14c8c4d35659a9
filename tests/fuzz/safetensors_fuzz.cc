// libFuzzer target for the safetensors reader: any input must either parse or throw a
// lazax::IOError (never crash, hang, read out of bounds or trip a sanitizer), and whatever parses
// must round-trip exactly through the writer: parse(encode(f)) holds the same names, metadata and
// bits, and encode is then a fixed point.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "lazax/core/error.h"
#include "lazax/io/safetensors.h"

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "safetensors_fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lazax::SafetensorsFile f;
  try {
    f = lazax::parse_safetensors(std::span<const uint8_t>(data, size), "fuzz");
  } catch (const lazax::IOError&) {
    return 0;
  }
  std::vector<uint8_t> bytes;
  try {
    bytes = lazax::encode_safetensors(f);
  } catch (const lazax::ValueError& e) {
    // A file may hold names the writer refuses (an empty one); nothing else.
    for (const auto& [name, lit] : f.tensors)
      if (name.empty()) return 0;
    die("a parsed file cannot be written", e.what());
  }
  lazax::SafetensorsFile g;
  try {
    g = lazax::parse_safetensors(bytes, "round trip");
  } catch (const lazax::Error& e) {
    die("the written file does not parse", e.what());
  }
  if (g.metadata != f.metadata) die("the metadata changed in the round trip", "");
  if (g.tensors.size() != f.tensors.size()) die("the tensor count changed", "");
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    if (g.tensors[i].first != f.tensors[i].first) die("a name changed", f.tensors[i].first);
    if (!g.tensors[i].second.bit_equal(f.tensors[i].second))
      die("a tensor changed", f.tensors[i].first);
  }
  if (lazax::encode_safetensors(g) != bytes) die("encode(parse(encode(f))) != encode(f)", "");
  return 0;
}
