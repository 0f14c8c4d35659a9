// usage: safetensors_tool copy IN OUT
// Reads IN with lazax's safetensors reader and writes what it read to OUT with lazax's writer
// (tests/io/safetensors_python.py checks both against an independent Python implementation).
// A lazax::Error prints its message and exits 2; bad usage exits 64.
#include <cstdio>
#include <string>

#include "lazax/core/error.h"
#include "lazax/io/safetensors.h"

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[1]) != "copy") {
    std::fprintf(stderr, "usage: safetensors_tool copy IN OUT\n");
    return 64;
  }
  try {
    lazax::write_safetensors(argv[3], lazax::read_safetensors(argv[2]));
  } catch (const lazax::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
