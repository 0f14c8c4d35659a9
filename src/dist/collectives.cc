// The collectives on buffers (lazax/dist/collectives.h) as MPI calls on the group's
// communicator; a group of one is a local copy.
#include "lazax/dist/collectives.h"

#include <array>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>
#include <vector>

#include "lazax/core/error.h"
#include "lazax/core/metrics.h"
#include "lazax/dist/dist.h"
#include "world.h"

namespace lazax::dist {
namespace {

using detail::check_mpi;
using detail::group_comm;
using detail::world;

int as_count(int64_t n, std::string_view op) {
  if (n < 0 || n > INT_MAX) {
    throw ValueError("[" + std::string(op) + "] " + std::to_string(n) +
                     " elements in one collective; MPI counts are int: split the tensor into "
                     "pieces of at most 2^31-1 elements");
  }
  return static_cast<int>(n);
}

MPI_Datatype mpi_type(DType t, std::string_view op) {
  switch (t) {
    case DType::f32:
      return MPI_FLOAT;
    case DType::f64:
      return MPI_DOUBLE;
    case DType::i32:
      return MPI_INT32_T;
    case DType::i64:
      return MPI_INT64_T;
    case DType::u8:
      return MPI_UINT8_T;
    case DType::i8:
      return MPI_INT8_T;
    case DType::u32:
      return MPI_UINT32_T;
    default:
      throw DTypeError("[" + std::string(op) + "] reduces f32, f64 and integers, not " +
                       std::string(dtype_name(t)) + "; convert to f32 first");
  }
}

MPI_Op mpi_op(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum:
    case ReduceKind::mean:
      return MPI_SUM;
    case ReduceKind::max:
      return MPI_MAX;
    case ReduceKind::min:
      return MPI_MIN;
  }
  return MPI_SUM;
}

// mean: the sum divided by the group's size, in place.
void finish_mean(void* out, int64_t count, DType dtype, ReduceKind kind, int64_t group) {
  if (kind != ReduceKind::mean) return;
  if (dtype == DType::f32) {
    auto* p = static_cast<float*>(out);
    const auto g = static_cast<float>(group);
    for (int64_t i = 0; i < count; ++i) p[i] /= g;
  } else if (dtype == DType::f64) {
    auto* p = static_cast<double*>(out);
    const auto g = static_cast<double>(group);
    for (int64_t i = 0; i < count; ++i) p[i] /= g;
  } else {
    throw DTypeError("[all_reduce] mean of " + std::string(dtype_name(dtype)) +
                     " values; mean takes f32 or f64 (use sum for integers)");
  }
}

// Waits for `req`, polling, at most the timeout; past it ends the job (the request cannot be
// cancelled, and the other ranks may wait for this one).
void wait_or_abort(MPI_Request& req, const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::seconds(world().timeout_s);
  for (int spins = 0, done = 0;; ++spins) {
    check_mpi(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    if (spins > 2000) {
      if (std::chrono::steady_clock::now() > deadline) {
        abort_job("[dist] " + what + ": waited " + std::to_string(world().timeout_s) +
                  " s (LAZAX_DIST_TIMEOUT_S) for the other ranks of the group; one of them "
                  "stopped, is stuck, or runs a program with fewer collectives");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

void count_call(int64_t bytes) {
  metrics::counter("DistCollectives").add();
  metrics::counter("DistBytes").add(bytes);
}

// Adds the time from its construction to its end to DistTime: the time this rank spent blocked
// in collectives (waiting for the others included).
struct Blocked {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  Blocked() = default;
  ~Blocked() {
    metrics::timer("DistTime")
        .add_ns(std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - t0)
                    .count());
  }
  Blocked(const Blocked&) = delete;
  Blocked& operator=(const Blocked&) = delete;
};

// A blocking collective of `bytes`: counted, and its time added to DistTime.
struct Timed : Blocked {
  explicit Timed(int64_t bytes) { count_call(bytes); }
};

bool local(int64_t group) { return group == 1 || !world().mpi; }

void check_mean(DType dtype, ReduceKind kind, std::string_view op) {
  if (kind == ReduceKind::mean && dtype != DType::f32 && dtype != DType::f64) {
    throw DTypeError("[" + std::string(op) + "] mean of " + std::string(dtype_name(dtype)) +
                     " values; mean takes f32 or f64 (use sum for integers)");
  }
}

}  // namespace

struct Request::State {
  MPI_Request req = MPI_REQUEST_NULL;
  void* out = nullptr;
  int64_t count = 0, group = 1;
  DType dtype = DType::f32;
  ReduceKind kind = ReduceKind::sum;
  std::string what;
  bool done = false;
};

Request::Request() = default;
Request::Request(std::unique_ptr<State> s) : s_(std::move(s)) {}
Request::Request(Request&& other) noexcept = default;
Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    Request old(std::move(*this));  // waited for by its destructor
    s_ = std::move(other.s_);
  }
  return *this;
}
Request::~Request() {
  if (!s_) return;
  try {
    wait();
  } catch (const std::exception& e) {  // MPI failed with the buffers still in its hands
    abort_job(std::string("[dist] ") + e.what());
  }
}

bool Request::test() {
  if (!s_) return true;
  if (!s_->done) {
    int flag = 0;
    check_mpi(MPI_Test(&s_->req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    s_->done = flag != 0;
  }
  return s_->done;
}

void Request::wait() {
  if (!s_) return;
  std::unique_ptr<State> s = std::move(s_);
  if (!s->done) {
    Blocked blocked;  // the part of the collective that did not overlap this rank's work
    wait_or_abort(s->req, s->what);
  }
  finish_mean(s->out, s->count, s->dtype, s->kind, s->group);
}

namespace {

// A nonblocking reduction of `bytes` (counted as the blocking calls are): `issue` makes the MPI
// call that fills the request.
template <class Issue>
Request start(int64_t bytes, void* out, int64_t count, DType dtype, ReduceKind kind, int64_t group,
              std::string what, const Issue& issue) {
  count_call(bytes);
  metrics::counter("DistStarted").add();
  auto s = std::make_unique<Request::State>();
  s->out = out;
  s->count = count;
  s->group = group;
  s->dtype = dtype;
  s->kind = kind;
  s->what = std::move(what) + " of " + std::string(dtype_name(dtype));
  {
    Blocked blocked;
    issue(s->req);
  }
  return Request(std::move(s));
}

}  // namespace

Request start_all_reduce(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                         int64_t group) {
  check_mean(dtype, kind, "all_reduce");
  if (local(group) || !world().overlap) {
    all_reduce(in, out, count, dtype, kind, group);
    return {};
  }
  return start(
      count * static_cast<int64_t>(dtype_size(dtype)), out, count, dtype, kind, group,
      "all_reduce of " + std::to_string(count), [&](MPI_Request& req) {
        check_mpi(
            MPI_Iallreduce(in == out ? MPI_IN_PLACE : in, out, as_count(count, "all_reduce"),
                           mpi_type(dtype, "all_reduce"), mpi_op(kind), group_comm(group), &req),
            "MPI_Iallreduce");
      });
}

Request start_reduce_scatter(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                             int64_t group) {
  check_mean(dtype, kind, "reduce_scatter");
  if (local(group) || !world().overlap) {
    reduce_scatter(in, out, count, dtype, kind, group);
    return {};
  }
  return start(count * group * static_cast<int64_t>(dtype_size(dtype)), out, count, dtype, kind,
               group, "reduce_scatter of " + std::to_string(count * group), [&](MPI_Request& req) {
                 check_mpi(MPI_Ireduce_scatter_block(in, out, as_count(count, "reduce_scatter"),
                                                     mpi_type(dtype, "reduce_scatter"),
                                                     mpi_op(kind), group_comm(group), &req),
                           "MPI_Ireduce_scatter_block");
               });
}

int group_rank(int64_t group) { return static_cast<int>(world().rank % group); }

void check_group(std::string_view op, int64_t group) {
  const int n = world().size;
  if (group < 1 || n % group != 0) {
    throw ValueError("[" + std::string(op) + "] a replica group of " + std::to_string(group) +
                     " ranks in a world of " + std::to_string(n) +
                     ": the group size must divide the number of ranks (the program was "
                     "recorded for another world size; record it again in this one)");
  }
}

void check_agreement(int64_t group, std::span<const int64_t> signature,
                     const DescribeSignature& describe) {
  if (local(group)) return;
  auto& w = world();
  const int64_t seq = w.calls[group]++;
  if (!w.check) return;
  constexpr size_t kWords = kSignatureWords + 1;
  std::array<int64_t, kWords> mine{};
  mine.fill(-1);
  mine[0] = seq;
  for (size_t i = 0; i < signature.size() && i < kSignatureWords; ++i) mine[i + 1] = signature[i];
  std::vector<int64_t> all(kWords * static_cast<size_t>(group));
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallgather(mine.data(), static_cast<int>(kWords), MPI_INT64_T, all.data(),
                           static_cast<int>(kWords), MPI_INT64_T, group_comm(group), &req),
            "MPI_Iallgather");
  wait_or_abort(req, "collective #" + std::to_string(seq) + " (" + describe(signature) + ")");
  const int first = w.rank - group_rank(group);
  auto words_of = [&](size_t r) {
    return std::span<const int64_t>(all.data() + r * kWords + 1, signature.size());
  };
  std::string others;
  bool differ = false;
  for (size_t r = 0; r < static_cast<size_t>(group); ++r) {
    const int64_t* row = all.data() + r * kWords;
    if (std::memcmp(row, mine.data(), sizeof(mine)) == 0) continue;
    differ = true;
    others += "; rank " + std::to_string(first + static_cast<int>(r)) + " runs " +
              (row[0] == seq ? describe(words_of(r)) : "its collective #" + std::to_string(row[0]));
  }
  if (differ) {
    throw DistError("[dist] the ranks disagree at collective #" + std::to_string(seq) + ": rank " +
                    std::to_string(w.rank) + " runs " + describe(signature) + others +
                    ". Every rank must run the same collectives in the same order on the same "
                    "dtypes and shapes: record the same program on each (shard the data, not "
                    "the program)");
  }
}

void all_reduce(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                int64_t group) {
  const int64_t bytes = count * static_cast<int64_t>(dtype_size(dtype));
  if (local(group)) {
    if (out != in && bytes > 0) std::memcpy(out, in, static_cast<size_t>(bytes));
    return;
  }
  Timed timed(bytes);
  check_mpi(MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out, as_count(count, "all_reduce"),
                          mpi_type(dtype, "all_reduce"), mpi_op(kind), group_comm(group)),
            "MPI_Allreduce");
  finish_mean(out, count, dtype, kind, group);
}

void all_gather(const void* in, void* out, int64_t bytes, int64_t group) {
  if (local(group)) {
    if (bytes > 0) std::memcpy(out, in, static_cast<size_t>(bytes));
    return;
  }
  Timed timed(bytes * group);
  check_mpi(MPI_Allgather(in, as_count(bytes, "all_gather"), MPI_BYTE, out,
                          as_count(bytes, "all_gather"), MPI_BYTE, group_comm(group)),
            "MPI_Allgather");
}

void reduce_scatter(const void* in, void* out, int64_t count, DType dtype, ReduceKind kind,
                    int64_t group) {
  const int64_t bytes = count * static_cast<int64_t>(dtype_size(dtype));
  if (local(group)) {
    if (bytes > 0) std::memcpy(out, in, static_cast<size_t>(bytes));
    return;
  }
  Timed timed(bytes * group);
  check_mpi(
      MPI_Reduce_scatter_block(in, out, as_count(count, "reduce_scatter"),
                               mpi_type(dtype, "reduce_scatter"), mpi_op(kind), group_comm(group)),
      "MPI_Reduce_scatter_block");
  finish_mean(out, count, dtype, kind, group);
}

void broadcast(void* buf, int64_t bytes, int64_t root, int64_t group) {
  if (local(group)) return;
  Timed timed(bytes);
  check_mpi(MPI_Bcast(buf, as_count(bytes, "collective_broadcast"), MPI_BYTE,
                      static_cast<int>(root), group_comm(group)),
            "MPI_Bcast");
}

void all_to_all(const void* in, void* out, int64_t bytes, int64_t group) {
  if (local(group)) {
    if (bytes > 0) std::memcpy(out, in, static_cast<size_t>(bytes));
    return;
  }
  Timed timed(bytes * group);
  check_mpi(MPI_Alltoall(in, as_count(bytes, "all_to_all"), MPI_BYTE, out,
                         as_count(bytes, "all_to_all"), MPI_BYTE, group_comm(group)),
            "MPI_Alltoall");
}

}  // namespace lazax::dist
