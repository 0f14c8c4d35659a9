#include "corpus.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lazax/core/error.h"

namespace lazax::train {
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw IOError("[train] the corpus " + path +
                  " does not exist; pass --corpus FILE (a text "
                  "file) or install Debian's `fortunes` package for the default corpus");
  }
  if (fs::is_directory(path, ec))
    throw IOError("[train] the corpus " + path + " is a directory; pass a text file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("[train] cannot open the corpus " + path);
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw IOError("[train] cannot read the corpus " + path);
  return s.str();
}

}  // namespace

std::string strip_fortune_separators(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + at, end - at);
    if (line == "%") {
      out += '\n';  // the separator becomes a blank line between two fortunes
    } else {
      out.append(line);
      if (end < text.size()) out += '\n';
    }
    at = end + 1;
  }
  return out;
}

std::string read_fortunes(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(dir, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      const fs::path& p = e.path();
      if (!e.is_regular_file() || p.has_extension()) continue;
      fs::path dat = p;
      dat += ".dat";
      if (fs::exists(dat, ec)) files.push_back(p);
    }
  }
  if (files.empty()) {
    throw IOError("[train] no fortune files in " + dir +
                  ": install Debian's `fortunes` package (./lazax.sh demo does) or pass "
                  "--corpus FILE");
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const fs::path& p : files) {
    text += strip_fortune_separators(read_file(p.string()));
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += '\n';
  }
  return text;
}

Corpus split_corpus(std::string text, const std::string& source, int64_t window) {
  const auto n = static_cast<int64_t>(text.size());
  if (n == 0) throw ValueError("[train] the corpus " + source + " is empty");
  const int64_t valid = std::max(n / 20, window);
  if (n - valid < window) {
    throw ValueError("[train] the corpus " + source + " has " + std::to_string(n) +
                     " bytes, too few for a training and a validation sequence of " +
                     std::to_string(window) + " bytes; pass a longer text or a smaller --seq");
  }
  Corpus c;
  c.source = source;
  c.valid = text.substr(static_cast<size_t>(n - valid));
  text.resize(static_cast<size_t>(n - valid));
  c.train = std::move(text);
  return c;
}

Corpus load_corpus(const std::string& path, int64_t seq) {
  if (path.empty()) return split_corpus(read_fortunes(), kFortunesDir, seq + 1);
  return split_corpus(read_file(path), path, seq + 1);
}

double unigram_entropy(const std::string& text) {
  std::array<int64_t, 256> counts{};
  for (char c : text) ++counts[static_cast<unsigned char>(c)];
  double h = 0;
  const auto n = static_cast<double>(text.size());
  for (int64_t k : counts) {
    if (k == 0) continue;
    double p = static_cast<double>(k) / n;
    h -= p * std::log(p);
  }
  return h;
}

}  // namespace lazax::train
