// lazax's configuration, in one struct. Each field is set by one LAZAX_* environment variable
// (docs/OPTIONS.md has the table); `Options::from_env` is the only place the environment is
// read. The runtime's Context reads it once, when it is created, and hands each value to the
// layer that uses it; code changes it with Context::set_options (lazax/runtime/context.h).
#pragma once
#include <cstdint>
#include <string>

namespace lazax {

// LAZAX_CPU_PROFILE: the cpu backend's kernel time, printed to stderr at exit.
enum class CpuProfile : uint8_t {
  off,
  kinds,  // "1": per kernel kind (gemm, fused, reduce, layout, indexing, fallback:<op>)
  ops,    // "ops": each kind split by op and result type
};

struct Options {
  // Read where they are used (Context::options() may change them at any time).
  bool debug = false;                  // LAZAX_DEBUG=1: explain cache misses and graph breaks
  int64_t max_pending_nodes = 100000;  // LAZAX_MAX_PENDING_NODES: sync a graph grown past this
  bool check_pure = false;  // LAZAX_CHECK_PURE=1: assume_pure/jit objects made from now re-trace
                            // each call and raise ImpureFunctionError when the program changed

  // Handed to the layers below the runtime by Context::set_options (and at its creation).
  std::string backend = "cpu";  // LAZAX_BACKEND: cpu, reference (the oracle) or null
  int num_threads = 0;          // LAZAX_NUM_THREADS: the cpu backend's pool; 0: one per core
  std::string dump_dir;  // LAZAX_DUMP_DIR: each compiled program and each pass's result (.lzir)
  int64_t buffer_cache_bytes = -1;  // LAZAX_BUFFER_CACHE_BYTES: freed blocks kept; -1: automatic
  bool call_sites = false;          // LAZAX_CALL_SITES=1: every trace keeps its ops' source lines
  CpuProfile cpu_profile = CpuProfile::off;  // LAZAX_CPU_PROFILE=1 or ops

  // Read by dist::init (lazax/dist/dist.h), before any Context exists.
  // Set when a launcher started the process (mpirun sets OMPI_COMM_WORLD_SIZE, Slurm's srun
  // PMI_SIZE or PMIX_RANK): dist::init then starts MPI; without it the world is one process.
  bool launched_by_mpi = false;
  int64_t dist_timeout_s = 300;  // LAZAX_DIST_TIMEOUT_S: a rank that waits longer at a collective
                                 // for the others ends the job, naming the ranks that are late
  bool dist_check = true;        // LAZAX_DIST_CHECK=0: skip the check that every rank runs the same
                                 // collective (op, dtype, shape) before the data moves
  bool dist_overlap = true;      // LAZAX_DIST_OVERLAP=0: the cpu backend's all_reduce and
                                 // reduce_scatter block where they stand instead of starting
                                 // early (MPI's nonblocking call) and being waited for at their
                                 // first reader

  // The defaults, overridden by each LAZAX_* variable that is set. A value that does not parse
  // is a ValueError naming the variable and what it accepts.
  static Options from_env();
};

}  // namespace lazax
