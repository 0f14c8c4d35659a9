// The collectives on contiguous buffers, over a replica group: the ranks are split into
// consecutive blocks of `group` ranks (group == world_size(): all of them; group 1: each rank by
// itself, a local copy). The interpreter's kernels of the collective primitives call these (the
// cpu backend's through them); they are not the user's API (lazax/api/ops_collective.h is).
//
// Every call first runs check_agreement (unless LAZAX_DIST_CHECK=0): the ranks of the group
// exchange a description of the call and raise DistError, all of them, when one differs, before
// any data moves; a rank that waits past LAZAX_DIST_TIMEOUT_S ends the job (dist::abort_job).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "lazax/core/dtype.h"
#include "lazax/core/reduce_kind.h"

namespace lazax::dist {

// This rank's index in its group of `group` consecutive ranks (rank() % group).
int group_rank(int64_t group);
// Raises ValueError unless `group` divides world_size() (and is positive), naming `op`.
void check_group(std::string_view op, int64_t group);

// What a call is, as at most kSignatureWords integers (op, dtype, shape, attributes), and how to
// print one for the error message. Checked equal on every rank of the group.
inline constexpr size_t kSignatureWords = 16;
using DescribeSignature = std::function<std::string(std::span<const int64_t>)>;
void check_agreement(int64_t group, std::span<const int64_t> signature,
                     const DescribeSignature& describe);

// out = the reduction over the group of every rank's `in` (count elements of dtype; f32, f64 and
// the integer dtypes; mean only for floats).
void all_reduce(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                int64_t group);
// out = the group's `in` blocks (bytes each) one after the other, by group rank.
void all_gather(const void* in, void* out, int64_t bytes, int64_t group);
// in holds `group` blocks of count elements; out = the reduction of block group_rank() over the
// group.
void reduce_scatter(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                    int64_t group);
// buf = the group root's buf (bytes).
void broadcast(void* buf, int64_t bytes, int64_t root, int64_t group);
// in holds `group` blocks of bytes each; block j goes to group rank j; out holds the block each
// rank sent to this one, by rank.
void all_to_all(const void* in, void* out, int64_t bytes, int64_t group);

// A collective started by start_all_reduce or start_reduce_scatter (MPI's nonblocking call) and
// not yet finished: the caller keeps `in` and `out` alive and unread until wait() returns. MPI
// moves a nonblocking collective on only inside MPI calls, so the caller calls test() now and
// then (the cpu backend: after each step). Destroying an unfinished Request waits for it.
// An inactive (default) Request has nothing to wait for.
class Request {
 public:
  struct State;
  Request();
  explicit Request(std::unique_ptr<State> s);
  Request(Request&& other) noexcept;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request();

  [[nodiscard]] bool active() const { return s_ != nullptr; }
  // Lets MPI move the collective on; true once it has finished (wait() then returns at once).
  bool test();
  // Waits for the collective (at most LAZAX_DIST_TIMEOUT_S, then ends the job) and finishes it
  // (mean's division); the Request is then inactive.
  void wait();

 private:
  std::unique_ptr<State> s_;
};

// all_reduce and reduce_scatter, started: the same checks and results as the blocking calls
// above, once wait() returns. A group of one, a world without MPI or LAZAX_DIST_OVERLAP=0 runs
// the blocking call and returns an inactive Request.
Request start_all_reduce(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                         int64_t group);
Request start_reduce_scatter(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                             int64_t group);

}  // namespace lazax::dist
