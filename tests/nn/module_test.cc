// nn::Module: names, state dicts, train/eval, to(dtype), and modules as trees of the transforms.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nn_test_util.h"

namespace lazax {
namespace {

using test::expect_close;
using test::values;

TEST(NnModule, LlamaParameterNamesAreIssue17s) {
  manual_seed(1);
  nn::Llama m(test::small_llama());
  std::vector<std::string> want = {"tok_embeddings.weight"};
  for (int i = 0; i < 2; ++i) {
    std::string l = "layers." + std::to_string(i) + ".";
    for (const char* n :
         {"attention_norm.weight", "attention.wq.weight", "attention.wk.weight",
          "attention.wv.weight", "attention.wo.weight", "ffn_norm.weight", "feed_forward.w1.weight",
          "feed_forward.w2.weight", "feed_forward.w3.weight"})
      want.push_back(l + n);
  }
  want.push_back("norm.weight");
  want.push_back("output.weight");
  std::vector<std::string> got;
  for (const auto& [n, t] : m.named_parameters()) {
    got.push_back(n);
    EXPECT_TRUE(t.requires_grad()) << n;
    EXPECT_FALSE(t.is_pending()) << n << " should be materialized by the constructor";
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(m.state_dict().size(), want.size());
  EXPECT_TRUE(m.named_buffers().empty());
  // 256*32 embedding and output, per layer 4*32*32 + 3*32*48 + 2*32, final norm 32.
  EXPECT_EQ(m.num_parameters(), 2 * 256 * 32 + 2 * (4 * 32 * 32 + 3 * 32 * 48 + 2 * 32) + 32);
  EXPECT_EQ(m.named_parameters()[3].second.sizes(), (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(m.output.weight.sizes(), (std::vector<int64_t>{256, 32}));  // [out, in]
}

// A module's leaves as a tree are its parameters, named by their dotted names (tree_paths).
TEST(NnModule, TreePathsAreTheParameterNames) {
  manual_seed(1);
  nn::Llama m(test::small_llama());
  std::vector<std::string> paths, want;
  tree_paths(m, "m", paths);
  for (const auto& [n, t] : m.named_parameters()) want.push_back("m." + n);
  EXPECT_EQ(paths, want);
  ASSERT_EQ(paths.size(), tree_flatten(m).size());
  EXPECT_EQ(paths[0], "m.tok_embeddings.weight");
  EXPECT_EQ(paths[2], "m.layers.0.attention.wq.weight");
  EXPECT_EQ(paths.back(), "m.output.weight");
  // In flatten's order: each path's tensor is the leaf at its place.
  std::vector<Tensor> leaves = tree_flatten(m);
  EXPECT_TRUE(leaves[2].impl() == m.layers[0].attention.wq.weight.impl());
}

TEST(NnModule, PresetsAndConfigErrors) {
  nn::LlamaConfig t = nn::LlamaConfig::tiny(), s = nn::LlamaConfig::preset("small");
  EXPECT_EQ(std::vector<int64_t>({t.dim, t.n_layers, t.n_heads, t.hidden, t.seq, t.batch}),
            std::vector<int64_t>({256, 4, 8, 768, 128, 8}));
  EXPECT_EQ(std::vector<int64_t>({s.dim, s.n_layers, s.n_heads, s.hidden, s.seq, s.batch}),
            std::vector<int64_t>({512, 8, 8, 1536, 256, 8}));
  EXPECT_EQ(t.vocab, 256);
  EXPECT_THROW(nn::LlamaConfig::preset("huge"), ValueError);
  nn::LlamaConfig bad = test::small_llama();
  bad.n_heads = 5;
  EXPECT_THROW(nn::Llama{bad}, ValueError);
  EXPECT_EQ(nn::layer_mode_from_string("scan"), nn::LayerMode::scan);
  EXPECT_THROW(nn::layer_mode_from_string("fast"), ValueError);
}

std::string error_of(nn::Module& m, const nn::StateDict& sd, bool strict = true) {
  try {
    m.load_state_dict(sd, strict);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NnModule, LoadStateDictIsStrictAndAllOrNothing) {
  manual_seed(1);
  nn::Llama a(test::small_llama());
  manual_seed(2);
  nn::Llama b(test::small_llama());
  nn::Llama b_copy = b;  // shares b's tensors
  std::vector<double> before = values(b.norm.weight);
  std::vector<double> emb_before = values(b.tok_embeddings.weight);

  nn::StateDict sd = a.state_dict();
  nn::StateDict missing = sd;
  missing.erase("layers.1.attention.wk.weight");
  std::string e = error_of(b, missing);
  EXPECT_NE(e.find("missing entry 'layers.1.attention.wk.weight'"), std::string::npos) << e;

  nn::StateDict unexpected = sd;
  unexpected["layers.2.ffn_norm.weight"] = ones({32});
  e = error_of(b, unexpected);
  EXPECT_NE(e.find("unexpected entry 'layers.2.ffn_norm.weight'"), std::string::npos) << e;

  nn::StateDict shaped = sd;
  shaped["norm.weight"] = ones({31});
  e = error_of(b, shaped, /*strict=*/false);
  EXPECT_NE(e.find("'norm.weight' is f32[31] but the module's is f32[32]"), std::string::npos) << e;
  nn::StateDict typed = sd;
  typed["output.weight"] = zeros({256, 32}, DType::f64);
  e = error_of(b, typed);
  EXPECT_NE(e.find("'output.weight' is f64[256,32]"), std::string::npos) << e;
  // Nothing was changed by the failed loads, though their other entries were good.
  EXPECT_EQ(values(b.norm.weight), before);
  EXPECT_EQ(values(b.tok_embeddings.weight), emb_before);

  // Non-strict: missing and unexpected entries are skipped, the rest loaded.
  b.load_state_dict(unexpected, /*strict=*/false);
  b.load_state_dict(sd);
  for (const auto& [n, t] : b.named_parameters()) {
    EXPECT_EQ(values(t), values(sd.at(n))) << n;
    EXPECT_TRUE(t.requires_grad()) << n;
  }
  EXPECT_EQ(values(b_copy.tok_embeddings.weight), values(a.tok_embeddings.weight));
  // The loaded parameters are still leaves that collect gradients.
  Tensor tok = randint(0, 256, {1, 5});
  b.forward(tok).backward();
  a.forward(tok).backward();
  for (const auto& [n, t] : b.named_parameters()) {
    EXPECT_TRUE(t.is_leaf()) << n;
    ASSERT_TRUE(t.grad().defined()) << n;
  }
  expect_close(b.output.weight.grad(), a.output.weight.grad(), 1e-6, "grad after load");
}

// A module of a Linear and a Dropout, as a user would write one.
struct Net : nn::Module {
  nn::Linear lin{8, 8};
  nn::Dropout drop{0.25};
  Tensor forward(const Tensor& x) const { return drop(lin(x)); }
  void visit(nn::ModuleVisitor& v) override {
    v.module("lin", lin);
    v.module("drop", drop);
  }
  std::string type_name() const override { return "Net"; }
};

TEST(NnModule, TrainEvalAndDropout) {
  Net net;
  EXPECT_TRUE(net.drop.is_training());
  net.eval();
  EXPECT_FALSE(net.is_training());
  EXPECT_FALSE(net.drop.is_training());
  Tensor x = randn({100, 200}) + 3.0;
  EXPECT_EQ(values(net.drop(x)), values(x));
  net.train();
  EXPECT_TRUE(net.drop.is_training());
  std::vector<double> xv = values(x), y1 = values(net.drop(x)), y2 = values(net.drop(x));
  size_t zeros1 = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    if (y1[i] == 0.0) {
      ++zeros1;
    } else {
      EXPECT_NEAR(y1[i], xv[i] / 0.75, 1e-5);
    }
  }
  EXPECT_NEAR(static_cast<double>(zeros1) / static_cast<double>(xv.size()), 0.25, 0.02);
  EXPECT_NE(y1, y2);  // new numbers on every call
  EXPECT_THROW(nn::Dropout(1.5), ValueError);
  EXPECT_EQ(net.named_parameters().size(), 2u);
  EXPECT_EQ(net.named_parameters()[1].first, "lin.bias");
}

// A module with a buffer (a running count, as BatchNorm's) next to a parameter.
struct Counted : nn::Module {
  Tensor scale = make_parameter(ones({3}));
  Tensor seen = zeros({3});
  nn::Linear lin{3, 3};
  Tensor forward(const Tensor& x) const { return lin(x * scale + seen); }
  void visit(nn::ModuleVisitor& v) override {
    v.parameter("scale", scale);
    v.buffer("seen", seen);
    v.module("lin", lin);
  }
  std::string type_name() const override { return "Counted"; }
};

TEST(NnModule, BuffersAreStateButNotParameters) {
  Counted m;
  auto bufs = m.named_buffers();
  ASSERT_EQ(bufs.size(), 1u);
  EXPECT_EQ(bufs[0].first, "seen");
  EXPECT_EQ(m.named_parameters().size(), 3u);  // scale, lin.weight, lin.bias
  EXPECT_EQ(tree_flatten(m).size(), 3u);
  nn::StateDict sd = m.state_dict();
  EXPECT_EQ(sd.size(), 4u);
  sd["seen"] = full({3}, 2.0);
  m.load_state_dict(sd);
  EXPECT_EQ(values(m.seen), std::vector<double>(3, 2.0));
  EXPECT_FALSE(m.seen.requires_grad());
  m.to(DType::f64);
  EXPECT_EQ(m.seen.dtype(), DType::f64);
  EXPECT_FALSE(m.seen.requires_grad());
  EXPECT_TRUE(m.scale.requires_grad());
  // grad over the module: the parameters' gradients; the buffer is carried unchanged.
  Counted g = grad([](const Counted& c, const Tensor& x) { return sum(c.forward(x)); })(
      m, ones({2, 3}, DType::f64));
  EXPECT_EQ(values(g.seen), std::vector<double>(3, 2.0));
  EXPECT_EQ(g.scale.dtype(), DType::f64);
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double var_of(const std::vector<double>& v) {
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

TEST(NnModule, InitializationsArePyTorchDefaults) {
  manual_seed(7);
  nn::Linear lin(400, 300);
  std::vector<double> w = values(lin.weight), b = values(lin.bias);
  double bound = 1.0 / 20.0;
  for (double x : w) ASSERT_TRUE(x >= -bound && x < bound) << x;
  for (double x : b) ASSERT_TRUE(x >= -bound && x < bound) << x;
  EXPECT_NEAR(mean_of(w), 0.0, 0.002);
  EXPECT_NEAR(var_of(w), bound * bound / 3.0, 0.03 * bound * bound / 3.0);
  EXPECT_NEAR(var_of(b), bound * bound / 3.0, 0.3 * bound * bound / 3.0);
  nn::Embedding emb(1000, 64);
  std::vector<double> e = values(emb.weight);
  EXPECT_NEAR(mean_of(e), 0.0, 0.02);
  EXPECT_NEAR(var_of(e), 1.0, 0.03);
  nn::RMSNorm rms(16);
  nn::LayerNorm ln(16);
  EXPECT_EQ(values(rms.weight), std::vector<double>(16, 1.0));
  EXPECT_EQ(values(ln.weight), std::vector<double>(16, 1.0));
  EXPECT_EQ(values(ln.bias), std::vector<double>(16, 0.0));
  EXPECT_EQ(rms.eps, 1e-5);
  nn::Linear nob(4, 3, /*bias=*/false);
  EXPECT_FALSE(nob.bias.defined());
  EXPECT_EQ(nob.named_parameters().size(), 1u);
  EXPECT_THROW(nn::Linear(0, 3), ValueError);
  EXPECT_THROW(nob(ones({2, 5})), ShapeError);
  EXPECT_THROW(emb(ones({2})), DTypeError);
}

TEST(NnModule, ToDtype) {
  nn::Linear lin(4, 3);
  std::vector<double> w = values(lin.weight);
  lin.to(DType::f64);
  EXPECT_EQ(lin.weight.dtype(), DType::f64);
  EXPECT_EQ(lin.bias.dtype(), DType::f64);
  EXPECT_TRUE(lin.weight.requires_grad());
  EXPECT_TRUE(lin.weight.is_leaf());
  EXPECT_EQ(values(lin.weight), w);
  Tensor y = sum(lin(ones({2, 4}, DType::f64)));
  y.backward();
  EXPECT_EQ(lin.weight.grad().dtype(), DType::f64);
}

TEST(NnModule, GradAndValueAndGradOverAModule) {
  manual_seed(3);
  nn::Linear lin(3, 2);
  Tensor x = randn({5, 3});
  auto f = [](const nn::Linear& m, const Tensor& x) { return sum(square(m(x))); };
  nn::Linear g = grad(f)(lin, x);  // a Linear whose parameters are the gradients
  auto [v, g2] = value_and_grad(f)(lin, x);
  // The tape's gradients of the same function.
  Tensor loss = f(lin, x);
  loss.backward();
  expect_close(g.weight, lin.weight.grad(), 1e-6, "grad weight");
  expect_close(g.bias, lin.bias.grad(), 1e-6, "grad bias");
  expect_close(g2.weight, lin.weight.grad(), 1e-6, "value_and_grad weight");
  expect_close(v, loss, 1e-6, "value");
  // Analytic: d/dW sum((xW^T+b)^2) = 2 (xW^T+b)^T x.
  Tensor y = matmul(x, lin.weight.detach().t()) + lin.bias.detach();
  expect_close(g.weight, matmul((y * 2.0).t(), x), 1e-5, "analytic weight");
  expect_close(g.bias, sum(y * 2.0, {0}), 1e-5, "analytic bias");
  EXPECT_EQ(tree_flatten(lin).size(), 2u);
}

TEST(NnModule, AssumePureAcceptsAModule) {
  manual_seed(4);
  nn::Linear lin(6, 4);
  nn::Dropout drop(0.5);
  auto f = assume_pure(
      [](const nn::Linear& m, const nn::Dropout& d, const Tensor& x) { return d(m(x)); });
  drop.eval();
  Tensor x = randn({3, 6});
  Tensor y = f(lin, drop, x);
  expect_close(y, lin(x), 1e-6, "assume_pure output");
  Tensor l = sum(square(f(lin, drop, x)));
  l.backward();
  Tensor gw = lin.weight.grad();
  zero_grad(lin.parameters());
  sum(square(lin(x))).backward();
  expect_close(gw, lin.weight.grad(), 1e-6, "gradient through the pure call");
  EXPECT_EQ(f.cache_size(), 1u);
  drop.train();  // the training flag is part of the signature: a new trace
  Tensor yt = f(lin, drop, x);
  EXPECT_EQ(f.cache_size(), 2u);
  size_t zeros_n = 0;
  for (double v : values(yt)) zeros_n += v == 0.0 ? 1 : 0;
  EXPECT_GT(zeros_n, 0u);
}

}  // namespace
}  // namespace lazax
