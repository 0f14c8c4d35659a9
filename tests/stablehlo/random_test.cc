// Random bits through the importer: the threefry fixture (JAX's threefry2x32 as plain uint32 ops)
// and rng_bit_generator THREE_FRY and PHILOX, exactly against Random123's known-answer vectors
// (threefry2x32_20, philox4x32_10) and scalar references written here from the spec;
// bitcast_convert ui32 -> f32 bit for bit; the errors for what lazax cannot import.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "lazax/lazax.h"
#include "lazax/stablehlo/load.h"
#include "lazax/stablehlo/stablehlo.h"

namespace lazax {
namespace {

using Words = std::array<uint32_t, 2>;

// threefry2x32 with 20 rounds, one block at a time (Salmon et al., SC 2011).
Words threefry_ref(Words key, Words x) {
  auto rotl = [](uint32_t v, int d) { return (v << d) | (v >> (32 - d)); };
  const uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int r = 0; r < 20; ++r) {
    x[0] += x[1];
    x[1] = rotl(x[1], rot[r % 8]) ^ x[0];
    if (r % 4 == 3) {
      int s = r / 4 + 1;
      x[0] += ks[s % 3];
      x[1] += ks[(s + 1) % 3] + static_cast<uint32_t>(s);
    }
  }
  return x;
}

struct Kat {
  Words key, ctr, out;
};
// Random123's kat_vectors, threefry2x32_20 (counter, key -> result).
const Kat kKats[] = {
    {{0x00000000, 0x00000000}, {0x00000000, 0x00000000}, {0x6b200159, 0x99ba4efe}},
    {{0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x1cb996fc, 0xbb002be7}},
    {{0x13198a2e, 0x03707344}, {0x243f6a88, 0x85a308d3}, {0xc4923a9c, 0x483df7a0}},
};

TEST(StableHloRandom, ReferenceMatchesKnownAnswers) {
  for (const Kat& k : kKats) EXPECT_EQ(threefry_ref(k.key, k.ctr), k.out);
}

Tensor u32s(const std::vector<uint32_t>& v, std::vector<int64_t> shape) {
  return from_vector<uint32_t>(v, std::move(shape));
}

std::string fixture(const std::string& name) {
  return std::string(LAZAX_STABLEHLO_FIXTURES) + "/" + name;
}

// JAX's lowering of threefry2x32 (a private function of shift/or/xor/add on ui32) gives the
// known answers, lane 0 each time; the other lanes and jax.random.uniform's floats agree with
// the reference exactly.
TEST(StableHloRandom, ThreefryFixtureGivesKnownAnswers) {
  StableHloFunction f = load_stablehlo(fixture("threefry.mlir"));
  for (const Kat& k : kKats) {
    std::vector<uint32_t> c0{k.ctr[0], 1, 0xfffffffe, 0x9e3779b9},
        c1{k.ctr[1], 0, 0xffffffff, 0x7f4a7c15};
    std::vector<Tensor> out = f({u32s({k.key[0], k.key[1]}, {2}), u32s(c0, {4}), u32s(c1, {4})});
    std::vector<uint32_t> y0 = out[0].to_vector<uint32_t>(), y1 = out[1].to_vector<uint32_t>();
    std::vector<float> uniform = out[2].to_vector<float>();
    EXPECT_EQ(y0[0], k.out[0]);
    EXPECT_EQ(y1[0], k.out[1]);
    for (size_t i = 0; i < 4; ++i) {
      Words want = threefry_ref(k.key, {c0[i], c1[i]});
      EXPECT_EQ(y0[i], want[0]) << "lane " << i;
      EXPECT_EQ(y1[i], want[1]) << "lane " << i;
      float u = std::bit_cast<float>((want[0] >> 9) | 0x3f800000u) - 1.0f;
      EXPECT_EQ(std::bit_cast<uint32_t>(uniform[i]), std::bit_cast<uint32_t>(u)) << "lane " << i;
    }
  }
}

// What JAX itself computed: jax.random.uniform(key, (2, 4)) for the raw key [42, 43], from JAX's
// export back-compatibility test data (jax2tf back_compat_test, cuda_threefry2x32, 2023-03-15,
// printed by numpy to 8 decimals). jax.random draws the counters iota(8), split in halves as
// (x0, x1); row 0 is the uniform of threefry's first words, row 1 of its second. The fixture
// gives both rows to the printed digits (half a unit of the 8th decimal; a uniform steps by
// 2^-23 = 1.2e-7, so the top 23 bits of every word are checked exactly).
TEST(StableHloRandom, ThreefryFixtureMatchesJaxUniform) {
  const char* want[2][4] = {{"0.42591238", "0.0769949", "0.44370103", "0.72904015"},
                            {"0.17879379", "0.81439507", "0.00191903", "0.68608475"}};
  StableHloFunction f = load_stablehlo(fixture("threefry.mlir"));
  std::vector<Tensor> out =
      f({u32s({42, 43}, {2}), u32s({0, 1, 2, 3}, {4}), u32s({4, 5, 6, 7}, {4})});
  std::vector<float> row0 = out[2].to_vector<float>();
  std::vector<uint32_t> second = out[1].to_vector<uint32_t>();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(row0[i], std::strtod(want[0][i], nullptr), 5.1e-9) << "column " << i;
    float row1 = std::bit_cast<float>((second[i] >> 9) | 0x3f800000u) - 1.0f;
    EXPECT_NEAR(row1, std::strtod(want[1][i], nullptr), 5.1e-9) << "column " << i;
  }
}

