// Profiler scopes: a thread-local path ("model/layer3/attn") that every recorded node keeps in its
// debug info. Scopes opened inside a traced function show up in its program, and the backward
// pass reopens each op's scope, so forward and backward nodes carry the same names.
#pragma once
#include <string>

namespace lazax {

// The current scope path (interned; null when none is open).
const char* current_scope();

class ProfilerScope {
 public:
  explicit ProfilerScope(const std::string& name);
  // Reopens a saved path as it was (used by the backward pass).
  static ProfilerScope restore(const char* path);
  ~ProfilerScope();
  ProfilerScope(ProfilerScope&& o) noexcept : previous_(o.previous_), active_(o.active_) {
    o.active_ = false;
  }
  ProfilerScope(const ProfilerScope&) = delete;
  ProfilerScope& operator=(const ProfilerScope&) = delete;

 private:
  ProfilerScope() = default;
  const char* previous_ = nullptr;
  bool active_ = false;
};

}  // namespace lazax
