// Generators and the random factories (rand, randn, randint, manual_seed): random_bits on the
// generator's key, then plain elementwise ops turn the bits into the wanted distribution.
#include "lazax/api/random.h"

#include <cmath>
#include <string>

#include "lazax/api/tensor_impl.h"

namespace lazax {
namespace {

// A structural constant (never changes, so it may be folded): unlike host_scalar's data leaves.
Tensor constant(double v, DType t) {
  return record_op(OpCode::constant, {}, ConstantAttrs{Literal::scalar_of(t, v)});
}

Tensor make_key(uint64_t seed) {
  return Tensor(Literal::from_vector<int64_t>({static_cast<int64_t>(seed), 0}, Shape{2}));
}

void require_floating(DType t, const std::vector<int64_t>& shape, const char* op) {
  if (!is_floating(t))
    throw DTypeError(std::string("[") + op + "] makes floating numbers, not " +
                     std::string(dtype_name(t)) + vec_str(shape) + "; use randint for integers");
}

// i32 bits -> f64 uniform in [0, 1): (b + 2^31) * 2^-32, exact in f64 and at most 1 - 2^-32.
Tensor unit_f64(const Tensor& bits) {
  return (bits.to(DType::f64) + constant(2147483648.0, DType::f64)) *
         constant(std::ldexp(1.0, -32), DType::f64);
}

// The largest value below 1 in a floating dtype (rounding to a narrower type can give 1).
double largest_below_one(DType t) {
  switch (t) {
    case DType::f16:
      return 1.0 - std::ldexp(1.0, -11);
    case DType::bf16:
      return 1.0 - std::ldexp(1.0, -8);
    case DType::f32:
      return 1.0 - std::ldexp(1.0, -24);
    default:
      return 1.0 - std::ldexp(1.0, -53);
  }
}

}  // namespace

Generator::Generator(uint64_t seed) : seed_(seed), key_(make_key(seed)) {}

void Generator::manual_seed(uint64_t seed) {
  seed_ = seed;
  // Rebind the key's handle in place: traces that captured it see the change as a write.
  key_.impl()->set_data(Literal::from_vector<int64_t>({static_cast<int64_t>(seed), 0}, Shape{2}));
}

Literal Generator::get_state() const { return key_.literal().clone(); }

void Generator::set_state(const Literal& state) {
  if (state.dtype() != DType::i64 || state.shape() != Shape{2}) {
    throw ValueError(
        "[Generator::set_state] the state must be i64[2] (seed, counter) as "
        "get_state() gives it, got " +
        state.type.str());
  }
  seed_ = static_cast<uint64_t>(state.data<int64_t>()[0]);
  key_.impl()->set_data(state.clone());
}

Tensor Generator::bits(const std::vector<int64_t>& shape, DType dtype) {
  // Records (or throws, changing nothing) before the key moves on.
  std::vector<Tensor> outs =
      record_op(OpCode::random_bits, {key_}, RandomBitsAttrs{Shape(shape), dtype});
  // In place, so that a pure function using the generator writes the new key back after each call.
  key_.impl()->set_pending(outs[1].impl()->pending(), ValueOwner(key_.impl_ptr()));
  return outs[0];
}

Tensor Generator::uniform(const std::vector<int64_t>& shape, DType dtype) {
  require_floating(dtype, shape, "rand");
  Tensor u = unit_f64(bits(shape, DType::i32)).to(dtype);
  if (dtype == DType::f64) return u;
  return minimum(u, constant(largest_below_one(dtype), dtype));
}

Tensor Generator::normal(const std::vector<int64_t>& shape, DType dtype) {
  require_floating(dtype, shape, "randn");
  // Box-Muller on two uniforms from one draw; 1 - u1 is in (0, 1], so the log is finite.
  std::vector<int64_t> two = shape;
  two.insert(two.begin(), 2);
  Tensor u = unit_f64(bits(two, DType::i32));
  Tensor u1 = select(u, 0, 0), u2 = select(u, 0, 1);
  Tensor radius = sqrt(constant(-2.0, DType::f64) * log(1.0 - u1));
  Tensor z = radius * cos(constant(2.0 * M_PI, DType::f64) * u2);
  return z.to(dtype);
}

Tensor Generator::randint(int64_t low, int64_t high, const std::vector<int64_t>& shape) {
  if (high <= low)
    throw ValueError("[randint] needs low < high, got low " + std::to_string(low) + " and high " +
                     std::to_string(high) + " for shape " + vec_str(shape));
  // A 53-bit uniform from i64 bits, scaled to the range: exact for ranges below 2^52 up to the
  // (negligible) rounding bias of the scaling.
  const double range =
      static_cast<double>(static_cast<uint64_t>(high) - static_cast<uint64_t>(low));
  Tensor u = (bits(shape, DType::i64).to(DType::f64) + constant(std::ldexp(1.0, 63), DType::f64)) *
             constant(std::ldexp(1.0, -64), DType::f64);
  u = minimum(u, constant(largest_below_one(DType::f64), DType::f64));
  Tensor k = (u * host_scalar(range, DType::f64)).to(DType::i64);  // >= 0: truncation is floor
  return low == 0 ? k : k + Tensor(Literal::scalar<int64_t>(low));
}

Generator& default_generator() {
  static Generator* g = new Generator();  // lives for the whole process, like the Context
  return *g;
}

Tensor randn(const std::vector<int64_t>& shape, DType dtype) {
  return default_generator().normal(shape, dtype);
}
Tensor rand(const std::vector<int64_t>& shape, DType dtype) {
  return default_generator().uniform(shape, dtype);
}
Tensor randint(int64_t low, int64_t high, const std::vector<int64_t>& shape) {
  return default_generator().randint(low, high, shape);
}
void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace lazax
