// Call sites of traced ops (call_site.h): the stack's return addresses, interned; resolved to
// source lines through elfutils' libdw (Debian's libdw-dev), which reads the line tables and the
// inlined-call records of every loaded module, so a call through an inline wrapper (an operator
// in a lazax header) resolves to the user's line that wrote it.
#include "lazax/trace/call_site.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <execinfo.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lazax/core/hash.h"

namespace lazax {
namespace {

// Enough to reach the caller's frame from the op's: make_node, record, record_op, the op, then
// inline wrappers and the caller; past that the trace machinery's frames.
constexpr int kMaxFrames = 12;
constexpr size_t kMaxStacks = size_t{1} << 20;  // past this many distinct stacks, ids are 0

std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> on{false};  // (Options::call_sites, applied by the Context)
  return on;
}

struct StackTable {
  std::mutex mu;
  std::vector<std::vector<uintptr_t>> stacks{{}};  // id 0: none
  std::unordered_multimap<uint64_t, uint32_t> by_hash;
  std::unordered_map<uint32_t, std::string> resolved;
};
StackTable& table() {
  static auto* t = new StackTable;  // (never destroyed: traces may run in static destructors)
  return *t;
}

// --- resolving: one Dwfl session over this process's modules, made on first use.

struct Frame {
  std::string file;  // as the line table names it; empty where there is none
  int line = 0;
  std::string function;  // demangled, where `file` is empty
};

std::string demangle(const char* name) {
  if (!name) return {};
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> d(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(name);
}

// Line tables are read from the loaded files themselves, never looked up elsewhere: the
// standard lookup asks debuginfod servers (DEBUGINFOD_URLS) for a file without them, which could
// block a print on the network.
int no_separate_debuginfo(Dwfl_Module* /*mod*/, void** /*userdata*/, const char* /*modname*/,
                          Dwarf_Addr /*base*/, const char* /*file_name*/,
                          const char* /*debuglink_file*/, GElf_Word /*debuglink_crc*/,
                          char** /*debuginfo_file_name*/) {
  return -1;
}

class Resolver {
 public:
  Resolver() {
    callbacks_.find_elf = dwfl_linux_proc_find_elf;
    callbacks_.find_debuginfo = no_separate_debuginfo;
    dwfl_ = dwfl_begin(&callbacks_);
    if (!dwfl_) return;
    dwfl_report_begin(dwfl_);
    const bool ok = dwfl_linux_proc_report(dwfl_, getpid()) == 0;
    dwfl_report_end(dwfl_, nullptr, nullptr);
    if (!ok) {
      dwfl_end(dwfl_);
      dwfl_ = nullptr;
    }
  }
  ~Resolver() {
    if (dwfl_) dwfl_end(dwfl_);
  }
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  // The source frames of one return address, innermost first: the line table's location, then
  // the call site of each enclosing inlined call.
  std::vector<Frame> frames(uintptr_t return_address) const {
    std::vector<Frame> out;
    if (!dwfl_ || return_address == 0) return out;
    const Dwarf_Addr pc = return_address - 1;  // inside the call instruction
    Dwfl_Module* mod = dwfl_addrmodule(dwfl_, pc);
    if (!mod) return out;
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = dwfl_module_addrdie(mod, pc, &bias);
    Dwfl_Line* line = cu ? dwfl_module_getsrc(mod, pc) : nullptr;
    int lineno = 0;
    const char* file =
        line ? dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr) : nullptr;
    if (!file) {
      out.push_back({"", 0, demangle(dwfl_module_addrname(mod, pc))});
      return out;
    }
    // A file named relative to its compilation directory (as under ccache's base_dir) is made
    // absolute, so that lazax's own sources are told apart by their place.
    Dwarf_Attribute dir_attr;
    const char* comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &dir_attr));
    auto absolute = [comp_dir](const char* name) {
      return name[0] == '/' || !comp_dir ? std::string(name) : std::string(comp_dir) + "/" + name;
    };
    out.push_back({absolute(file), lineno, {}});
    Dwarf_Die* scopes = nullptr;
    const int n = dwarf_getscopes(cu, pc - bias, &scopes);
    Dwarf_Files* files = nullptr;
    size_t nfiles = 0;
    const bool have_files = dwarf_getsrcfiles(cu, &files, &nfiles) == 0;
    for (int i = 0; i < n; ++i) {
      if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
      Dwarf_Attribute attr;
      Dwarf_Word file_index = 0;
      Dwarf_Word call_line = 0;
      if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &file_index) != 0 ||
          dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &call_line) != 0)
        continue;
      const char* call_file = have_files && file_index < nfiles
                                  ? dwarf_filesrc(files, file_index, nullptr, nullptr)
                                  : nullptr;
      if (call_file) out.push_back({absolute(call_file), static_cast<int>(call_line), {}});
    }
    std::free(scopes);  // NOLINT(cppcoreguidelines-no-malloc): libdw allocates with malloc
    return out;
  }

 private:
  Dwfl_Callbacks callbacks_{};
  Dwfl* dwfl_ = nullptr;
};

// lazax's source tree, absolute (CMake defines it for this file: __FILE__ may be relative, as
// under ccache's base_dir).
constexpr std::string_view kSourceRoot = LAZAX_SOURCE_ROOT;

