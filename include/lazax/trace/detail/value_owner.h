// ValueOwner: how a function trace gets an owning pointer to a value it must keep alive, without
// LazyValue deriving from enable_shared_from_this (speed machinery behind trace/lazy_value.h).
#pragma once
#include <memory>

namespace lazax {

class LazyValue;

// How to get a shared_ptr that owns a LazyValue, used only when a function trace must keep the
// value alive (lifting it as a capture, recording its rebinding). Values are held as
// shared_ptrs of a derived class (the API's handles), which converting on every use would cost
// a reference count; nor does LazyValue derive from enable_shared_from_this, whose weak
// reference would cost atomic operations on every handle made and freed.
class ValueOwner {
 public:
  template <class T>
  explicit ValueOwner(const std::shared_ptr<T>& p)
      : p_(&p), get_([](const void* q) -> std::shared_ptr<LazyValue> {
          return *static_cast<const std::shared_ptr<T>*>(q);
        }) {}
  std::shared_ptr<LazyValue> get() const { return get_(p_); }

 private:
  const void* p_;
  std::shared_ptr<LazyValue> (*get_)(const void*);
};

}  // namespace lazax
