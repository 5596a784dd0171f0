#include "wk/core/rung.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <mutex>

#include "core/tuning.hpp"
#include "wk/core/error.hpp"

namespace wk {

std::string rung_names(std::span<const RungInfo> rungs) {
  std::string names;
  for (const auto& r : rungs) names += (names.empty() ? "" : ", ") + std::string(r.name);
  return names;
}

void check_rung_name(std::string_view op, std::span<const RungInfo> rungs, std::string_view name) {
  for (const auto& r : rungs)
    if (name == r.name) return;
  throw Error(ErrorCategory::usage,
              std::string(op) + ": unknown rung '" + std::string(name) + "' (known: " + rung_names(rungs) + ")");
}

namespace detail {

int current_sm() {
  constexpr int kMaxDevices = 64;
  static std::array<int, kMaxDevices> cache{};  // 0: not asked yet; -1: no usable device
  static std::mutex mutex;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
    cudaGetLastError();
    return 0;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  if (cache[device] == 0) {
    int major = 0, minor = 0;
    const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess;
    if (!ok) cudaGetLastError();
    cache[device] = ok ? 10 * major + minor : -1;
  }
  return cache[device] < 0 ? 0 : cache[device];
}

}  // namespace detail
}  // namespace wk
