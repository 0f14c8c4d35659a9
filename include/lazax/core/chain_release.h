// Freeing long chains of shared_ptr-linked nodes (lazy graph nodes, autograd tape entries)
// without recursion. Dropping the head of a chain of N nodes would otherwise run N nested
// destructors: a graph of 100k ops (the default cut) or a long tape overflows the stack.
// A node's destructor frees its links directly while the nesting is shallow (enter()/leave(),
// up to kMaxDepth nested destructors: the common case, and the cheapest), and beyond that hands
// the links it held the last reference to to release_later(); the outermost destructor on the
// thread then frees those one by one (drain()), each freeing its own links the same way.
#pragma once
#include <memory>
#include <utility>
#include <vector>

namespace lazax {

template <class T>
class ChainRelease {
 public:
  static constexpr int kMaxDepth = 256;
  // Whether a destructor may free its links directly (then call leave() after doing so).
  static bool enter() {
    State& s = state();
    if (s.dead || s.depth >= kMaxDepth) return false;
    ++s.depth;
    return true;
  }
  static void leave() { --state().depth; }
  // What a node's destructor calls on its links (`ptr_of(link)`: the shared_ptr in each).
  template <class Links, class PtrOf>
  static void release_links(Links& links, PtrOf ptr_of) {
    if (enter()) {
      links.clear();
      leave();
    } else {
      for (auto& l : links) release_later(ptr_of(l));
    }
    drain();
  }
  // Takes `p` if it is the last reference (else drops it: someone else keeps the node alive).
  static void release_later(std::shared_ptr<T>& p) {
    if (!p) return;
    State& s = state();
    if (s.dead || p.use_count() != 1) {
      p.reset();
      return;
    }
    s.dying.push_back(std::move(p));
  }
  // Frees what release_later took, unless an outer destructor on this thread is already doing so.
  static void drain() {
    State& s = state();
    if (s.dead || s.draining || s.depth > 0) return;
    s.draining = true;
    while (!s.dying.empty()) {
      std::shared_ptr<T> p = std::move(s.dying.back());
      s.dying.pop_back();
      p.reset();  // its destructor may add more
    }
    s.draining = false;
  }

 private:
  struct State {
    std::vector<std::shared_ptr<T>> dying;
    bool draining = false;
    bool dead = false;
    int depth = 0;
    ~State() {
      draining = true;  // nodes freed from here on release their links directly
      dying.clear();
      dead = true;
    }
  };
  static State& state() {
    thread_local State s;
    return s;
  }
};

}  // namespace lazax
