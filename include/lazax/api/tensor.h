// lazax::Tensor: a cheap handle to materialized data or a pending IR value. Ops record nodes
// into the lazy graph; nothing runs until sync() or until a value is read (a "graph break").
//
// Aliasing rule (differs from PyTorch): lazax has no mutable views. Copies of a Tensor handle
// share one value, so an in-place op (add_, mul_, copy_, zero_) is seen through every copy of that
// handle. But slices, reshapes and transposes are new values: writing into a slice's result never
// changes the tensor it came from. Where PyTorch code writes through a view, make the whole new
// tensor instead: cat() the unchanged slices with the new part, or where() over a mask.
#pragma once
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "lazax/core/shape.h"
#include "lazax/ir/literal.h"

namespace lazax {

class TensorImpl;
class Tensor;
using Loc = std::source_location;
namespace indexing {
struct TensorIndex;  // x.index({...}) and x.index_put_({...}, v): see ops_index.h
}

// Host scalars follow PyTorch's Python scalars: a `double` is a floating scalar (as a Python
// float: i32 * 2.0 is f32, f16 * 2.0 stays f16, bool * 3.0 is f32), and a C++ integer is an
// integer scalar (as a Python int: i32 * 2 stays i32, bool * 3 is i64). The integer overloads
// are templates over IntegerScalar, so that an int literal picks them rather than the double
// ones. (bool is not an IntegerScalar: it converts to a floating scalar.)
template <class T>
concept IntegerScalar = std::integral<T> && !std::same_as<T, bool>;
// The integer scalar v as the 0-d tensor it becomes next to `like` (PyTorch's wrapped number):
// like's dtype, i64 for a bool tensor; exact for |v| < 2^53, wrapped to i8, u8, i32 and u32 as
// their arithmetic wraps.
Tensor integer_scalar(const Tensor& like, int64_t v);

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  ~Tensor() = default;
  // Assignment rebinds this variable to another value (unlike add_, which changes the value
  // every copy of the handle sees). A handle that an assume_pure program captured is noted as
  // possibly rebound, so that the program reads the variable's new value (autodiff/pure.h).
  Tensor& operator=(const Tensor& o) {
    if (this == &o || impl_ == o.impl_) return *this;
    note_rebind();
    impl_ = o.impl_;
    return *this;
  }
  Tensor& operator=(Tensor&& o) noexcept {
    if (impl_ != o.impl_) note_rebind();
    impl_ = std::move(o.impl_);
    return *this;
  }
  // A materialized tensor holding `value`.
  explicit Tensor(Literal value);

  bool defined() const { return impl_ != nullptr; }
  DType dtype() const;
  const Shape& shape() const;
  // A word that stands for the tensor's dtype and shape for the rest of the process: equal
  // types, equal ids (types are interned: core/interned_type.h). For cache keys.
  uintptr_t type_id() const;
  std::vector<int64_t> sizes() const { return shape().vec(); }
  int64_t dim() const { return static_cast<int64_t>(shape().rank()); }
  int64_t size(int64_t d) const;
  int64_t numel() const { return shape().numel(); }
  bool is_pending() const;
  std::string type_str() const;  // "f32[2,3]"

  // Reading a value syncs first if it is pending (counted as a graph break at `loc`).
  double item(Loc loc = Loc::current()) const;
  template <class T>
  std::vector<T> to_vector(Loc loc = Loc::current()) const {
    return literal(loc).to_vector<T>();
  }
  Literal literal(Loc loc = Loc::current()) const;
  // `if (t)`: the value of a one-element tensor (a graph break); inside a function trace this
  // raises TracerBoolConversionError: use lazax::cond or where() instead.
  explicit operator bool() const;

  // Dtype conversion.
  Tensor to(DType t) const;
  // Arithmetic operators (broadcasting, type promotion).
  Tensor operator-() const;

