// The byte-level text corpus `lazax train` learns from: a file's bytes, or by default the English
// text of Debian's `fortunes` packages with their `%` separator lines removed; split 95/5 into
// training and validation text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lazax::train {

// Where Debian's fortunes packages put their text files.
inline constexpr const char* kFortunesDir = "/usr/share/games/fortunes";

struct Corpus {
  std::string source;  // the file or directory read, for messages
  std::string train;   // the first 95 %
  std::string valid;   // the last 5 %
};

// The text of the fortune files in `dir` (each plain file that has a matching `.dat` index;
// sorted by name): a line holding only `%` separates two fortunes and becomes a blank line.
// Throws IOError naming the directory when it holds no fortune file ("install the `fortunes`
// package").
std::string read_fortunes(const std::string& dir = kFortunesDir);

// Fortune-file text with its separator lines ("%" alone on a line) turned into blank lines.
std::string strip_fortune_separators(const std::string& text);

// Splits `text` 95/5 (the validation part at least one window of `window` bytes); throws
// ValueError naming `source` when the text is too short for two windows.
Corpus split_corpus(std::string text, const std::string& source, int64_t window);

// `path` empty: the fortunes; otherwise the file's bytes. Missing, unreadable, empty or too short
// (for sequences of `seq` tokens plus the target) is an IOError or ValueError naming the path.
Corpus load_corpus(const std::string& path, int64_t seq);

// The entropy in nats of the byte (unigram) distribution of `text`: the loss of a model that
// knows only how often each byte occurs; a trained model should be well below it.
double unigram_entropy(const std::string& text);

}  // namespace lazax::train
