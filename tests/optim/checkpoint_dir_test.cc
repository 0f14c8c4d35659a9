// Checksums and directories of checkpoints: a changed byte or value is refused as corrupt,
// version-1 files still load, CheckpointDir keeps the newest `keep`, falls back past corrupt
// files (renaming them) and removes the temporaries of killed writes.
#include "lazax/optim/checkpoint_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lazax/core/error.h"
#include "lazax/io/safetensors.h"

namespace lazax::optim {
namespace {

namespace fs = std::filesystem;

class CheckpointFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lazax_checkpoint_dir_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
  NamedTensors weights_ = {{"w", arange(6).reshape({2, 3}).to(DType::f32)}};
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(CheckpointFiles, AFlippedByteOrAChangedValueIsCorrupt) {
  save_checkpoint(path("a.safetensors"), weights_, nullptr, nullptr, {.step = 7});
  EXPECT_EQ(verify_checkpoint(path("a.safetensors")).step, 7);
  {
    std::fstream f(path("a.safetensors"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('\x55');
  }
  const std::string msg = message_of([&] { verify_checkpoint(path("a.safetensors")); });
  EXPECT_NE(msg.find("[checkpoint] " + path("a.safetensors") + ": corrupt"), std::string::npos)
      << msg;
  // A metadata value rewritten (a valid file otherwise) is caught too.
  save_checkpoint(path("b.safetensors"), weights_, nullptr, nullptr, {.step = 7});
  SafetensorsFile f = read_safetensors(path("b.safetensors"));
  for (auto& [k, v] : f.metadata)
    if (k == "step") v = "8";
  write_safetensors(path("b.safetensors"), f);
  EXPECT_THROW(verify_checkpoint(path("b.safetensors")), IOError);
  NamedTensors into = {{"w", zeros({2, 3})}};
  EXPECT_THROW(load_checkpoint(path("b.safetensors"), into, nullptr, nullptr), IOError);
  EXPECT_EQ(into[0].second.to_vector<float>(), std::vector<float>(6, 0.0f));
}

TEST_F(CheckpointFiles, VersionOneFilesStillLoad) {
  SafetensorsFile f;
  f.metadata = {{"format", "lazax-training-checkpoint/1"}, {"step", "3"}, {"data_position", "3"}};
  f.tensors.emplace_back("model.w", weights_[0].second.literal().clone());
  write_safetensors(path("v1.safetensors"), f);
  NamedTensors into = {{"w", zeros({2, 3})}};
  EXPECT_EQ(load_checkpoint(path("v1.safetensors"), into, nullptr, nullptr).step, 3);
  EXPECT_EQ(into[0].second.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST_F(CheckpointFiles, ADirectoryKeepsTheNewestAndFallsBackPastCorruptOnes) {
  CheckpointDir d(path("run"), 2);
  for (int64_t s : {2, 4, 6}) d.save(weights_, nullptr, nullptr, {.step = s});
  std::vector<CheckpointEntry> all = d.list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].step, 4);
  EXPECT_EQ(all[1].path, path("run/step-00000006.safetensors"));
  fs::resize_file(all[1].path, fs::file_size(all[1].path) - 1);
  std::vector<std::string> skipped;
  std::optional<CheckpointEntry> e = d.newest_intact(&skipped);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->step, 4);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("step-00000006.safetensors"), std::string::npos) << skipped[0];
  EXPECT_TRUE(fs::exists(all[1].path + ".corrupt"));
  EXPECT_EQ(d.list().size(), 1u);
  // A killed write's temporary file goes; other files stay.
  std::ofstream(path("run/step-00000008.safetensors.tmp-AbC123")) << "part";
  std::ofstream(path("run/notes.txt")) << "mine";
  EXPECT_EQ(d.remove_stale_temporaries(), 1);
  EXPECT_TRUE(fs::exists(path("run/notes.txt")));
}

TEST_F(CheckpointFiles, AFailedWriteKeepsThePreviousCheckpoint) {
  CheckpointDir d(path("run"), 1);
  d.save(weights_, nullptr, nullptr, {.step = 1});
  // A weight of a dtype safetensors cannot hold fails before any I/O; a directory in the way of
  // the file fails at the rename. Either way step 1 stays, and no temporary file is left.
  fs::create_directories(path("run/step-00000002.safetensors"));
  const std::string msg = message_of([&] { d.save(weights_, nullptr, nullptr, {.step = 2}); });
  EXPECT_NE(msg.find("the checkpoint of step 2 was not written"), std::string::npos) << msg;
  EXPECT_NE(msg.find("step-00000001.safetensors is intact"), std::string::npos) << msg;
  EXPECT_TRUE(fs::exists(path("run/step-00000001.safetensors")));
  EXPECT_EQ(verify_checkpoint(path("run/step-00000001.safetensors")).step, 1);
  for (const auto& e : fs::directory_iterator(path("run")))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos);
}

TEST_F(CheckpointFiles, ADirectoryMustBeOne) {
  std::ofstream(path("file")) << "x";
  EXPECT_THROW(CheckpointDir(path("file"), 1), IOError);
  EXPECT_THROW(CheckpointDir(path("d"), 0), ValueError);
}

}  // namespace
}  // namespace lazax::optim
