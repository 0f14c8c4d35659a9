// Driver ops for the factories, random numbers, composites, reductions, shape functions,
// autograd bookkeeping and sync of lazax/api/tensor.h and lazax/api/random.h.
#include "driver.h"
#include "lazax/api/random.h"
#include "lazax/core/error.h"

namespace lazax::torch_ops {
namespace {

using Reduce = Tensor (*)(const Tensor&, const std::vector<int64_t>&, bool);
OpRow reduce_row(std::string_view id, std::string_view sig, Reduce f) {
  return {id, {sig}, [f](Call& c) { return f(c.x(0), c.ints("dims"), c.b("keepdim", false)); }};
}

// Runs `step`, then checks that it left `y` materialized (sync's contract).
Tensor synced(const Tensor& y, void (*step)()) {
  step();
  if (y.is_pending()) throw ValueError("[driver] the value is still pending after the sync");
  return y;
}

void seed(const Call& c) { manual_seed(static_cast<uint64_t>(c.i("seed"))); }

// Flags of the tape through one sequence of steps; torch_ops_cases_more.py replays it in torch.
Tensor autograd_flags(Call& c) {
  Tensor x = c.x(0).detach();
  std::vector<bool> f = {x.requires_grad(), x.is_leaf()};
  x.requires_grad_();
  Tensor y = x * x;
  f.insert(f.end(), {x.requires_grad(), x.is_leaf(), y.requires_grad(), y.is_leaf()});
  {
    NoGrad off;
    Tensor z = x * x;
    f.insert(f.end(), {z.requires_grad(), z.is_leaf()});
    EnableGrad on;
    Tensor w = x * x;
    f.insert(f.end(), {w.requires_grad(), w.is_leaf()});
  }
  y.sum().backward();
  f.push_back(x.grad().defined());
  zero_grad({x});
  f.push_back(x.grad().defined());
  return bool_values(f);
}

}  // namespace

void add_function_rows(std::vector<OpRow>& r) {
  // ---- factories ----
  r.push_back({"zeros", {"zeros(const std::vector<int64_t>&,DType)"}, [](Call& c) {
                 return zeros(c.ints("shape"), c.dtype("dtype"));
               }});
  r.push_back({"ones", {"ones(const std::vector<int64_t>&,DType)"}, [](Call& c) {
                 return ones(c.ints("shape"), c.dtype("dtype"));
               }});
  r.push_back({"full", {"full(const std::vector<int64_t>&,double,DType)"}, [](Call& c) {
                 return full(c.ints("shape"), c.d("value"), c.dtype("dtype"));
               }});
  r.push_back(
      {"zeros_like", {"zeros_like(const Tensor&)"}, [](Call& c) { return zeros_like(c.x(0)); }});
  r.push_back(
      {"ones_like", {"ones_like(const Tensor&)"}, [](Call& c) { return ones_like(c.x(0)); }});
  r.push_back({"scalar_tensor", {"scalar_tensor(double,DType)"}, [](Call& c) {
                 return scalar_tensor(c.d("value"), c.dtype("dtype"));
               }});
  r.push_back({"arange", {"arange(int64_t,DType)"}, [](Call& c) {
                 return arange(c.i("end"), c.dtype("dtype"));
               }});
  r.push_back({"arange_range", {"arange(double,double,double,DType)"}, [](Call& c) {
                 return arange(c.d("start"), c.d("end"), c.d("step"), c.dtype("dtype"));
               }});
  r.push_back({"from_vector",
               {"from_vector(const std::vector<T>&,const std::vector<int64_t>&)"},
               [](Call& c) {
                 const Tensor& x = c.x(0);
                 return dispatch_dtype(x.dtype(), [&]<class T>() {
                   return from_vector<T>(x.to_vector<T>(), x.sizes());
                 });
               }});
  r.push_back({"from_vector_f32", {"from_vector(const std::vector<float>&)"}, [](Call& c) {
                 return from_vector(c.x(0).to_vector<float>());
               }});

  // ---- random numbers: run.py checks distributions, ranges and repeatability ----
  r.push_back({"randn", {"randn(const std::vector<int64_t>&,DType)"}, [](Call& c) {
                 seed(c);
                 return randn(c.ints("shape"), c.dtype("dtype"));
               }});
  r.push_back({"rand", {"rand(const std::vector<int64_t>&,DType)"}, [](Call& c) {
                 seed(c);
                 return rand(c.ints("shape"), c.dtype("dtype"));
               }});
  r.push_back({"randint", {"randint(int64_t,int64_t,const std::vector<int64_t>&)"}, [](Call& c) {
                 seed(c);
                 return randint(c.i("low"), c.i("high"), c.ints("shape"));
               }});
  // The same seed twice: two equal halves.
  r.push_back({"manual_seed", {"manual_seed(uint64_t)"}, [](Call& c) {
                 seed(c);
                 Tensor a = rand(c.ints("shape"));
                 seed(c);
                 return stack({a, rand(c.ints("shape"))});
               }});
  r.push_back({"default_generator", {"default_generator()"}, [](Call& c) {
                 seed(c);
                 Tensor a = default_generator().uniform(c.ints("shape"));
                 seed(c);
                 return stack({a, rand(c.ints("shape"))});
               }});
  r.push_back({"Generator::initial_seed", {"Generator::initial_seed() const"}, [](Call& c) {
                 Generator g(static_cast<uint64_t>(c.i("seed")));
                 return int_values({static_cast<int64_t>(g.initial_seed())});
               }});
  r.push_back(
      {"Generator::normal",
       {"Generator::Generator(uint64_t)", "Generator::normal(const std::vector<int64_t>&,DType)"},
       [](Call& c) {
         return Generator(static_cast<uint64_t>(c.i("seed")))
             .normal(c.ints("shape"), c.dtype("dtype"));
       }});
  r.push_back({"Generator::uniform",
               {"Generator::uniform(const std::vector<int64_t>&,DType)"},
               [](Call& c) {
                 return Generator(static_cast<uint64_t>(c.i("seed")))
                     .uniform(c.ints("shape"), c.dtype("dtype"));
               }});
  r.push_back({"Generator::randint",
               {"Generator::randint(int64_t,int64_t,const std::vector<int64_t>&)"},
               [](Call& c) {
                 return Generator(static_cast<uint64_t>(c.i("seed")))
                     .randint(c.i("low"), c.i("high"), c.ints("shape"));
               }});
  r.push_back(
      {"Generator::bits", {"Generator::bits(const std::vector<int64_t>&,DType)"}, [](Call& c) {
         return Generator(static_cast<uint64_t>(c.i("seed")))
             .bits(c.ints("shape"), c.dtype("dtype"));
       }});
  // A reseeded generator draws what a fresh one of that seed draws: two equal halves.
  r.push_back(
      {"Generator::manual_seed", {"Generator::manual_seed(uint64_t)"}, [](Call& c) {
         Generator g(1);
         (void)g.uniform(c.ints("shape"));
         g.manual_seed(static_cast<uint64_t>(c.i("seed")));
         Tensor a = g.uniform(c.ints("shape"));
         return stack({a, Generator(static_cast<uint64_t>(c.i("seed"))).uniform(c.ints("shape"))});
       }});

  // ---- activations and composites ----
  r.push_back({"relu", {"relu(const Tensor&)"}, [](Call& c) { return relu(c.x(0)); }});
  r.push_back({"gelu", {"gelu(const Tensor&,bool)"}, [](Call& c) {
                 return gelu(c.x(0), c.b("tanh", false));
               }});
  r.push_back({"silu", {"silu(const Tensor&)"}, [](Call& c) { return silu(c.x(0)); }});
  r.push_back({"softmax", {"softmax(const Tensor&,int64_t)"}, [](Call& c) {
                 return softmax(c.x(0), c.i("dim"));
               }});
  r.push_back({"log_softmax", {"log_softmax(const Tensor&,int64_t)"}, [](Call& c) {
                 return log_softmax(c.x(0), c.i("dim"));
               }});
  r.push_back(reduce_row("logsumexp", "logsumexp(const Tensor&,const std::vector<int64_t>&,bool)",
                         logsumexp));
  r.push_back({"cross_entropy", {"cross_entropy(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return cross_entropy(c.x(0), c.x(1));
               }});
  r.push_back({"embedding", {"embedding(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return embedding(c.x(0), c.x(1));
               }});

  // ---- reductions ----
  r.push_back(reduce_row("sum", "sum(const Tensor&,const std::vector<int64_t>&,bool)", sum));
  r.push_back(reduce_row("mean", "mean(const Tensor&,const std::vector<int64_t>&,bool)", mean));
  r.push_back(reduce_row("amax", "amax(const Tensor&,const std::vector<int64_t>&,bool)", amax));
  r.push_back(reduce_row("amin", "amin(const Tensor&,const std::vector<int64_t>&,bool)", amin));
  r.push_back(reduce_row("prod", "prod(const Tensor&,const std::vector<int64_t>&,bool)", prod));
  r.push_back({"max", {"max(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return max(c.x(0), c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"argmax", {"argmax(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return argmax(c.x(0), c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"cumsum", {"cumsum(const Tensor&,int64_t)"}, [](Call& c) {
                 return cumsum(c.x(0), c.i("dim"));
               }});
  r.push_back({"max_all", {"max(const Tensor&)"}, [](Call& c) { return max(c.x(0)); }});
  r.push_back({"min_all", {"min(const Tensor&)"}, [](Call& c) { return min(c.x(0)); }});
  r.push_back({"Tensor::max_all", {"Tensor::max() const"}, [](Call& c) { return c.x(0).max(); }});
  r.push_back({"Tensor::min_all", {"Tensor::min() const"}, [](Call& c) { return c.x(0).min(); }});
  r.push_back({"min", {"min(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return min(c.x(0), c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"argmin", {"argmin(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return argmin(c.x(0), c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"all", {"all(const Tensor&)"}, [](Call& c) { return all(c.x(0)); }});
  r.push_back({"any", {"any(const Tensor&)"}, [](Call& c) { return any(c.x(0)); }});
  r.push_back({"all_dim", {"all(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return all(c.x(0), c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"any_dim", {"any(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return any(c.x(0), c.i("dim"), c.b("keepdim", false));
               }});
  r.push_back({"cumprod", {"cumprod(const Tensor&,int64_t)"}, [](Call& c) {
                 return cumprod(c.x(0), c.i("dim"));
               }});
  r.push_back({"cummax", {"cummax(const Tensor&,int64_t)"}, [](Call& c) {
                 return std::get<0>(cummax(c.x(0), c.i("dim")));
               }});
  r.push_back({"cummax_indices", {"cummax(const Tensor&,int64_t)"}, [](Call& c) {
                 return std::get<1>(cummax(c.x(0), c.i("dim")));
               }});
  r.push_back({"cummin", {"cummin(const Tensor&,int64_t)"}, [](Call& c) {
                 return std::get<0>(cummin(c.x(0), c.i("dim")));
               }});
  r.push_back({"cummin_indices", {"cummin(const Tensor&,int64_t)"}, [](Call& c) {
                 return std::get<1>(cummin(c.x(0), c.i("dim")));
               }});

  // ---- sorting ----
  r.push_back({"sort", {"sort(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return std::get<0>(sort(c.x(0), c.i("dim"), c.b("descending", false)));
               }});
  r.push_back({"sort_indices", {"sort(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return std::get<1>(sort(c.x(0), c.i("dim"), c.b("descending", false)));
               }});
  r.push_back({"argsort", {"argsort(const Tensor&,int64_t,bool)"}, [](Call& c) {
                 return argsort(c.x(0), c.i("dim"), c.b("descending", false));
               }});
  r.push_back({"topk", {"topk(const Tensor&,int64_t,int64_t,bool)"}, [](Call& c) {
                 return std::get<0>(topk(c.x(0), c.i("k"), c.i("dim"), c.b("largest", true)));
               }});
  r.push_back({"topk_indices", {"topk(const Tensor&,int64_t,int64_t,bool)"}, [](Call& c) {
                 return std::get<1>(topk(c.x(0), c.i("k"), c.i("dim"), c.b("largest", true)));
               }});
  r.push_back({"flip", {"flip(const Tensor&,const std::vector<int64_t>&)"}, [](Call& c) {
                 return flip(c.x(0), c.ints("dims"));
               }});

  // ---- shape functions ----
  r.push_back({"reshape", {"reshape(const Tensor&,const std::vector<int64_t>&)"}, [](Call& c) {
                 return reshape(c.x(0), c.ints("shape"));
               }});
  r.push_back({"transpose", {"transpose(const Tensor&,int64_t,int64_t)"}, [](Call& c) {
                 return transpose(c.x(0), c.i("dim0"), c.i("dim1"));
               }});
  r.push_back({"permute", {"permute(const Tensor&,const std::vector<int64_t>&)"}, [](Call& c) {
                 return permute(c.x(0), c.ints("dims"));
               }});
  r.push_back({"unsqueeze", {"unsqueeze(const Tensor&,int64_t)"}, [](Call& c) {
                 return unsqueeze(c.x(0), c.i("dim"));
               }});
  r.push_back({"squeeze", {"squeeze(const Tensor&,int64_t)"}, [](Call& c) {
                 return squeeze(c.x(0), c.i("dim"));
               }});
  r.push_back({"expand", {"expand(const Tensor&,const std::vector<int64_t>&)"}, [](Call& c) {
                 return expand(c.x(0), c.ints("shape"));
               }});
  r.push_back({"broadcast_to",
               {"broadcast_to(const Tensor&,const std::vector<int64_t>&)"},
               [](Call& c) { return broadcast_to(c.x(0), c.ints("shape")); }});
  r.push_back({"slice", {"slice(const Tensor&,int64_t,int64_t,int64_t,int64_t)"}, [](Call& c) {
                 return slice(c.x(0), c.i("dim"), c.i("start"), c.i("end"), c.i("step"));
               }});
  r.push_back({"narrow", {"narrow(const Tensor&,int64_t,int64_t,int64_t)"}, [](Call& c) {
                 return narrow(c.x(0), c.i("dim"), c.i("start"), c.i("length"));
               }});
  r.push_back({"select", {"select(const Tensor&,int64_t,int64_t)"}, [](Call& c) {
                 return select(c.x(0), c.i("dim"), c.i("index"));
               }});
  r.push_back({"cat", {"cat(const std::vector<Tensor>&,int64_t)"}, [](Call& c) {
                 return cat(c.in, c.i("dim"));
               }});
  r.push_back({"stack", {"stack(const std::vector<Tensor>&,int64_t)"}, [](Call& c) {
                 return stack(c.in, c.i("dim"));
               }});
  r.push_back({"matmul", {"matmul(const Tensor&,const Tensor&)"}, [](Call& c) {
                 return matmul(c.x(0), c.x(1));
               }});
  r.push_back({"tril_mask", {"tril_mask(int64_t,int64_t)"}, [](Call& c) {
                 return tril_mask(c.i("n"), c.i("m"));
               }});

  // ---- autograd bookkeeping and sync ----
  r.push_back(
      {"autograd_flags",
       {"Tensor::requires_grad_(bool)", "Tensor::requires_grad() const", "Tensor::is_leaf() const",
        "Tensor::grad() const", "Tensor::backward(const Tensor&,std::optional<bool>,bool) const",
        "NoGrad::NoGrad()", "EnableGrad::EnableGrad()", "zero_grad(const std::vector<Tensor>&)"},
       autograd_flags});
  // A gradient set by hand is accumulated into by backward.
  r.push_back({"set_grad", {"Tensor::set_grad(const Tensor&)"}, [](Call& c) {
                 Tensor x = c.x(0).detach().requires_grad_();
                 x.set_grad(c.x(1));
                 (x * x).sum().backward();
                 return x.grad().detach();
               }});
  r.push_back({"sync", {"sync()", "Tensor::is_pending() const"}, [](Call& c) {
                 return synced(exp(c.x(0)), sync);
               }});
  r.push_back(
      {"mark_step", {"mark_step()"}, [](Call& c) { return synced(exp(c.x(0)), mark_step); }});
}

}  // namespace lazax::torch_ops