// Frames that are lazax's machinery or the standard library's, not the code that called them.
// The nn layer's modules count as user code: their lines say where in a model a value was made.
bool internal(const Frame& f) {
  if (f.file.empty()) {
    const std::string_view fn = f.function;
    if (fn.empty() || fn.starts_with("std::") || fn.starts_with("__")) return true;
    return fn.starts_with("lazax::") && !fn.starts_with("lazax::nn::");
  }
  return detail::lazax_internal_file(f.file);
}

std::string describe(const Frame& f) {
  if (f.file.empty()) return f.function.substr(0, f.function.find('('));
  const size_t slash = f.file.rfind('/');
  return (slash == std::string::npos ? f.file : f.file.substr(slash + 1)) + ":" +
         std::to_string(f.line);
}

}  // namespace

bool detail::lazax_internal_file(std::string_view path) {
  // (A line table may name a file relative to its build directory: ".../build/../src/x.cc".)
  const std::string normal = std::filesystem::path(path).lexically_normal().string();
  const std::string_view file = normal;
  if (file.starts_with("/usr/include/c++/")) return true;
  // lazax's headers wherever they are (the source tree, the build's per-layer include
  // directories, an installed prefix): ".../lazax/<layer>/..." and lazax/lazax.h.
  for (std::string_view layer : {"api/", "autodiff/", "backend/", "core/", "io/", "ir/", "optim/",
                                 "passes/", "runtime/", "trace/", "lazax.h"}) {
    const size_t at = file.find("lazax/" + std::string(layer));
    if (at != std::string_view::npos && (at == 0 || file[at - 1] == '/')) return true;
  }
  // lazax's sources: under its source root, or (an object compiled in another checkout of the
  // same sources, as a shared compiler cache hands out) a ".../src/<dir>/<file>" that this
  // checkout has too.
  std::string_view rel;
  if (file.starts_with(kSourceRoot)) {
    rel = file.substr(kSourceRoot.size());
  } else if (const size_t at = file.rfind("/src/"); at != std::string_view::npos) {
    rel = file.substr(at + 1);
    if (!std::filesystem::exists(std::string(kSourceRoot) + std::string(rel))) return false;
  }
  return rel.starts_with("src/") && !rel.starts_with("src/nn/");
}

namespace {
thread_local uint32_t t_inherited = 0;
thread_local bool t_capture = false;
}  // namespace

CallSiteCapture::CallSiteCapture() : previous_(t_capture) { t_capture = true; }
CallSiteCapture::~CallSiteCapture() { t_capture = previous_; }

InheritedCallSite::InheritedCallSite(uint32_t id) : previous_(t_inherited) {
  if (id != 0) t_inherited = id;
}
InheritedCallSite::~InheritedCallSite() { t_inherited = previous_; }
uint32_t InheritedCallSite::current() { return t_inherited; }

bool call_sites_enabled() { return enabled_flag().load(std::memory_order_relaxed); }
void set_call_sites_enabled(bool on) { enabled_flag().store(on, std::memory_order_relaxed); }

uint32_t capture_call_site() {
  if (t_inherited != 0) return t_inherited;
  if (!t_capture && !call_sites_enabled()) return 0;
  std::array<void*, kMaxFrames + 1> raw{};
  const int n = backtrace(raw.data(), static_cast<int>(raw.size()));
  std::array<uintptr_t, kMaxFrames> pcs{};
  const size_t len = n > 1 ? static_cast<size_t>(n - 1) : 0;
  for (size_t i = 0; i < len; ++i)  // (frame 0 is this function)
    pcs[i] = reinterpret_cast<uintptr_t>(raw[i + 1]);
  const uint64_t h = hash_bytes(pcs.data(), len * sizeof(uintptr_t));
  StackTable& t = table();
  std::lock_guard lock(t.mu);
  auto [lo, hi] = t.by_hash.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    const std::vector<uintptr_t>& s = t.stacks[it->second];
    if (s.size() == len && std::equal(s.begin(), s.end(), pcs.begin())) return it->second;
  }
  if (t.stacks.size() >= kMaxStacks) return 0;
  const auto id = static_cast<uint32_t>(t.stacks.size());
  t.stacks.emplace_back(pcs.begin(), pcs.begin() + static_cast<std::ptrdiff_t>(len));
  t.by_hash.emplace(h, id);
  return id;
}

std::string call_site_location(uint32_t id) {
  if (id == 0) return {};
  StackTable& t = table();
  std::lock_guard lock(t.mu);
  if (id >= t.stacks.size()) return {};
  if (auto it = t.resolved.find(id); it != t.resolved.end()) return it->second;
  // (Under the table's lock: libdw's session is not thread-safe. Never destroyed, as the table.)
  static const Resolver* resolver = new Resolver;
  std::string where;
  for (uintptr_t ra : t.stacks[id]) {
    for (const Frame& f : resolver->frames(ra)) {
      if (!internal(f)) {
        where = describe(f);
        break;
      }
    }
    if (!where.empty()) break;
  }
  t.resolved.emplace(id, where);
  return where;
}

}  // namespace lazax
