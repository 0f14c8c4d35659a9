// Whole-file reading and atomic writing, shared by the file formats of the io layer (.npy,
// safetensors). Errors are lazax::IOError starting with "[component] path: ".
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lazax {

// The bytes of the regular file at `path`. Refuses what is not a regular file (a directory,
// /dev/zero, a pipe): such a "file" has no size and may never end. `component` starts the
// messages ("npy" gives "[npy] path: ..."); `max_bytes` bounds the size read.
std::vector<uint8_t> read_regular_file(const std::string& path, const char* component,
                                       uint64_t max_bytes = UINT64_MAX);

// Replaces the file at `path` by `bytes` atomically: a temporary file in the same directory is
// written, fsynced and renamed over `path`, then the directory is fsynced. Readers see the old
// file or the new one, never part of one; on any failure the temporary file is removed, the old
// file is untouched and an IOError names `path` and what failed.
void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes,
                           const char* component = "io");

// `bytes` made safe to print in an error message: printable ASCII and well-formed UTF-8 of
// printable characters stay as they are; control characters, DEL, C1 controls and every byte of
// an ill-formed UTF-8 sequence become "\xNN" (a backslash becomes "\\", so the escaping reads
// back unambiguously). A hostile file cannot so write raw bytes or terminal escapes to the user.
std::string escape_for_message(std::string_view bytes);

}  // namespace lazax
