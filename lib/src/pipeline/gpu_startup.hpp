#pragma once
// FolderJobOptions::start_on_cpu: the GPU side of a folder job, started on a background thread
// while the workers take the first files on the CPU (internal to lib/src/pipeline).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/nvjpeg_encoder.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace wk::pipeline {

class JpegDecodeService;

// Shared by the job and the start-up thread, each holding a reference. When the job ends first it
// marks the start-up abandoned: the thread then makes nothing more and tells nothing more, and
// what it made (the decode services, the encoder libraries) ends with the last reference
// (end_gpu_startup, abandon_gpu_startup).
struct GpuStartup {
  enum class State { starting, ready, failed };
  std::mutex m;
  std::condition_variable cv;
  State state = State::starting;
  bool counted = false;     // cudaGetDeviceCount has answered (the GPU may still be starting)
  bool sides_made = false;  // services and encoder libraries exist (ready or not)
  bool abandoned = false;   // the job has ended
  std::vector<int> gpus;
  std::vector<bool> left;   // per worker: left the job before the sides were made
  std::map<int, std::unique_ptr<JpegDecodeService>> services;
  std::map<int, std::shared_future<std::shared_ptr<io::NvjpegLibrary>>> encode_libraries;
  double ready_s = -1;      // from the job's start
  std::string failure, gpu_name;
  std::function<void(const std::string&)> notice;  // the job's; called under m, never once abandoned
  std::thread thread;

  ~GpuStartup();
  void tell(const std::string& msg) {
    std::lock_guard<std::mutex> lock(m);
    if (!abandoned && notice) notice(msg);
  }
  int device_of(std::size_t worker) const { return gpus[worker % gpus.size()]; }
};

struct StartPlan {
  std::vector<int> gpus;  // empty: every GPU
  int workers = 1;
  bool nvjpeg_decode = false, nvjpeg_encode = false;
  int jpeg_batch = 64, jpeg_quality = 95;
  std::vector<std::filesystem::path> warm_jpegs;  // the job's first JPEG inputs (JpegDecodeService::Options)
  std::string pipeline_text;
  image::PipelineOptions pipeline_options;
  std::chrono::steady_clock::time_point t0;  // the job's start
  int share_index = 0, share_count = 1;       // FolderJobOptions::gpu_share_*
  std::vector<int> gpu_labels;                // FolderJobOptions::gpu_labels
  int gpu_label(int device) const { return wk::gpu_label(gpu_labels, device); }
};

// Starts the start-up thread: the device count (fast, also without a GPU: a job that ends early
// waits for this much only), the CUDA contexts and a probe launch (select_backend's checks), then
// per GPU the decode service (its thread makes the hardware decoder's handle and decodes a warm-up
// batch) and the encoder library, and one run of the pipeline and encoder on a small image (kernel
// modules, encoder kernels). Ready when all of that is. `notice` is the job's (under GpuStartup::m).
std::shared_ptr<GpuStartup> start_gpu_in_background(StartPlan plan, std::function<void(const std::string&)> notice);

// The job's end of the start-up: waits until the device count is known (a machine without a GPU
// always gets its notice), with `wait` also for the whole start-up; marks it abandoned; fills
// gs.ready_s, gs.not_used and gs.gpu_name, and passes each decode service it made to `add_stats`.
// With `wait`, what the start-up made is released here (when `startup` is the last reference);
// else as abandon_gpu_startup says.
void end_gpu_startup(std::shared_ptr<GpuStartup> startup, bool wait, GpuSummary& gs,
                     const std::function<void(JpegDecodeService&)>& add_stats);

// Marks the start-up abandoned, detaches its thread when it still runs, and releases the job's
// reference on a thread of its own: the start-up thread, or that one, whichever ends last,
// releases what the start-up made (decode services, encoder libraries), never the caller. The
// process may then exit normally (an exit handler waits for that background work, before the
// CUDA runtime's own teardown) or end quickly (_exit, quick_exit) at any time.
void abandon_gpu_startup(std::shared_ptr<GpuStartup> startup);

}  // namespace wk::pipeline