// The same draw as JAX lowers it for CUDA (fixtures/uniform_gpu.mlir: custom_call
// @cu_threefry2x32 with a tuple result, get_tuple_element in both forms), run end to end.
TEST(StableHloRandom, JaxGpuUniformMatchesJax) {
  const double want[8] = {0.42591238, 0.0769949,  0.44370103, 0.72904015,
                          0.17879379, 0.81439507, 0.00191903, 0.68608475};
  StableHloFunction f = load_stablehlo(fixture("uniform_gpu.mlir"));
  std::vector<float> got = f({u32s({42, 43}, {2})})[0].to_vector<float>();
  ASSERT_EQ(got.size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(got[i], want[i], 5.1e-9) << "element " << i;
  std::string e;
  try {
    stablehlo::import_stablehlo(
        "func.func @main(%k: tensor<4xui32>, %x: tensor<4xi32>) -> tensor<4xui32> {\n"
        "  %0 = stablehlo.custom_call @cu_threefry2x32(%k, %k, %x, %x) : (tensor<4xui32>, "
        "tensor<4xui32>, tensor<4xi32>, tensor<4xi32>) -> tuple<tensor<4xui32>, tensor<4xui32>>\n"
        "  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<4xui32>, tensor<4xui32>>) -> "
        "tensor<4xui32>\n  return %1 : tensor<4xui32>\n}");
  } catch (const Error& err) {
    e = err.what();
  }
  EXPECT_EQ(e.rfind("[stablehlo] line 2, column 8: stablehlo.custom_call @cu_threefry2x32: "
                    "threefry2x32's operands are ui32 tensors of one shape, got i32[4]",
                    0),
            0u)
      << e;
}

TEST(StableHloRandom, BitcastConvertToF32IsBitExact) {
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%x: tensor<16xui32>, %y: tensor<16xi32>) -> (tensor<16xf32>, "
      "tensor<16xf32>) {\n"
      "  %0 = stablehlo.bitcast_convert %x : (tensor<16xui32>) -> tensor<16xf32>\n"
      "  %1 = \"stablehlo.bitcast_convert\"(%y) : (tensor<16xi32>) -> tensor<16xf32>\n"
      "  return %0, %1 : tensor<16xf32>, tensor<16xf32>\n}");
  const std::vector<uint32_t> bits{0,          0x80000000, 1,          0x807fffff,
                                   0x00800000, 0x00ffffff, 0x3f800000, 0xbf7fffff,
                                   0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
                                   0x7fc00000, 0xffc00001, 0x12345678, 0xdeadbeef};
  std::vector<int32_t> signed_bits;
  for (uint32_t b : bits) signed_bits.push_back(std::bit_cast<int32_t>(b));
  std::vector<Tensor> out = call(f, {u32s(bits, {16}), from_vector<int32_t>(signed_bits, {16})});
  for (const Tensor& t : out) {
    std::vector<float> v = t.to_vector<float>();
    for (size_t i = 0; i < bits.size(); ++i) {
      float want = std::bit_cast<float>(bits[i]);
      if (std::isnan(want)) {  // the payload is not kept, the sign is
        EXPECT_TRUE(std::isnan(v[i])) << std::hex << bits[i];
        EXPECT_EQ(std::signbit(v[i]), std::signbit(want)) << std::hex << bits[i];
      } else {
        EXPECT_EQ(std::bit_cast<uint32_t>(v[i]), bits[i]) << std::hex << bits[i];
      }
    }
  }
}

