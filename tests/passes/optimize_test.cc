// The pipeline: a fixed point, the dumps, and the IR corpus run through it.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "passes_test_util.h"

namespace lazax {
namespace {

namespace fs = std::filesystem;
using passes_test::count;

constexpr const char* kProgram = R"(
func @f(%a: f32[2,3]) -> (f32[3,2]) {
  %0 = transpose(%a) {permutation=[1, 0]} : f32[3,2]
  %1 = constant() {value=f32[] [1]} : f32[]
  %2 = broadcast_in_dim(%1) {shape=[3,2], broadcast_dimensions=[]} : f32[3,2]
  %3 = mul(%0, %2) : f32[3,2]
  return %3
}
func @main(%x: f32[2,3], %w: f32[2,4]) -> (f32[3,4]) {
  %0 = call(%x) {callee=@f} : f32[3,2]
  %1 = call(%x) {callee=@f} : f32[3,2]
  %2 = add(%0, %1) : f32[3,2]
  %3 = constant() {value=f32[2] [1, 2]} : f32[2]
  %4 = exp(%3) : f32[2]
  %5 = dot_general(%2, %w) {lhs_batch=[], rhs_batch=[],
      lhs_contracting=[1], rhs_contracting=[0]} : f32[3,4]
  return %5
})";

TEST(Optimize, ReachesAFixedPoint) {
  FunctionPtr f = parse_program(kProgram);
  FunctionPtr g = passes::optimize(f);
  EXPECT_EQ(count(*g, OpCode::call), 0);
  EXPECT_EQ(count(*g, OpCode::mul), 0);
  EXPECT_EQ(count(*g, OpCode::exp), 0);
  EXPECT_EQ(count(*g, OpCode::transpose), 1) << print_program(*g);
  EXPECT_EQ(passes::optimize(g), g) << "a second run changes nothing";
  passes_test::expect_same_results(f, g);
}

TEST(Optimize, DisabledPassesDoNotRun) {
  FunctionPtr f = parse_program(kProgram);
  passes::PassOptions none;
  none.inline_calls = none.simplify = none.fold_constants = none.cse = none.dce = false;
  EXPECT_EQ(passes::optimize(f, none), f);
  passes::PassOptions only_dce = none;
  only_dce.dce = true;
  FunctionPtr g = passes::optimize(f, only_dce);
  EXPECT_EQ(count(*g, OpCode::exp), 0);
  EXPECT_EQ(count(*g, OpCode::call), 2);
}

TEST(Optimize, DumpsTheProgramAfterEachPassThatChangedIt) {
  fs::path dir = fs::temp_directory_path() / ("lazax_passes_dump_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FunctionPtr f = parse_program(kProgram);
  passes::PassOptions o;
  o.dump_dir = dir.string();
  FunctionPtr g = passes::optimize(f, o);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(f->hash()));
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names.front(), std::string(hex) + "_00_input.lzir");
  EXPECT_EQ(names[1], std::string(hex) + "_01_inline_calls.lzir");
  std::ifstream last(dir / names.back());
  std::stringstream text;
  text << last.rdbuf();
  EXPECT_EQ(parse_program(text.str())->hash(), g->hash()) << "the last dump is the result";
  fs::remove_all(dir);

  passes::set_default_dump_dir(dir.string());  // (what LAZAX_DUMP_DIR sets, through Context)
  passes::optimize(f);
  passes::set_default_dump_dir("");
  EXPECT_TRUE(fs::exists(dir / (std::string(hex) + "_00_input.lzir"))) << "the default dir";
  fs::remove_all(dir);
}

TEST(Optimize, UnwritableDumpDirIsAnError) {
  passes::PassOptions o;
  o.dump_dir = "/proc/lazax_no_such_dir/x";
  EXPECT_THROW(passes::optimize(parse_program(kProgram), o), IOError);
}

// The IR corpus (tests/ir/corpus/good) through optimize, then the interpreter.
TEST(Optimize, CorpusProgramsKeepTheirResults) {
  int n = 0;
  for (const auto& e :
       fs::directory_iterator(fs::path(LAZAX_SOURCE_DIR) / "tests/ir/corpus/good")) {
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    FunctionPtr f = parse_program(text.str());
    FunctionPtr g = passes::optimize(f);
    std::vector<Literal> args = testing::random_arguments(*f, 7);
    EXPECT_EQ(testing::compare_results(interpret(*f, args), interpret(*g, args)), "")
        << e.path() << "\n"
        << print_program(*g);
    ++n;
  }
  EXPECT_GE(n, 5);
}

}  // namespace
}  // namespace lazax
