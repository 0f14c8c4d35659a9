// Graph values held outside any tensor handle, which become pending values only if a sync comes
// while they are still held. assume_pure's residuals use it: the backward of a call usually
// consumes them before the next sync, so most of them never need a handle of their own (making,
// registering and freeing one handle per residual was most of the host cost of a call).
#pragma once

namespace lazax {

class DeferredValues {
 public:
  DeferredValues();  // registers
  struct Unlinked {};
  explicit DeferredValues(Unlinked) {}  // registers later (link())
  virtual ~DeferredValues();
  DeferredValues(const DeferredValues&) = delete;
  DeferredValues& operator=(const DeferredValues&) = delete;

  // Makes the held values pending values (tensor handles that sync finds). Called at most once,
  // by materialize_deferred_values(), after this object has left the registry.
  virtual void materialize() = 0;

 protected:
  // Leaves the registry (materialize() will not be called).
  void unregister();
  // Joins the registry (as the newest) unless already in it.
  void link();

 private:
  friend void materialize_deferred_values();
  DeferredValues* prev_ = nullptr;
  DeferredValues* next_ = nullptr;
  bool linked_ = false;
};

// Materializes every registered DeferredValues, oldest first. pending_values() calls it, so
// that sync sees the deferred values as ordinary pending values.
void materialize_deferred_values();

}  // namespace lazax
