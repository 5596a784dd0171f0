#include "wk/core/backend.hpp"

#include <algorithm>
#include <future>
#include <string>

#include <cuda_runtime_api.h>

#include "wk/core/error.hpp"

namespace wk {

namespace detail {
// backend_probe.cu: runs a one-thread kernel on device 0 and reports the CUDA error, if any.
int probe_kernel_launch(std::string* reason);
}  // namespace detail

DeviceChoice parse_device_choice(std::string_view text) {
  if (text == "auto") return DeviceChoice::automatic;
  if (text == "gpu") return DeviceChoice::gpu;
  if (text == "cpu") return DeviceChoice::cpu;
  throw Error(ErrorCategory::usage, "the device choice must be auto, gpu or cpu, not '" + std::string(text) + "'");
}

std::vector<int> parse_gpu_list(std::string_view text, int device_count) {
  std::vector<int> ids;
  if (text == "all") {
    for (int i = 0; i < device_count; ++i) ids.push_back(i);
    if (device_count == 0) throw Error(ErrorCategory::usage, "GPU list 'all': no CUDA device is visible");
    return ids;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item(text.substr(pos, comma - pos));
    int id = -1;
    std::size_t used = 0;
    try {
      id = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || id < 0)
      throw Error(ErrorCategory::usage, "a GPU list is 'all' or device ids like 0,1; '" + item + "' is not a device id");
    if (device_count >= 0 && id >= device_count)
      throw Error(ErrorCategory::usage, "GPU " + std::to_string(id) + " does not exist (" + std::to_string(device_count) +
                                            " visible)");
    if (std::find(ids.begin(), ids.end(), id) != ids.end())
      throw Error(ErrorCategory::usage, "GPU " + std::to_string(id) + " is listed twice");
    ids.push_back(id);
    pos = comma + 1;
  }
  return ids;
}

const char* to_string(Backend b) noexcept { return b == Backend::gpu ? "gpu" : "cpu"; }

GpuStatus probe_gpu() {
  GpuStatus st;
  std::string reason;
  st.device_count = detail::probe_kernel_launch(&reason);
  if (!reason.empty()) {
    st.reason = reason;
    return st;
  }
  st.usable = true;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    st.name = prop.name;
    st.cc_major = prop.major;
    st.cc_minor = prop.minor;
    st.sm_count = prop.multiProcessorCount;
  }
  return st;
}

std::string start_contexts(const std::vector<int>& devices) {
  auto make = [](int device) -> std::string {
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaFree(nullptr);
    if (e == cudaSuccess) return {};
    (void)cudaGetLastError();
    return "GPU " + std::to_string(device) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  };
  std::vector<std::future<std::string>> made;
  for (int d : devices)
    if (d >= 0) made.push_back(std::async(std::launch::async, make, d));
  std::string failed;
  for (auto& m : made) {
    std::string why = m.get();
    if (failed.empty()) failed = std::move(why);
  }
  return failed;
}

BackendSelection select_backend(DeviceChoice choice) {
  BackendSelection sel;
  if (choice == DeviceChoice::cpu) return sel;
  sel.gpu = probe_gpu();
  if (sel.gpu.usable) {
    sel.backend = Backend::gpu;
    return sel;
  }
  if (choice == DeviceChoice::gpu)
    throw Error(ErrorCategory::unsupported, "no usable CUDA GPU (" + sel.gpu.reason + ")");
  sel.notice = "no usable CUDA GPU (" + sel.gpu.reason + "); running on the CPU";
  return sel;
}

}  // namespace wk
