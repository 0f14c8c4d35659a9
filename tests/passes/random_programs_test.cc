// Differential testing of the pipeline: random well-typed programs (fixed seeds) give the same
// results before and after optimize on the reference interpreter. A failure is shrunk and
// printed as IR text. LAZAX_PASSES_FUZZ_SEEDS=N runs N more seeds (a long-run mode), starting
// at LAZAX_PASSES_FUZZ_START (default 1000000).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "passes_test_util.h"

namespace lazax {
namespace {

// The mismatch between f and optimize(f) on seeded arguments, "" when none.
std::string mismatch(const FunctionPtr& f, const passes::PassOptions& o, uint64_t seed) {
  FunctionPtr g = passes::optimize(f, o);
  for (uint64_t s = seed; s < seed + 2; ++s) {
    std::vector<Literal> args = testing::random_arguments(*f, s);
    std::string d = testing::compare_results(interpret(*f, args), interpret(*g, args));
    if (!d.empty()) return d;
  }
  return "";
}

void check_seeds(uint64_t first, uint64_t count, const passes::PassOptions& o,
                 const testing::RandomProgramOptions& ro = {}) {
  int failures = 0;
  for (uint64_t seed = first; seed < first + count && failures < 3; ++seed) {
    FunctionPtr f = testing::random_program(seed, ro);
    std::string d;
    try {
      d = mismatch(f, o, seed);
    } catch (const Error& e) {
      d = std::string("threw: ") + e.what();
    }
    if (d.empty()) continue;
    ++failures;
    FunctionPtr small = testing::shrink_program(f, [&](const FunctionPtr& g) {
      try {
        return !mismatch(g, o, seed).empty();
      } catch (const Error&) {
        return true;
      }
    });
    std::string after;
    try {
      after = print_program(*passes::optimize(small, o));
    } catch (const Error& e) {
      after = e.what();
    }
    ADD_FAILURE() << "seed " << seed << ": " << d << "\nshrunk program:\n"
                  << print_program(*small) << "optimized:\n"
                  << after;
  }
}

TEST(RandomPrograms, OptimizeKeepsResults) { check_seeds(1, 1000, passes::PassOptions{}); }

TEST(RandomPrograms, EachPassAloneKeepsResults) {
  for (int p = 0; p < 5; ++p) {
    passes::PassOptions o;
    o.inline_calls = p == 0;
    o.simplify = p == 1;
    o.fold_constants = p == 2;
    o.cse = p == 3;
    o.dce = p == 4;
    check_seeds(5000 + 1000 * static_cast<uint64_t>(p), 200, o);
  }
}

TEST(RandomPrograms, LargerProgramsKeepResults) {
  testing::RandomProgramOptions ro;
  ro.num_steps = 40;
  ro.num_params = 4;
  check_seeds(20000, 200, passes::PassOptions{}, ro);
}

TEST(RandomPrograms, LongRunUnderEnvironmentVariable) {
  const char* n = std::getenv("LAZAX_PASSES_FUZZ_SEEDS");
  if (!n) GTEST_SKIP() << "set LAZAX_PASSES_FUZZ_SEEDS=N to run N more seeds";
  const char* start = std::getenv("LAZAX_PASSES_FUZZ_START");
  testing::RandomProgramOptions ro;
  ro.num_steps = 30;
  check_seeds(start ? std::strtoull(start, nullptr, 10) : 1000000, std::strtoull(n, nullptr, 10),
              passes::PassOptions{}, ro);
}

TEST(RandomPrograms, GeneratorIsDeterministicAndWellTyped) {
  testing::RandomProgramOptions bf16;
  bf16.float_dtype = DType::bf16;
  for (const testing::RandomProgramOptions& o : {testing::RandomProgramOptions{}, bf16}) {
    for (uint64_t seed = 0; seed < 50; ++seed) {
      FunctionPtr f = testing::random_program(seed, o);
      verify(*f);
      EXPECT_EQ(f->hash(), testing::random_program(seed, o)->hash());
      EXPECT_EQ(parse_program(print_program(*f))->hash(), f->hash());
    }
    EXPECT_NE(testing::random_program(1, o)->hash(), testing::random_program(2, o)->hash());
  }
  EXPECT_NE(testing::random_program(1)->hash(), testing::random_program(1, bf16)->hash());
}

// Counts the nodes of f and of the functions it reaches by (op, output dtype); fails on a node
// with an f32 output that computes (the bf16 mode's f32 values only move).
void count_bf16_mode_nodes(const Function& f, std::map<std::pair<OpCode, DType>, int>& n) {
  static const std::set<OpCode> kMoves = {OpCode::parameter,   OpCode::constant,
                                          OpCode::convert,     OpCode::broadcast_in_dim,
                                          OpCode::reshape,     OpCode::transpose,
                                          OpCode::slice,       OpCode::pad,
                                          OpCode::concatenate, OpCode::optimization_barrier,
                                          OpCode::call,        OpCode::cond,
                                          OpCode::while_,      OpCode::scan};
  for (const Node& node : f.nodes())
    for (const TensorType& t : node.outputs) {
      ++n[{node.op, t.dtype}];
      EXPECT_TRUE(t.dtype != DType::f32 || kMoves.contains(node.op))
          << op_name(node.op) << " computes in f32 in the bf16 mode";
    }
  for (const FunctionPtr& g : f.callees()) count_bf16_mode_nodes(*g, n);
}

// The bf16 mode computes in bf16 only, and has the nodes its differential test is for.
TEST(RandomPrograms, Bf16ModeComputesInBf16) {
  testing::RandomProgramOptions o;
  o.float_dtype = DType::bf16;
  std::map<std::pair<OpCode, DType>, int> n;
  for (uint64_t seed = 1; seed <= 300; ++seed)
    count_bf16_mode_nodes(*testing::random_program(seed, o), n);
  for (OpCode op : {OpCode::add, OpCode::exp, OpCode::dot_general, OpCode::reduce_sum,
                    OpCode::reduce_max, OpCode::select, OpCode::convert, OpCode::transpose,
                    OpCode::concatenate, OpCode::iota, OpCode::constant})
    EXPECT_GE((n[{op, DType::bf16}]), 10) << op_name(op);
  EXPECT_GE((n[{OpCode::convert, DType::f32}]), 50);  // bf16 -> f32 (and dots folded into it)
  EXPECT_GE((n[{OpCode::parameter, DType::f32}]), 50);
  for (OpCode op : {OpCode::cond, OpCode::while_, OpCode::scan, OpCode::call})
    EXPECT_GE((n[{op, DType::bf16}]), 10) << op_name(op);
}

// Each pass finds work in a good share of the generated programs (else the differential test
// would prove little).
TEST(RandomPrograms, EveryPassHasWorkInTheGeneratedPrograms) {
  const std::pair<const char*, FunctionPtr (*)(const FunctionPtr&)> kPasses[] = {
      {"inline_calls", [](const FunctionPtr& f) { return passes::inline_calls(f); }},
      {"simplify", passes::simplify},
      {"fold_constants", [](const FunctionPtr& f) { return passes::fold_constants(f); }},
      {"cse", passes::cse},
      {"dce", passes::dce}};
  for (const auto& [name, pass] : kPasses) {
    int changed = 0;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
      FunctionPtr f = testing::random_program(seed);
      changed += pass(f) != f ? 1 : 0;
    }
    EXPECT_GE(changed, 30) << name << " changed " << changed << " of 300 programs";
    std::printf("%s changes %d of 300 programs\n", name, changed);
  }
}

// The shrinker on a planted failure, "has a live tanh": the shrunk program is one tanh.
TEST(RandomPrograms, ShrinkerReducesAFailingProgram) {
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    FunctionPtr f = testing::random_program(seed, {.num_steps = 30, .barriers = false});
    auto fails = [](const FunctionPtr& g) {
      return passes_test::count(*passes::dce(g), OpCode::tanh) > 0;
    };
    if (!fails(f) || passes_test::count(*f, OpCode::call) > 0) continue;
    FunctionPtr small = testing::shrink_program(f, fails);
    EXPECT_TRUE(fails(small));
    EXPECT_EQ(small->results().size(), 1u);
    EXPECT_EQ(small->nodes().size() - static_cast<size_t>(small->num_params()), 1u)
        << print_program(*small);
    return;
  }
  FAIL() << "no seed gave a program with a tanh";
}

}  // namespace
}  // namespace lazax
