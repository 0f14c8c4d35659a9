// SharedAttrs made by a thread-local destructor that runs after the intern table's (thread
// exit, or the main thread's exit before static destructors) get blocks of their own; a new
// thread takes over an exited thread's table instead of interning its values again.
#include <gtest/gtest.h>

#include <thread>

#include "lazax/ir/shared_attrs.h"

namespace lazax {
namespace {

struct RecordsAtExit {
  bool armed = false;
  ~RecordsAtExit() {
    if (!armed) return;
    // As a user object (a cache, a model, a logger) whose destructor records an op would.
    for (int64_t i = 0; i < 300; ++i) {
      SharedAttrs a = SliceAttrs{{i + 1000000}, {i + 1000001}, {1}};
      (void)a;
    }
  }
};

TEST(SharedAttrsAtExit, MadeAfterTheThreadsTableIsGone) {
  std::thread t([] {
    thread_local RecordsAtExit late;  // constructed first, so destroyed after the table
    late.armed = true;
    SharedAttrs first = SliceAttrs{{1}, {2}, {1}};  // the table comes to life here
    (void)first;
  });
  t.join();
  SUCCEED();
}

TEST(SharedAttrsAtExit, ANewThreadTakesOverAnExitedThreadsTable) {
  auto intern = [] {
    SharedAttrs a = PadAttrs{{3, 1}, {4, 1}, {0, 0}};
    EXPECT_TRUE(a.interned());
  };
  std::thread(intern).join();
  const int64_t n = SharedAttrs::interned_count();
  std::thread(intern).join();  // finds the value in the table it took over
  EXPECT_EQ(SharedAttrs::interned_count(), n);
}

}  // namespace
}  // namespace lazax
