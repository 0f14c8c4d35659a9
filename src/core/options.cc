// Options::from_env: the one place lazax reads its environment (core/options.h).
#include "lazax/core/options.h"

#include <cstdlib>
#include <string_view>

#include "lazax/core/error.h"

namespace lazax {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read once, at start
  return v && *v ? v : nullptr;
}

[[noreturn]] void bad(const char* name, const char* value, const char* wants) {
  throw ValueError("[options] " + std::string(name) + "='" + value + "' is not " + wants +
                   "; set it to " + wants + " or unset it");
}

int64_t integer(const char* name, const char* value, int64_t lo, int64_t hi, const char* wants) {
  char* end = nullptr;
  const long long v = std::strtoll(value, &end, 10);
  if (end == value || *end != '\0' || v < lo || v > hi) bad(name, value, wants);
  return v;
}

bool flag(const char* name, const char* value) {
  const std::string_view v = value;
  if (v == "0" || v == "false") return false;
  if (v == "1" || v == "true") return true;
  bad(name, value, "0 or 1");
}

}  // namespace

Options Options::from_env() {
  Options o;
  if (const char* v = env("LAZAX_DEBUG")) o.debug = flag("LAZAX_DEBUG", v);
  if (const char* v = env("LAZAX_MAX_PENDING_NODES")) {
    o.max_pending_nodes =
        integer("LAZAX_MAX_PENDING_NODES", v, 1, INT64_MAX, "a positive number of nodes");
  }
  if (const char* v = env("LAZAX_CHECK_PURE")) o.check_pure = flag("LAZAX_CHECK_PURE", v);
  if (const char* v = env("LAZAX_BACKEND")) {
    const std::string_view b = v;
    if (b != "cpu" && b != "reference" && b != "null") bad("LAZAX_BACKEND", v, "cpu or reference");
    o.backend = v;
  }
  if (const char* v = env("LAZAX_NUM_THREADS")) {
    o.num_threads =
        static_cast<int>(integer("LAZAX_NUM_THREADS", v, 1, 4096, "a positive thread count"));
  }
  if (const char* v = env("LAZAX_DUMP_DIR")) o.dump_dir = v;
  if (const char* v = env("LAZAX_BUFFER_CACHE_BYTES")) {
    o.buffer_cache_bytes =
        integer("LAZAX_BUFFER_CACHE_BYTES", v, 0, INT64_MAX, "a number of bytes (0: no cache)");
  }
  if (const char* v = env("LAZAX_CALL_SITES")) o.call_sites = flag("LAZAX_CALL_SITES", v);
  if (const char* v = env("LAZAX_CPU_PROFILE")) {
    const std::string_view p = v;
    if (p != "0" && p != "1" && p != "ops") bad("LAZAX_CPU_PROFILE", v, "1 or ops (0: off)");
    o.cpu_profile = p == "ops" ? CpuProfile::ops : p == "1" ? CpuProfile::kinds : CpuProfile::off;
  }
  for (const char* launcher : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (env(launcher)) o.launched_by_mpi = true;
  if (const char* v = env("LAZAX_DIST_TIMEOUT_S")) {
    o.dist_timeout_s = integer("LAZAX_DIST_TIMEOUT_S", v, 1, int64_t{7} * 24 * 3600,
                               "a positive number of seconds");
  }
  if (const char* v = env("LAZAX_DIST_CHECK")) o.dist_check = flag("LAZAX_DIST_CHECK", v);
  if (const char* v = env("LAZAX_DIST_OVERLAP")) o.dist_overlap = flag("LAZAX_DIST_OVERLAP", v);
  return o;
}

}  // namespace lazax
