// lazax::dist: the processes of one job, on MPI (Debian's OpenMPI). Launch the same program with
// `mpirun -np N prog` (or Slurm's `srun`); each process is a rank. Without a launcher the world is
// one process, MPI is not started, and every collective is the identity (docs/DISTRIBUTED.md).
//
//   lazax::dist::init();                      // optional: the first query or collective calls it
//   if (lazax::dist::rank() == 0) ...          // rank 0 writes files and logs
//   lazax::dist::log("step 3");                // "[rank 1/2] step 3" on stderr when N > 1
//
// Collectives on tensors are ops of the program (lazax/api/ops_collective.h: psum, all_gather...);
// the buffer-level calls they run are lazax/dist/collectives.h.
#pragma once
#include <string_view>

namespace lazax::dist {

// Starts MPI when a launcher started this process (Options::launched_by_mpi), else a world of
// one. Idempotent; the first rank(), world_size() or collective calls it. MPI is finalized at
// exit. Raises DistError when MPI does not start.
void init();
// Whether MPI runs (a launcher started the process and init() ran).
bool uses_mpi();
int rank();        // this process's rank, 0..world_size()-1 (0 in a world of one)
int world_size();  // the number of processes (1 without a launcher)
// Waits until every rank reached it (no-op in a world of one). DistError after the timeout.
void barrier();
// Writes `msg` and a newline to stderr, prefixed "[rank R/N] " when N > 1 (one write, so lines of
// different ranks do not interleave).
void log(std::string_view msg);
// Ends the whole job: writes "[rank R/N] <why>" to stderr and calls MPI_Abort, which makes mpirun
// stop every other rank and exit non-zero; in a world of one, exits with `code`. For an error one
// rank cannot recover from while the others may wait for it at a collective.
[[noreturn]] void abort_job(std::string_view why, int code = 1);

}  // namespace lazax::dist
