// Devices and memory kinds. Only the CPU exists for now; `host` memory is where offloaded
// residuals live (on the CPU it is the same RAM, kept apart so that plans and metrics show it).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace lazax {

enum class DeviceKind : uint8_t { cpu };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  std::string str() const { return "cpu:" + std::to_string(index); }
  friend bool operator==(const Device&, const Device&) = default;
};

enum class MemoryKind : uint8_t { device, host };

inline std::string_view memory_kind_name(MemoryKind k) {
  return k == MemoryKind::device ? "device" : "host";
}
inline std::optional<MemoryKind> memory_kind_from_name(std::string_view s) {
  if (s == "device") return MemoryKind::device;
  if (s == "host") return MemoryKind::host;
  return std::nullopt;
}

}  // namespace lazax