// f32 -> ui32 / i32 and back: every bit pattern of the edge cases and of 4096 more from a
// generator comes back as it was (a NaN as 0x7FC00000, of either sign).
TEST(StableHloRandom, BitcastConvertFromF32IsBitExact) {
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%x: tensor<4112xf32>) -> (tensor<4112xui32>, tensor<4112xi32>) {\n"
      "  %0 = stablehlo.bitcast_convert %x : (tensor<4112xf32>) -> tensor<4112xui32>\n"
      "  %1 = stablehlo.bitcast_convert %x : (tensor<4112xf32>) -> tensor<4112xi32>\n"
      "  return %0, %1 : tensor<4112xui32>, tensor<4112xi32>\n}");
  std::vector<uint32_t> bits{0,          0x80000000, 1,          0x807fffff, 0x00800000, 0x00ffffff,
                             0x3f800000, 0xbf7fffff, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
                             0x7fc00000, 0xffc00001, 0x12345678, 0xdeadbeef};
  uint64_t state = 7;
  while (bits.size() < 4112) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    bits.push_back(static_cast<uint32_t>(state >> 32));
  }
  std::vector<float> x;
  for (uint32_t b : bits) x.push_back(std::bit_cast<float>(b));
  std::vector<Tensor> out = call(f, {from_vector<float>(x, {4112})});
  std::vector<uint32_t> u = out[0].to_vector<uint32_t>();
  std::vector<int32_t> i = out[1].to_vector<int32_t>();
  for (size_t k = 0; k < bits.size(); ++k) {
    uint32_t want = std::isnan(x[k]) ? 0x7fc00000u : bits[k];
    EXPECT_EQ(u[k], want) << std::hex << bits[k];
    EXPECT_EQ(static_cast<uint32_t>(i[k]), want) << std::hex << bits[k];
  }
}

// XLA's rules for rng_bit_generator THREE_FRY, element by element: state = [key, counter] (ui64,
// each two words, low first). 32-bit bits: the counters cover the shape halved along its first
// even dimension (else the longest), element i of that dimension being word i % 2 of block
// i / 2; a scalar is word 0 of block 0. 64-bit bits: one block per element, low word first.
// The counter is the block's row-major index in the halved shape plus the state's counter.
struct RngRef {
  std::vector<uint32_t> words;  // 32-bit: the values; 64-bit: low, high of each
  uint64_t next_counter = 0;
};

