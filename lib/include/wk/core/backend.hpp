#pragma once
// Backend selection, done once per run and passed down explicitly (no global state).
#include <string>
#include <string_view>
#include <vector>

namespace wk {

enum class Backend { cpu, gpu };
enum class DeviceChoice { automatic, gpu, cpu };

// "auto" | "gpu" | "cpu"; anything else throws wk::Error{usage}.
DeviceChoice parse_device_choice(std::string_view text);
const char* to_string(Backend b) noexcept;

// A list of GPUs: "all", or device ids like "0,2" (each at most once). With device_count >= 0
// the ids are checked against it and "all" gives 0 .. device_count-1; with device_count < 0
// (not known yet) "all" gives an empty list, meaning every visible device. Throws
// wk::Error{usage} naming the bad item.
std::vector<int> parse_gpu_list(std::string_view text, int device_count = -1);

// The id the user gave CUDA device `device` (labels[device]: an app whose --gpus showed the
// runtime only the GPUs named keeps their ids for messages and reports), or the device itself
// when it has no label.
inline int gpu_label(const std::vector<int>& labels, int device) {
  return device >= 0 && std::size_t(device) < labels.size() ? labels[std::size_t(device)] : device;
}

// What the CUDA runtime says about this machine. Never throws, never hangs: no GPU, no driver,
// a driver older than the runtime and a GPU this build has no code for all give usable=false
// with the reason.
struct GpuStatus {
  bool usable = false;
  int device_count = 0;
  std::string reason;  // why not usable
  std::string name;    // device 0's name when usable
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
};
GpuStatus probe_gpu();

// Makes the CUDA contexts of `devices` (ids; -1 entries are skipped) at once, a thread each, and
// waits for them. Run beside probe_gpu, the other devices start while device 0 is probed. (The
// runtime's own start, before any context, initializes every GPU it sees one after another:
// about 0.25 s each on an H200 machine; CUDA_VISIBLE_DEVICES limits what it sees.) Never
// throws: returns the first failure's text ("" when every context was made).
std::string start_contexts(const std::vector<int>& devices);

struct BackendSelection {
  Backend backend = Backend::cpu;
  std::string notice;  // one line for stderr when auto fell back to the CPU; empty otherwise
  GpuStatus gpu;
};

// automatic: the GPU when usable, else the CPU with a notice. gpu: throws wk::Error{unsupported}
// "no usable CUDA GPU (REASON)" when no GPU is usable (an app puts its option's name in front).
// cpu: always the CPU.
BackendSelection select_backend(DeviceChoice choice);

}  // namespace wk