  // In-place ops: rebind this handle (and every copy of it) to a new value. As PyTorch, the
  // arithmetic ones refuse a result that this dtype cannot hold without changing its kind
  // (a floating result into an integer tensor, a non-bool one into a bool tensor).
  Tensor& add_(const Tensor& o);
  Tensor& add_(double v);
  Tensor& sub_(const Tensor& o);
  Tensor& mul_(const Tensor& o);
  Tensor& sub_(double v);
  Tensor& mul_(double v);
  Tensor& div_(const Tensor& o);
  Tensor& div_(double v);
  template <IntegerScalar I>
  Tensor& add_(I v) {
    return add_(integer_scalar(*this, static_cast<int64_t>(v)));
  }
  template <IntegerScalar I>
  Tensor& mul_(I v) {
    return mul_(integer_scalar(*this, static_cast<int64_t>(v)));
  }
  template <IntegerScalar I>
  Tensor& sub_(I v) {
    return sub_(integer_scalar(*this, static_cast<int64_t>(v)));
  }
  template <IntegerScalar I>
  Tensor& div_(I v) {
    return div_(static_cast<double>(v));
  }
  Tensor& copy_(const Tensor& src);
  Tensor& zero_();
  Tensor& fill_(double v);
  // Compound assignment: the in-place ops above (same aliasing and autograd rules as add_).
  Tensor& operator+=(const Tensor& o) { return add_(o); }
  Tensor& operator-=(const Tensor& o) { return sub_(o); }
  Tensor& operator*=(const Tensor& o) { return mul_(o); }
  Tensor& operator/=(const Tensor& o) { return div_(o); }
  template <class S>
    requires std::is_arithmetic_v<S>
  Tensor& operator+=(S v) {
    return add_(v);
  }
  template <class S>
    requires std::is_arithmetic_v<S>
  Tensor& operator-=(S v) {
    return sub_(v);
  }
  template <class S>
    requires std::is_arithmetic_v<S>
  Tensor& operator*=(S v) {
    return mul_(v);
  }
  template <class S>
    requires std::is_arithmetic_v<S>
  Tensor& operator/=(S v) {
    return div_(v);
  }

  // Shape ops as methods (PyTorch names).
  Tensor reshape(const std::vector<int64_t>& shape) const;
  Tensor view(const std::vector<int64_t>& shape) const { return reshape(shape); }
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor t() const;  // as PyTorch: 0-d and 1-d tensors unchanged, more than 2 dims an error
  Tensor unsqueeze(int64_t d) const;
  Tensor squeeze(int64_t d) const;
  Tensor expand(const std::vector<int64_t>& shape) const;
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor contiguous() const { return *this; }
  Tensor clone() const;
  Tensor detach() const;

  // Reductions as methods.
  Tensor sum(const std::vector<int64_t>& dims = {}, bool keepdim = false) const;
  Tensor mean(const std::vector<int64_t>& dims = {}, bool keepdim = false) const;
  Tensor max(int64_t dim, bool keepdim = false) const;
  // The largest (smallest) element, a scalar: torch's x.max() and x.min() without a dim.
  Tensor max() const;
  Tensor min() const;
  Tensor amax(const std::vector<int64_t>& dims = {}, bool keepdim = false) const;
  Tensor argmax(int64_t dim, bool keepdim = false) const;
  Tensor amin(const std::vector<int64_t>& dims = {}, bool keepdim = false) const;
  Tensor prod(const std::vector<int64_t>& dims = {}, bool keepdim = false) const;
  Tensor logsumexp(const std::vector<int64_t>& dims, bool keepdim = false) const;
  Tensor cumsum(int64_t dim) const;
  Tensor var(const std::vector<int64_t>& dims = {}, double correction = 1,
             bool keepdim = false) const;
  Tensor std(const std::vector<int64_t>& dims = {}, double correction = 1,
             bool keepdim = false) const;

  // Indexing (the free functions below say what each does).
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  // LibTorch's Tensor::index: x.index({Slice(0, 4), 2}) is Python's x[0:4, 2]. Each entry is an
  // integer (selects, dropping the dim; negative counts from the end), a Slice(start, stop,
  // step) (None ends, negative ends, step > 0), None (a new dim of size 1), Ellipsis (once: the
  // remaining dims) or an integer tensor (advanced indexing, negative entries counting from the
  // end: adjacent tensor entries are broadcast together and their dims replaced by that shape;
  // tensor entries apart, which PyTorch moves to the front, are an error). Bool masks are not
  // supported (their result shape depends on values: use where()).
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  // Python's x[indices] = value (an in-place op, with add_'s aliasing and autograd rules): value
  // is converted to x's dtype and broadcast to the shape x.index(indices) has. Entries as
  // index(); positions repeated by tensor entries get the sum of their values (PyTorch: one
  // of them, unspecified).
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, double value);
  Tensor min(int64_t dim, bool keepdim = false) const;
  Tensor argmin(int64_t dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor cumprod(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor flip(const std::vector<int64_t>& dims) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true) const;

  // Elementwise ops and activations as methods (torch::Tensor's names; the free functions
  // below say what each does).
  Tensor abs() const;
  Tensor neg() const;
  Tensor sign() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor square() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor erf() const;
  Tensor floor() const;
  Tensor round() const;
  Tensor ceil() const;
  Tensor erfinv() const;
  Tensor exp2() const;
  Tensor tan() const;
  Tensor isfinite() const;
  Tensor bitwise_not() const;
  Tensor fmod(const Tensor& o) const;
  Tensor remainder(const Tensor& o) const;
  Tensor bitwise_and(const Tensor& o) const;
  Tensor bitwise_or(const Tensor& o) const;
  Tensor bitwise_xor(const Tensor& o) const;
  Tensor bitwise_left_shift(const Tensor& o) const;
  Tensor bitwise_right_shift(const Tensor& o) const;
  Tensor relu() const;
  Tensor gelu(bool tanh_approximation = false) const;
  Tensor silu() const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(double exponent) const;
  template <IntegerScalar I>
  Tensor pow(I exponent) const {
    return pow(integer_scalar(*this, exponent));
  }
  Tensor clamp(std::optional<double> lo, std::optional<double> hi) const;
  Tensor clamp_min(double lo) const { return clamp(lo, std::nullopt); }
  Tensor clamp_max(double hi) const { return clamp(std::nullopt, hi); }
  Tensor maximum(const Tensor& o) const;
  Tensor minimum(const Tensor& o) const;
  Tensor matmul(const Tensor& o) const;
  Tensor add(const Tensor& o) const;
  Tensor sub(const Tensor& o) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;
  Tensor eq(const Tensor& o) const;
  Tensor ne(const Tensor& o) const;
  Tensor lt(const Tensor& o) const;
  Tensor le(const Tensor& o) const;
  Tensor gt(const Tensor& o) const;
  Tensor ge(const Tensor& o) const;

  // ---- autograd (tape, the PyTorch habit) ----
  Tensor& requires_grad_(bool on = true);
  bool requires_grad() const;
  bool is_leaf() const;
  // The gradient accumulated by backward() (undefined until then, or after zero_grad).
  Tensor grad() const;
  void set_grad(const Tensor& g);
  // Records the gradient computation of this scalar w.r.t. every leaf that requires grad and
  // accumulates it into their grad(). Lazy: nothing runs until sync(). With retain_graph=false
  // the tape's saved values are freed and a second backward through it is an error. With
  // create_graph=true the gradient computation is itself taped (higher-order derivatives).
  // retain_graph defaults to create_graph, as in PyTorch: a taped gradient is usually
  // differentiated again through the same tape.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;

  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

 private:
  void note_rebind() const {
    if (impl_) mark_rebound(*impl_);
  }
  static void mark_rebound(TensorImpl& impl);  // tensor.cc

  std::shared_ptr<TensorImpl> impl_;
};

