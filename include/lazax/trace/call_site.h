// Where user code made a value: while capturing is on, each op recorded in a function trace
// (assume_pure, checkpoint, jit, grad) keeps the return addresses of the calls that led to it,
// interned as a small id (DebugInfo::call_site); lazy recording captures nothing. Capturing costs
// about 0.8 us per op (glibc's backtrace), so it is off unless asked for: saved_residuals traces
// its function again under a CallSiteCapture, and LAZAX_CALL_SITES=1 turns it on everywhere.
// Resolving an id to a source line reads the program's debug information (elfutils' libdw) and
// happens only when asked: `from model.cc:42`.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace lazax {

// An id for the current call stack; 0 where capturing is off. Thread-safe.
uint32_t capture_call_site();

// The first frame of the stack `id` outside lazax's own machinery (lazax's sources and headers,
// except the nn layer's, and the C++ standard library's headers), as "file.cc:42" (the file's
// name without its directory). Where that frame's code has no line table (built without -g): the
// function's name. "" for id 0, or where nothing is known.
std::string call_site_location(uint32_t id);

// While open, traced ops take `id` as their call site instead of capturing one: ops derived
// from another (a replayed program's nodes, a VJP rule's ops) say where their primal was made.
class InheritedCallSite {
 public:
  explicit InheritedCallSite(uint32_t id);
  ~InheritedCallSite();
  InheritedCallSite(const InheritedCallSite&) = delete;
  InheritedCallSite& operator=(const InheritedCallSite&) = delete;
  // The open one's id (0: none).
  static uint32_t current();

 private:
  uint32_t previous_;
};

// Capturing on in this thread while it is open.
class CallSiteCapture {
 public:
  CallSiteCapture();
  ~CallSiteCapture();
  CallSiteCapture(const CallSiteCapture&) = delete;
  CallSiteCapture& operator=(const CallSiteCapture&) = delete;

 private:
  bool previous_;
};

// Capturing on in every thread (Options::call_sites, LAZAX_CALL_SITES=1).
bool call_sites_enabled();
void set_call_sites_enabled(bool on);

namespace detail {
// Whether a source file is lazax's own machinery or the standard library's (not where a user
// made a value): lazax's headers wherever installed (".../lazax/<layer>/..." but nn), its src/
// but src/nn/, and /usr/include/c++. The path is normalized first (".../build/../src/x.cc").
bool lazax_internal_file(std::string_view path);
}  // namespace detail

}  // namespace lazax
