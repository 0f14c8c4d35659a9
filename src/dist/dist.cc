// dist::init and the world's queries (lazax/dist/dist.h).
#include "lazax/dist/dist.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "lazax/core/error.h"
#include "lazax/core/options.h"
#include "world.h"

namespace lazax::dist {
namespace detail {

World& state() {
  static World w;
  return w;
}

World& world() {
  World& w = state();
  if (!w.initialized) init();
  return w;
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw DistError("[dist] " + rank_prefix() + std::string(what) +
                  " failed: " + std::string(text, static_cast<size_t>(len)) +
                  "; another rank may have stopped (see its message above)");
}

std::string rank_prefix() {
  const World& w = world();
  if (w.size == 1) return {};
  return "[rank " + std::to_string(w.rank) + "/" + std::to_string(w.size) + "] ";
}

MPI_Comm group_comm(int64_t group) {
  World& w = world();
  if (group == w.size) return MPI_COMM_WORLD;
  auto it = w.groups.find(group);
  if (it != w.groups.end()) return it->second;
  // Every rank splits at its first collective on this group size: the same point in every
  // rank's program, as the collectives themselves.
  MPI_Comm c = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(w.rank / group), w.rank, &c),
            "MPI_Comm_split");
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  w.groups[group] = c;
  return c;
}

}  // namespace detail

namespace {

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

}  // namespace

void init() {
  detail::World& w = detail::state();
  if (w.initialized) return;
  const Options o = Options::from_env();
  w.timeout_s = o.dist_timeout_s;
  w.check = o.dist_check;
  w.overlap = o.dist_overlap;
  if (o.launched_by_mpi) {
    int already = 0;
    MPI_Initialized(&already);
    if (!already) {
      int provided = 0;
      // SERIALIZED: collectives run on whichever thread runs a program, one at a time.
      if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        throw DistError("[dist] init: MPI_Init_thread failed; is this process started by mpirun?");
      std::atexit(finalize_at_exit);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    w.mpi = true;
  }
  w.initialized = true;
}

bool uses_mpi() { return detail::world().mpi; }
int rank() { return detail::world().rank; }
int world_size() { return detail::world().size; }

void barrier() {
  detail::World& w = detail::world();
  if (!w.mpi || w.size == 1) return;
  MPI_Request req = MPI_REQUEST_NULL;
  detail::check_mpi(MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(w.timeout_s);
  for (int done = 0;;) {
    detail::check_mpi(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    if (std::chrono::steady_clock::now() > deadline) {
      abort_job("[dist] barrier: waited " + std::to_string(w.timeout_s) +
                " s (LAZAX_DIST_TIMEOUT_S) for the other ranks; one of them stopped or runs "
                "a different program");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void log(std::string_view msg) {
  std::string line = detail::rank_prefix();
  line += msg;
  line += '\n';
  // One write: lines of ranks sharing the terminal do not interleave.
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
}

void abort_job(std::string_view why, int code) {
  log(why);
  if (uses_mpi()) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace lazax::dist
