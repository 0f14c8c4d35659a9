// The dist layer's process state (private): whether MPI runs, this rank, the group
// communicators, the collective sequence numbers and the options dist::init read.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>

namespace lazax::dist::detail {

struct World {
  bool initialized = false;
  bool mpi = false;
  int rank = 0, size = 1;
  int64_t timeout_s = 300;
  bool check = true;
  bool overlap = true;  // start all_reduce and reduce_scatter (Request) instead of blocking
  std::map<int64_t, MPI_Comm> groups;  // group size -> its communicator (split once)
  std::map<int64_t, int64_t> calls;    // group size -> collectives run on it so far
};

// The state as it is (dist::init fills it in).
World& state();
// The state, after dist::init().
World& world();
// The communicator of this rank's group of `group` consecutive ranks (MPI runs, group > 1).
MPI_Comm group_comm(int64_t group);
// Raises DistError naming `what` when an MPI call returned an error code.
void check_mpi(int rc, const char* what);
// "[rank R/N] " (empty in a world of one).
std::string rank_prefix();

}  // namespace lazax::dist::detail
