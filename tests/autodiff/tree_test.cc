// Trees of tensors (autodiff/tree.h): tree_flatten lists the tensors depth first in a fixed
// order (vectors and tuples in order, maps by key, struct fields as listed), tree_unflatten puts
// new tensors in their places and carries static leaves through, and the structure key tells
// different nestings and static values apart.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "test_util.h"

using namespace lazax;

namespace {

struct Layer {
  Tensor w;
  std::vector<Tensor> extra;
  int64_t width = 3;  // a static leaf
  LAZAX_TREE_FIELDS(w, extra, width)
};

Tensor val(float v) { return from_vector<float>({v}, {1}); }
float first(const Tensor& t) { return t.to_vector<float>()[0]; }

}  // namespace

TEST(Tree, FlattenOrderAndUnflattenPlaces) {
  std::map<std::string, Tensor> by_name{{"b", val(2)}, {"a", val(1)}};
  Layer layer{val(3), {val(4), val(5)}, 7};
  auto tree = std::make_tuple(by_name, std::string("static"), std::make_pair(layer, val(6)), 2.5);
  std::vector<Tensor> leaves = tree_flatten(tree);
  ASSERT_EQ(leaves.size(), 6u);
  for (size_t i = 0; i < leaves.size(); ++i)
    EXPECT_EQ(first(leaves[i]), static_cast<float>(i + 1)) << "leaf " << i;  // "a" before "b"

  std::vector<Tensor> doubled;
  for (const Tensor& t : leaves) doubled.push_back(t * 2.0);
  auto back = tree_unflatten(tree, doubled);
  EXPECT_EQ(first(std::get<0>(back).at("a")), 2);
  EXPECT_EQ(first(std::get<0>(back).at("b")), 4);
  EXPECT_EQ(std::get<1>(back), "static");
  const Layer& l = std::get<2>(back).first;
  EXPECT_EQ(first(l.w), 6);
  ASSERT_EQ(l.extra.size(), 2u);
  EXPECT_EQ(first(l.extra[1]), 10);
  EXPECT_EQ(l.width, 7);
  EXPECT_EQ(first(std::get<2>(back).second), 12);
  EXPECT_EQ(std::get<3>(back), 2.5);
  // The same leaves back give the same tree.
  EXPECT_EQ(tree_flatten(tree_unflatten(tree, leaves)).size(), 6u);
}

// Each leaf's path, in tree_flatten's order: JAX's key paths in C++ spelling.
TEST(Tree, PathsNameEachLeafInFlattenOrder) {
  std::map<std::string, Tensor> by_name{{"b", val(2)}, {"a", val(1)}};
  Layer layer{val(3), {val(4), val(5)}, 7};
  auto tree = std::make_tuple(by_name, std::string("static"), std::make_pair(layer, val(6)), 2.5);
  std::vector<std::string> paths;
  tree_paths(tree, "t", paths);
  EXPECT_EQ(paths, (std::vector<std::string>{"t[0]['a']", "t[0]['b']", "t[2].first.w",
                                             "t[2].first.extra[0]", "t[2].first.extra[1]",
                                             "t[2].second"}));
  EXPECT_EQ(paths.size(), tree_flatten(tree).size());
  paths.clear();
  tree_paths(val(1), "x", paths);
  EXPECT_EQ(paths, std::vector<std::string>{"x"});
  EXPECT_EQ(detail::split_field_names(" a,b ,  c"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Tree, StructureAndKeySeparateNestingsAndStatics) {
  Tensor x = val(1), y = val(2);
  auto nested = std::make_tuple(std::vector<Tensor>{x, y});
  auto flat = std::make_tuple(x, y);
  EXPECT_EQ(tree_flatten(nested).size(), tree_flatten(flat).size());
  EXPECT_NE(tree_structure(nested), tree_structure(flat));
  EXPECT_NE(tree_key(nested), tree_key(flat));
  EXPECT_NE(tree_key(std::make_pair(x, 1)), tree_key(std::make_pair(x, 2)));  // static values
  EXPECT_EQ(tree_key(std::make_pair(x, 1)), tree_key(std::make_pair(y, 1)));  // same types
  EXPECT_NE(tree_key(x), tree_key(x.to(DType::f64)));
  EXPECT_EQ(tree_structure(Layer{x, {}, 4}), "struct{f32[1];[0:]static:4;}");
}
