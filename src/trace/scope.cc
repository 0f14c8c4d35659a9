#include "lazax/trace/scope.h"

#include "lazax/ir/function.h"

namespace lazax {
namespace {
thread_local const char* t_scope = nullptr;
}

const char* current_scope() { return t_scope; }

ProfilerScope::ProfilerScope(const std::string& name) : previous_(t_scope), active_(true) {
  t_scope = intern_string(t_scope ? std::string(t_scope) + "/" + name : name);
}

ProfilerScope ProfilerScope::restore(const char* path) {
  ProfilerScope s;
  s.previous_ = t_scope;
  s.active_ = true;
  t_scope = path;
  return s;
}

ProfilerScope::~ProfilerScope() {
  if (active_) t_scope = previous_;
}

}  // namespace lazax
