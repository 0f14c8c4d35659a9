// Driver ops for the indexing ops (index_select, gather, scatter_add, index_put, Tensor::index,
// Tensor::index_put_) and the everyday composites (var, std, linspace, eye, tril, triu,
// one_hot, layer_norm, dropout) of lazax/api/tensor.h.
#include "driver.h"
#include "lazax/api/random.h"
#include "lazax/core/error.h"

namespace lazax::torch_ops {
namespace {

using indexing::Slice;
using indexing::TensorIndex;

// The case's "index" list: an integer, "None", "...", ["slice", start, stop, step] (null ends)
// or ["tensor", k] (input k).
std::vector<TensorIndex> index_list(const Call& c) {
  std::vector<TensorIndex> r;
  for (const nlohmann::json& e : c.args.at("index")) {
    auto opt = [](const nlohmann::json& v) {
      return v.is_null() ? std::optional<int64_t>() : std::optional<int64_t>(v.get<int64_t>());
    };
    if (e.is_number_integer()) {
      r.emplace_back(e.get<int64_t>());
    } else if (e.is_string()) {
      if (e.get<std::string>() == "None")
        r.emplace_back(indexing::None);
      else
        r.emplace_back(indexing::Ellipsis);
    } else if (e.at(0) == "slice") {
      r.emplace_back(Slice(opt(e.at(1)), opt(e.at(2)), opt(e.at(3))));
    } else {
      r.emplace_back(c.x(e.at(1).get<size_t>()));
    }
  }
  return r;
}

// Inputs from `first` on.
std::vector<Tensor> rest(const Call& c, size_t first) {
  return {c.in.begin() + static_cast<std::ptrdiff_t>(first), c.in.end()};
}

}  // namespace

void add_index_rows(std::vector<OpRow>& r) {
  r.push_back({"index_select", {"index_select(const Tensor&,int64_t,const Tensor&)"}, [](Call& c) {
                 return index_select(c.x(0), c.i("dim"), c.x(1));
               }});
  r.push_back({"Tensor::index_select",
               {"Tensor::index_select(int64_t,const Tensor&) const"},
               [](Call& c) { return c.x(0).index_select(c.i("dim"), c.x(1)); }});
  r.push_back({"gather", {"gather(const Tensor&,int64_t,const Tensor&)"}, [](Call& c) {
                 return gather(c.x(0), c.i("dim"), c.x(1));
               }});
  r.push_back({"Tensor::gather", {"Tensor::gather(int64_t,const Tensor&) const"}, [](Call& c) {
                 return c.x(0).gather(c.i("dim"), c.x(1));
               }});
  r.push_back({"scatter_add",
               {"scatter_add(const Tensor&,int64_t,const Tensor&,const Tensor&)"},
               [](Call& c) { return scatter_add(c.x(0), c.i("dim"), c.x(1), c.x(2)); }});
  r.push_back({"Tensor::scatter_add",
               {"Tensor::scatter_add(int64_t,const Tensor&,const Tensor&) const"},
               [](Call& c) { return c.x(0).scatter_add(c.i("dim"), c.x(1), c.x(2)); }});
  // Inputs: x, values, then the index tensors.
  r.push_back(
      {"index_put",
       {"index_put(const Tensor&,const std::vector<Tensor>&,const Tensor&,bool)"},
       [](Call& c) { return index_put(c.x(0), rest(c, 2), c.x(1), c.b("accumulate", false)); }});
  r.push_back({"Tensor::index",
               {"Tensor::index(const std::vector<indexing::TensorIndex>&) const",
                "Slice::Slice(std::optional<int64_t>,std::optional<int64_t>,"
                "std::optional<int64_t>)",
                "TensorIndex::TensorIndex(std::nullopt_t)",
                "TensorIndex::TensorIndex(EllipsisIndexType)", "TensorIndex::TensorIndex(Slice)",
                "TensorIndex::TensorIndex(Tensor)", "TensorIndex::TensorIndex(I)"},
               [](Call& c) { return c.x(0).index(index_list(c)); }});
  // Inputs: x, value, then the index tensors. x is cloned first (an in-place op on a leaf that
  // requires grad is an error), as the reference does.
  r.push_back({"Tensor::index_put_",
               {"Tensor::index_put_(const std::vector<indexing::TensorIndex>&,const Tensor&)"},
               [](Call& c) {
                 Tensor y = c.x(0).clone();
                 y.index_put_(index_list(c), c.x(1));
                 return y;
               }});
  r.push_back({"Tensor::index_put_scalar",
               {"Tensor::index_put_(const std::vector<indexing::TensorIndex>&,double)"},
               [](Call& c) {
                 Tensor y = c.x(0).clone();
                 y.index_put_(index_list(c), c.d("value"));
                 return y;
               }});

  r.push_back({"var", {"var(const Tensor&,const std::vector<int64_t>&,double,bool)"}, [](Call& c) {
                 return var(c.x(0), c.ints("dims"), c.d("correction"), c.b("keepdim", false));
               }});
  r.push_back({"std", {"std(const Tensor&,const std::vector<int64_t>&,double,bool)"}, [](Call& c) {
                 return lazax::std(c.x(0), c.ints("dims"), c.d("correction"),
                                   c.b("keepdim", false));
               }});
  r.push_back(
      {"Tensor::var", {"Tensor::var(const std::vector<int64_t>&,double,bool) const"}, [](Call& c) {
         return c.x(0).var(c.ints("dims"), c.d("correction"), c.b("keepdim", false));
       }});
  r.push_back(
      {"Tensor::std", {"Tensor::std(const std::vector<int64_t>&,double,bool) const"}, [](Call& c) {
         return c.x(0).std(c.ints("dims"), c.d("correction"), c.b("keepdim", false));
       }});
  r.push_back({"linspace", {"linspace(double,double,int64_t,DType)"}, [](Call& c) {
                 return linspace(c.d("start"), c.d("end"), c.i("steps"), c.dtype("dtype"));
               }});
  r.push_back({"eye", {"eye(int64_t,int64_t,DType)"}, [](Call& c) {
                 return eye(c.i("n"), c.i("m"), c.dtype("dtype"));
               }});
  r.push_back({"tril", {"tril(const Tensor&,int64_t)"}, [](Call& c) {
                 return tril(c.x(0), c.i("diagonal"));
               }});
  r.push_back({"triu", {"triu(const Tensor&,int64_t)"}, [](Call& c) {
                 return triu(c.x(0), c.i("diagonal"));
               }});
  r.push_back({"Tensor::tril", {"Tensor::tril(int64_t) const"}, [](Call& c) {
                 return c.x(0).tril(c.i("diagonal"));
               }});
  r.push_back({"Tensor::triu", {"Tensor::triu(int64_t) const"}, [](Call& c) {
                 return c.x(0).triu(c.i("diagonal"));
               }});
  r.push_back({"one_hot", {"one_hot(const Tensor&,int64_t)"}, [](Call& c) {
                 return one_hot(c.x(0), c.i("num_classes"));
               }});
  // Inputs: x, then weight and bias when the case has them.
  r.push_back({"layer_norm",
               {"layer_norm(const Tensor&,const std::vector<int64_t>&,const Tensor&,const "
                "Tensor&,double)"},
               [](Call& c) {
                 Tensor w = c.in.size() > 1 ? c.x(1) : Tensor();
                 Tensor b = c.in.size() > 2 ? c.x(2) : Tensor();
                 return layer_norm(c.x(0), c.ints("normalized_shape"), w, b, c.d("eps"));
               }});
  // run.py checks the kept fraction and the scale ("dropout" check).
  r.push_back({"dropout", {"dropout(const Tensor&,double,bool)"}, [](Call& c) {
                 manual_seed(static_cast<uint64_t>(c.i("seed")));
                 return dropout(c.x(0), c.d("p"), c.b("train", true));
               }});
}

}  // namespace lazax::torch_ops
