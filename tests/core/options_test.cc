// Options::from_env (core/options.h): each LAZAX_* variable sets its field; a value that does not
// parse is a ValueError naming the variable.
#include "lazax/core/options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "lazax/core/error.h"

using namespace lazax;

namespace {

// Sets a variable for one scope and restores what it was (the tests run in any order).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Options, EachVariableSetsItsField) {
  ScopedEnv a("LAZAX_DEBUG", "1"), b("LAZAX_MAX_PENDING_NODES", "123"), c("LAZAX_CHECK_PURE", "1"),
      d("LAZAX_BACKEND", "reference"), e("LAZAX_NUM_THREADS", "3"), f("LAZAX_DUMP_DIR", "/tmp/x"),
      g("LAZAX_BUFFER_CACHE_BYTES", "0"), h("LAZAX_CALL_SITES", "1"), i("LAZAX_CPU_PROFILE", "ops");
  const Options o = Options::from_env();
  EXPECT_TRUE(o.debug);
  EXPECT_EQ(o.max_pending_nodes, 123);
  EXPECT_TRUE(o.check_pure);
  EXPECT_EQ(o.backend, "reference");
  EXPECT_EQ(o.num_threads, 3);
  EXPECT_EQ(o.dump_dir, "/tmp/x");
  EXPECT_EQ(o.buffer_cache_bytes, 0);
  EXPECT_TRUE(o.call_sites);
  EXPECT_EQ(o.cpu_profile, CpuProfile::ops);
}

TEST(Options, UnsetOrEmptyVariablesKeepTheDefaults) {
  ScopedEnv a("LAZAX_BACKEND", ""), b("LAZAX_DEBUG", "0"), c("LAZAX_CPU_PROFILE", "1");
  const Options o = Options::from_env(), def;
  EXPECT_EQ(o.backend, def.backend);
  EXPECT_FALSE(o.debug);
  EXPECT_EQ(o.cpu_profile, CpuProfile::kinds);
}

TEST(Options, ABadValueNamesTheVariable) {
  const std::pair<const char*, const char*> bad[] = {
      {"LAZAX_BACKEND", "tpu"},           {"LAZAX_NUM_THREADS", "0"},
      {"LAZAX_NUM_THREADS", "four"},      {"LAZAX_MAX_PENDING_NODES", "-5"},
      {"LAZAX_BUFFER_CACHE_BYTES", "1x"}, {"LAZAX_DEBUG", "yes"},
      {"LAZAX_CPU_PROFILE", "all"},
  };
  for (const auto& [name, value] : bad) {
    ScopedEnv env(name, value);
    try {
      (void)Options::from_env();
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const ValueError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string(name) + "='" + value + "'"), std::string::npos) << m;
      EXPECT_NE(m.find("unset it"), std::string::npos) << m;
    }
  }
}

}  // namespace
