// Autocast (lazax/api/autocast.h): a thread-local dtype that matmul reads.
#include "lazax/api/autocast.h"

#include <string>

#include "lazax/core/error.h"

namespace lazax {
namespace {
thread_local DType g_autocast = DType::f32;
}  // namespace

Autocast::Autocast(DType dtype) : previous_(g_autocast) {
  if (dtype != DType::bf16 && dtype != DType::f32) {
    throw DTypeError("[autocast] supports bf16 (on) and f32 (off), got " +
                     std::string(dtype_name(dtype)) + "; use Autocast(DType::bf16)");
  }
  g_autocast = dtype;
}

Autocast::~Autocast() { g_autocast = previous_; }

DType autocast_dtype() { return g_autocast; }

}  // namespace lazax