RngRef rng_ref(uint64_t key, uint64_t ctr, const std::vector<int64_t>& dims, bool wide) {
  Words k{static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  auto block = [&](uint64_t i) {
    uint64_t c = ctr + i;
    return threefry_ref(k, {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32)});
  };
  RngRef r;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (wide) {
    for (int64_t i = 0; i < n; ++i) {
      Words w = block(static_cast<uint64_t>(i));
      r.words.insert(r.words.end(), w.begin(), w.end());
    }
    r.next_counter = ctr + static_cast<uint64_t>(n);
    return r;
  }
  if (dims.empty()) {
    r.words = {block(0)[0]};
    r.next_counter = ctr + 1;
    return r;
  }
  size_t s = dims.size();
  for (size_t i = 0; i < dims.size() && s == dims.size(); ++i)
    if (dims[i] % 2 == 0) s = i;
  if (s == dims.size()) {
    s = 0;
    for (size_t i = 1; i < dims.size(); ++i)
      if (dims[i] > dims[s]) s = i;
  }
  std::vector<int64_t> half = dims;
  half[s] = (dims[s] + 1) / 2;
  for (int64_t lin = 0; lin < n; ++lin) {
    std::vector<int64_t> idx(dims.size());
    for (size_t d = dims.size(), rest = static_cast<size_t>(lin); d-- > 0;) {
      idx[d] = static_cast<int64_t>(rest % static_cast<size_t>(dims[d]));
      rest /= static_cast<size_t>(dims[d]);
    }
    int64_t word = idx[s] % 2, hl = 0;
    idx[s] /= 2;
    for (size_t d = 0; d < dims.size(); ++d) hl = hl * half[d] + idx[d];
    r.words.push_back(block(static_cast<uint64_t>(hl))[static_cast<size_t>(word)]);
  }
  int64_t nh = 1;
  for (int64_t d : half) nh *= d;
  r.next_counter = ctr + static_cast<uint64_t>(nh);
  return r;
}

std::string tensor_text(const std::vector<int64_t>& dims, const std::string& et) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + et + ">";
}

Tensor state_of(const std::vector<uint64_t>& state) {
  std::vector<uint32_t> words;
  for (uint64_t v : state) {
    words.push_back(static_cast<uint32_t>(v));
    words.push_back(static_cast<uint32_t>(v >> 32));
  }
  return u32s(words, {static_cast<int64_t>(state.size()), 2});
}

// One rng_bit_generator of `et` bits shaped `dims` (pretty or generic form).
std::vector<Tensor> run_rng(const std::vector<int64_t>& dims, const std::string& et,
                            const std::vector<uint64_t>& state, const std::string& alg,
                            bool generic) {
  std::string t = tensor_text(dims, et), st = tensor_text({int64_t(state.size())}, "ui64");
  std::string sig = "(" + st + ") -> (" + st + ", " + t + ")";
  std::string op = generic ? "\"stablehlo.rng_bit_generator\"(%s) <{rng_algorithm = "
                             "#stablehlo<rng_algorithm " +
                                 alg + ">}> : " + sig
                           : "stablehlo.rng_bit_generator %s, algorithm = " + alg + " : " + sig;
  FunctionPtr f = stablehlo::import_stablehlo("func.func @main(%s: " + st + ") -> (" + st + ", " +
                                              t + ") {\n  %0:2 = " + op +
                                              "\n  return %0#0, %0#1 : " + st + ", " + t + "\n}");
  return call(f, {state_of(state)});
}

// The bits of `et` as u32 words, low first.
std::vector<uint32_t> words_of(const Tensor& bits, const std::string& et) {
  std::vector<uint32_t> got;
  if (et == "i64") {
    Literal l = bits.literal();  // not to_vector: it reads through a double
    for (int64_t k = 0; k < l.numel(); ++k) {
      auto u = static_cast<uint64_t>(l.data<int64_t>()[k]);
      got.push_back(static_cast<uint32_t>(u));
      got.push_back(static_cast<uint32_t>(u >> 32));
    }
  } else if (et == "i32") {
    for (int32_t v : bits.to_vector<int32_t>()) got.push_back(static_cast<uint32_t>(v));
  } else {
    got = bits.to_vector<uint32_t>();
  }
  return got;
}

