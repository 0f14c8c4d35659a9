// The model-free pieces of `lazax train`: corpus loading and splitting, batches, the progress
// line, the JSON log and the loss-curve picture.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "batches.h"
#include "corpus.h"
#include "lazax/core/error.h"
#include "lazax/io/npy.h"
#include "progress.h"

namespace lazax::train {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("lazax-trainkit-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

TEST(TrainCorpus, FortuneSeparatorsBecomeBlankLines) {
  EXPECT_EQ(strip_fortune_separators("a\nb\n%\nc\n%\n"), "a\nb\n\nc\n\n");
  EXPECT_EQ(strip_fortune_separators("50%\n%%\n"), "50%\n%%\n");  // only a lone %
}

TEST(TrainCorpus, ReadsTheFortunesOfADirectoryWithIndexes) {
  fs::path d = scratch("fortunes");
  fs::create_directories(d);
  std::ofstream(d / "b") << "second\n%\n";
  std::ofstream(d / "b.dat") << "x";
  std::ofstream(d / "a") << "first\n%\nmore\n";
  std::ofstream(d / "a.dat") << "x";
  std::ofstream(d / "notes") << "no index: skipped\n";
  EXPECT_EQ(read_fortunes(d.string()), "first\n\nmore\n\nsecond\n\n\n");
  EXPECT_THROW(read_fortunes((d / "none").string()), IOError);
}

TEST(TrainCorpus, SplitsNinetyFiveFive) {
  std::string text(1000, 'x');
  Corpus c = split_corpus(text, "t", 9);
  EXPECT_EQ(c.train.size(), 950u);
  EXPECT_EQ(c.valid.size(), 50u);
  // The validation part holds at least one window.
  c = split_corpus(std::string(100, 'y'), "t", 20);
  EXPECT_EQ(c.valid.size(), 20u);
  EXPECT_THROW(split_corpus("", "t", 9), ValueError);
  EXPECT_THROW(split_corpus("short", "t", 9), ValueError);
}

TEST(TrainCorpus, MissingAndEmptyFilesAreErrorsNamingThem) {
  fs::path empty = scratch("empty.txt");
  std::ofstream(empty).close();
  try {
    load_corpus(empty.string(), 8);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("empty.txt is empty"), std::string::npos) << e.what();
  }
  try {
    load_corpus("/nonexistent/corpus.txt", 8);
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/corpus.txt does not exist"),
              std::string::npos);
  }
}

TEST(TrainCorpus, UnigramEntropy) {
  EXPECT_NEAR(unigram_entropy("aaaa"), 0.0, 1e-12);
  EXPECT_NEAR(unigram_entropy("abab"), std::log(2.0), 1e-12);
  EXPECT_NEAR(unigram_entropy("abcd"), std::log(4.0), 1e-12);
}

TEST(TrainBatches, SamplerIsReproducibleFromItsState) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += static_cast<char>('a' + i % 26);
  CorpusSampler s(text, 3, 7, 42);
  Batch b0 = s.next();
  ASSERT_EQ(b0.size(), 3u * 8u);
  for (size_t r = 0; r < 3; ++r)  // consecutive bytes of the text
    for (size_t t = 1; t < 8; ++t)
      EXPECT_EQ((b0[r * 8 + t] - 'a' + 26) % 26, (b0[r * 8 + t - 1] - 'a' + 1) % 26);
  const uint64_t state = s.rng().state();
  Batch b1 = s.next();
  CorpusSampler again(text, 3, 7, 0);
  again.rng().set_state(state);
  EXPECT_EQ(again.next(), b1);
  CorpusSampler same_seed(text, 3, 7, 42);
  EXPECT_EQ(same_seed.next(), b0);
}

TEST(TrainBatches, FixedWindowsAreEvenlySpaced) {
  std::string text(100, 'z');
  auto w = fixed_windows(text, 2, 4, 3);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].size(), 10u);
  EXPECT_TRUE(fixed_windows("abc", 2, 4, 3).empty());
}

TEST(TrainBatches, BatchFileIsChecked) {
  fs::path good = scratch("good.npy");
  std::vector<int64_t> ids(2 * 3 * 5);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i * 7 % 256);
  write_npy(good.string(), Literal::from_vector<int64_t>(ids, Shape{2, 3, 5}));
  BatchFile f = read_batch_file(good.string());
  EXPECT_EQ(f.steps, 2);
  EXPECT_EQ(f.batch, 3);
  EXPECT_EQ(f.seq, 4);
  EXPECT_EQ(f.at(1)[0], 15 * 7 % 256);

  fs::path rank2 = scratch("rank2.npy");
  write_npy(rank2.string(), Literal::from_vector<int32_t>({1, 2, 3, 4}, Shape{2, 2}));
  EXPECT_THROW(read_batch_file(rank2.string()), ShapeError);
  fs::path floats = scratch("floats.npy");
  write_npy(floats.string(), Literal::from_vector<float>({1, 2}, Shape{1, 1, 2}));
  EXPECT_THROW(read_batch_file(floats.string()), DTypeError);
  fs::path big = scratch("big.npy");
  write_npy(big.string(), Literal::from_vector<int32_t>({1, 256}, Shape{1, 1, 2}));
  try {
    read_batch_file(big.string());
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("id 256 at [0, 0, 1]"), std::string::npos) << e.what();
  }
}

TEST(TrainProgress, TextAndJsonLog) {
  EXPECT_EQ(progress_text(12, 200, 2.34567, 1234.4, 65),
            "step 12/200  loss 2.3457  1234 tok/s  ETA 1m05s");
  StepRecord r{3, 1.5, 0.001, 2.0, 10.5, 4.25, 2, std::nullopt};
  auto j = nlohmann::json::parse(to_json_line(r));
  EXPECT_EQ(j["step"], 3);
  EXPECT_EQ(j["loss"], 1.5);
  EXPECT_EQ(j["compiles"], 2);
  EXPECT_EQ(j["trace_ms"], 4.25);
  EXPECT_FALSE(j.contains("valid_loss"));
  EXPECT_EQ(to_json_line(r).find('\n'), std::string::npos);
}

TEST(TrainProgress, RedrawsInATerminalAndPrintsLinesOtherwise) {
  fs::path p = scratch("progress.txt");
  std::FILE* f = std::fopen(p.c_str(), "w");
  ProgressLine tty(f, true);
  tty.update("long line");
  tty.update("short");
  tty.finish();
  ProgressLine plain(f, false);
  plain.update("a");
  plain.update("b");
  std::fclose(f);
  std::ifstream in(p);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(s, "\rlong line\rshort    \na\nb\n");
}

TEST(TrainProgress, LossCurveSvg) {
  std::string svg = loss_curve_svg({{1, 5.5}, {2, 4.0}, {3, 3.0}}, {{3, 3.2}}, 4.4, "t");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 5, true);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("validation loss"), std::string::npos);
  EXPECT_NE(svg.find("unigram entropy"), std::string::npos);
}

}  // namespace
}  // namespace lazax::train