// ---- sync ----
// Compiles (or finds in the cache) and runs everything pending, then rebinds the tensors.
void sync();
// The same as sync(), under PyTorch/XLA's name. (With `using namespace lazax` and <unistd.h>
// in scope, an unqualified `sync()` is ambiguous with POSIX ::sync: write lazax::sync().)
inline void mark_step() { sync(); }

// Sets the grad of every tensor to undefined (PyTorch's set_to_none=True).
void zero_grad(const std::vector<Tensor>& params);

// No tape entries are recorded while a NoGrad is alive (torch.no_grad()).
class NoGrad {
 public:
  NoGrad();
  ~NoGrad();
  NoGrad(const NoGrad&) = delete;
  NoGrad& operator=(const NoGrad&) = delete;

 private:
  uint8_t previous_;  // the grad mode it restores (tensor.cc)
};
// Turns recording back on inside a NoGrad (torch.enable_grad()).
class EnableGrad {
 public:
  EnableGrad();
  ~EnableGrad();
  EnableGrad(const EnableGrad&) = delete;
  EnableGrad& operator=(const EnableGrad&) = delete;

 private:
  uint8_t previous_;
};

// ---- factories ----
Tensor zeros(const std::vector<int64_t>& shape, DType dtype = DType::f32);
Tensor ones(const std::vector<int64_t>& shape, DType dtype = DType::f32);
Tensor full(const std::vector<int64_t>& shape, double value, DType dtype = DType::f32);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor scalar_tensor(double value, DType dtype = DType::f32);
Tensor arange(int64_t end, DType dtype = DType::i64);
Tensor arange(double start, double end, double step = 1.0, DType dtype = DType::f32);
template <class T>
Tensor from_vector(const std::vector<T>& values, const std::vector<int64_t>& shape) {
  return Tensor(Literal::from_vector<T>(values, Shape(shape)));
}
Tensor from_vector(const std::vector<float>& values);  // 1-D f32

// ---- random (through the default generator; see random.h) ----
Tensor randn(const std::vector<int64_t>& shape, DType dtype = DType::f32);
Tensor rand(const std::vector<int64_t>& shape, DType dtype = DType::f32);
Tensor randint(int64_t low, int64_t high, const std::vector<int64_t>& shape);
void manual_seed(uint64_t seed);

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace lazax

// The op families, each in a header of its own mirroring src/api/ops_*.cc.
#include "lazax/api/ops_elementwise.h"  // IWYU pragma: export
#include "lazax/api/ops_everyday.h"     // IWYU pragma: export
#include "lazax/api/ops_index.h"        // IWYU pragma: export
#include "lazax/api/ops_nn.h"           // IWYU pragma: export
#include "lazax/api/ops_reduce.h"       // IWYU pragma: export
#include "lazax/api/ops_shape.h"        // IWYU pragma: export
#include "lazax/api/ops_sort.h"         // IWYU pragma: export