TEST(StableHloRandom, RngBitGeneratorGivesKnownAnswers) {
  for (const Kat& k : kKats) {
    uint64_t key = k.key[0] | uint64_t{k.key[1]} << 32, ctr = k.ctr[0] | uint64_t{k.ctr[1]} << 32;
    std::vector<Tensor> out = run_rng({2}, "ui32", {key, ctr}, "DEFAULT", false);
    EXPECT_EQ(out[1].to_vector<uint32_t>(), (std::vector<uint32_t>{k.out[0], k.out[1]}));
    out = run_rng({1}, "ui64", {key, ctr}, "THREE_FRY", true);
    EXPECT_EQ(out[1].to_vector<uint32_t>(), (std::vector<uint32_t>{k.out[0], k.out[1]}));
  }
}

const std::vector<int64_t> kShapes[] = {{4, 3}, {3, 5}, {}, {7}, {1, 3, 1}, {2, 3}, {5}};
const char* const kTypes[] = {"ui32", "i32", "ui64", "i64"};

TEST(StableHloRandom, RngBitGeneratorFollowsXlaCounterRules) {
  const uint64_t key = 0x0123456789abcdefull;
  // The last counter carries into the high word, then wraps around 2^64.
  for (uint64_t ctr : {uint64_t{5}, uint64_t{0xfffffffeull}, ~uint64_t{0}}) {
    for (const auto& dims : kShapes) {
      for (std::string et : kTypes) {
        bool generic = dims.size() % 2 == 1;
        std::vector<Tensor> out = run_rng(dims, et, {key, ctr}, "THREE_FRY", generic);
        RngRef want = rng_ref(key, ctr, dims, et == "ui64" || et == "i64");
        EXPECT_EQ(words_of(out[1], et), want.words)
            << et << " rank " << dims.size() << " ctr " << ctr;
        EXPECT_EQ(out[0].to_vector<uint32_t>(),
                  state_of({key, want.next_counter}).to_vector<uint32_t>());
      }
    }
  }
}

