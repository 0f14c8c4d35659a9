#include "lazax/trace/detail/deferred_values.h"

namespace lazax {
namespace {
// Intrusive list in registration order (single-threaded, as the lazy trace).
DeferredValues* g_head = nullptr;
DeferredValues* g_tail = nullptr;
}  // namespace

DeferredValues::DeferredValues() { link(); }

void DeferredValues::link() {
  if (linked_) return;
  prev_ = g_tail;
  next_ = nullptr;
  if (g_tail)
    g_tail->next_ = this;
  else
    g_head = this;
  g_tail = this;
  linked_ = true;
}

DeferredValues::~DeferredValues() { unregister(); }

void DeferredValues::unregister() {
  if (!linked_) return;
  if (prev_)
    prev_->next_ = next_;
  else
    g_head = next_;
  if (next_)
    next_->prev_ = prev_;
  else
    g_tail = prev_;
  prev_ = next_ = nullptr;
  linked_ = false;
}

void materialize_deferred_values() {
  while (DeferredValues* d = g_head) {
    d->unregister();
    d->materialize();
  }
}

}  // namespace lazax