// Philox4x32-10, one block, written from the spec (Salmon et al., SC 2011).
std::array<uint32_t, 4> philox_ref(std::array<uint32_t, 4> c, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

TEST(StableHloRandom, PhiloxReferenceMatchesKnownAnswers) {  // Random123's kat_vectors
  EXPECT_EQ(philox_ref({0, 0, 0, 0}, 0, 0),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox_ref({~0u, ~0u, ~0u, ~0u}, ~0u, ~0u),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox_ref({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0xa4093822, 0x299f31d0),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// XLA's rules for PHILOX, element by element: key = state[0]; the 128-bit counter is
// (state[1], state[2]) for a 3-word state, (state[1], state[0]) for 2 (low half first). Block j
// is philox of counter + j; the words of blocks 0, 1, ... in order are the elements (32-bit) or
// their low/high pairs (64-bit). Next state: the key, the counter moved by the blocks (for 2
// words only its low half).
TEST(StableHloRandom, RngBitGeneratorPhiloxFollowsXlaRules) {
  const uint64_t key = 0xa4093822299f31d0ull;
  const std::vector<uint64_t> states[] = {
      {key, 7, 3}, {key, ~uint64_t{0} - 1, ~uint64_t{0}}, {key, 0xfffffffeull}, {0, 0}};
  for (const auto& st : states) {
    uint64_t lo = st[1], hi = st.size() == 3 ? st[2] : st[0];
    for (const auto& dims : kShapes) {
      for (std::string et : kTypes) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        bool wide = et == "ui64" || et == "i64";
        int64_t words = wide ? 2 * n : n, blocks = (words + 3) / 4;
        std::vector<uint32_t> want;
        for (int64_t j = 0; j < blocks; ++j) {
          uint64_t l = lo + static_cast<uint64_t>(j), h = hi + (l < lo ? 1 : 0);
          auto w = philox_ref({static_cast<uint32_t>(l), static_cast<uint32_t>(l >> 32),
                               static_cast<uint32_t>(h), static_cast<uint32_t>(h >> 32)},
                              static_cast<uint32_t>(st[0]), static_cast<uint32_t>(st[0] >> 32));
          want.insert(want.end(), w.begin(), w.end());
        }
        want.resize(static_cast<size_t>(words));
        bool generic = dims.size() % 2 == 0;
        std::vector<Tensor> out = run_rng(dims, et, st, "PHILOX", generic);
        EXPECT_EQ(words_of(out[1], et), want) << et << " rank " << dims.size();
        uint64_t nl = lo + static_cast<uint64_t>(blocks), nh = hi + (nl < lo ? 1 : 0);
        std::vector<uint64_t> next = {st[0], nl};
        if (st.size() == 3) next.push_back(nh);
        EXPECT_EQ(out[0].to_vector<uint32_t>(), state_of(next).to_vector<uint32_t>());
      }
    }
  }
  // One block from a 3-word state is the known answer itself; so is a 2-word state whose key
  // equals the counter's high half (all zeros, all ones).
  std::vector<Tensor> out =
      run_rng({4}, "ui32", {0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull},
              "PHILOX", false);
  EXPECT_EQ(out[1].to_vector<uint32_t>(),
            (std::vector<uint32_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  out = run_rng({4}, "ui32", {~uint64_t{0}, ~uint64_t{0}}, "PHILOX", true);
  EXPECT_EQ(out[1].to_vector<uint32_t>(),
            (std::vector<uint32_t>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
}

// What XLA computed: StableHLO's testdata (generated by running the op on XLA, checked with
// check.expect_eq) has rng_bit_generator THREE_FRY of the state [3, 3] to a ui64 scalar:
// 3349939604322698703, next state [3, 4]. Written here in the printer's form, both results
// named, the algorithm after two spaces.
TEST(StableHloRandom, RngBitGeneratorMatchesXlaTestdata) {
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%arg0: tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>) {\n"
      "  %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm =  THREE_FRY : "
      "(tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>)\n"
      "  return %output_state, %output : tensor<2xui64>, tensor<ui64>\n}");
  std::vector<Tensor> out = call(f, {state_of({3, 3})});
  EXPECT_EQ(out[0].to_vector<uint32_t>(), (std::vector<uint32_t>{3, 0, 4, 0}));
  const uint64_t want = 3349939604322698703ull;
  EXPECT_EQ(
      out[1].to_vector<uint32_t>(),
      (std::vector<uint32_t>{static_cast<uint32_t>(want), static_cast<uint32_t>(want >> 32)}));
}

// IREE's own lowering of THREE_FRY, with its e2e expectation (state i32[4] [1, 2, 3, 4] to i32[8]
// bits), agrees with the halving and interleaving here when its state words are read as the key
// (1, 2) and the counter 0x00000003_00000004: an independent implementation of the 32-bit rule.
TEST(StableHloRandom, RngBitGeneratorAgreesWithIree) {
  std::vector<Tensor> out =
      run_rng({8}, "i32", {0x0000000200000001ull, 0x0000000300000004ull}, "THREE_FRY", false);
  EXPECT_EQ(out[1].to_vector<int32_t>(),
            (std::vector<int32_t>{-1997982863, -261361928, -1008514867, 1226850200, 1419974734,
                                  -277475325, 1033030661, -1926332264}));
}

// jax.random with the rbg implementation keeps a u32[4] key and bitcasts it to the ui64 state:
// the ui32 pairs and the ui64 are one lazax value, so the bitcasts are free.
TEST(StableHloRandom, RngStateBitcastFromUint32Words) {
  FunctionPtr f = stablehlo::import_stablehlo(
      "func.func @main(%k: tensor<4xui32>) -> (tensor<4xui32>, tensor<2xui32>) {\n"
      "  %0 = stablehlo.reshape %k : (tensor<4xui32>) -> tensor<2x2xui32>\n"
      "  %1 = stablehlo.bitcast_convert %0 : (tensor<2x2xui32>) -> tensor<2xui64>\n"
      "  %2:2 = stablehlo.rng_bit_generator %1, algorithm = THREE_FRY : (tensor<2xui64>) -> "
      "(tensor<2xui64>, tensor<2xui32>)\n"
      "  %3 = stablehlo.bitcast_convert %2#0 : (tensor<2xui64>) -> tensor<2x2xui32>\n"
      "  %4 = stablehlo.reshape %3 : (tensor<2x2xui32>) -> tensor<4xui32>\n"
      "  return %4, %2#1 : tensor<4xui32>, tensor<2xui32>\n}");
  const Kat& k = kKats[2];
  std::vector<Tensor> out = call(f, {u32s({k.key[0], k.key[1], k.ctr[0], k.ctr[1]}, {4})});
  EXPECT_EQ(out[0].to_vector<uint32_t>(),
            (std::vector<uint32_t>{k.key[0], k.key[1], k.ctr[0] + 1, k.ctr[1]}));
  EXPECT_EQ(out[1].to_vector<uint32_t>(), (std::vector<uint32_t>{k.out[0], k.out[1]}));
}

std::string error_of(const std::string& text) {
  try {
    stablehlo::import_stablehlo(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(StableHloRandom, ErrorsNameTheOpAndPosition) {
  std::string alg = error_of(
      "func.func @main(%s: tensor<2xui64>) -> tensor<4xui32> {\n"
      "  %0:2 = stablehlo.rng_bit_generator %s, algorithm = MERSENNE : (tensor<2xui64>) -> "
      "(tensor<2xui64>, tensor<4xui32>)\n  return %0#1 : tensor<4xui32>\n}");
  EXPECT_NE(alg.find("unknown rng_bit_generator algorithm 'MERSENNE'"), std::string::npos) << alg;
  std::string add = error_of(
      "func.func @main(%s: tensor<2xui64>) -> tensor<2xui64> {\n"
      "  %0 = stablehlo.add %s, %s : tensor<2xui64>\n  return %0 : tensor<2xui64>\n}");
  EXPECT_EQ(add.rfind("[stablehlo] line 2, column 8: stablehlo.add on ui64 values", 0), 0u) << add;
  std::string back = error_of(
      "func.func @main(%x: tensor<2xf64>) -> tensor<2xui32> {\n"
      "  %0 = stablehlo.bitcast_convert %x : (tensor<2xf64>) -> tensor<2xui32>\n"
      "  return %0 : tensor<2xui32>\n}");
  EXPECT_EQ(back.rfind("[stablehlo] line 2, column 8: bitcast_convert from f64[2] to u32[2]", 0),
            0u)
      << back;
  std::string constant = error_of(
      "func.func @main() -> tensor<2xui64> {\n"
      "  %0 = stablehlo.constant dense<1> : tensor<2xui64>\n  return %0 : tensor<2xui64>\n}");
  EXPECT_NE(constant.find("line 2, column 27: ui64 constants are not supported"), std::string::npos)
      << constant;
  std::string state = error_of(
      "func.func @main(%s: tensor<2xui32>) -> tensor<4xui32> {\n"
      "  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui32>) -> "
      "(tensor<2xui32>, tensor<4xui32>)\n  return %0#1 : tensor<4xui32>\n}");
  EXPECT_NE(state.find("line 2, column 10: rng_bit_generator's state must be a tensor<2xui64>"),
            std::string::npos)
      << state;
}

}  // namespace
}  // namespace lazax
