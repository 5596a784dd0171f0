#include "pipeline/gpu_startup.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <future>
#include <optional>
#include <set>

#include "pipeline/file_work.hpp"
#include "pipeline/jpeg_decode_service.hpp"
#include "wk/core/backend.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/nvtx.hpp"

namespace wk::pipeline {

namespace {

using Clock = std::chrono::steady_clock;

// The start-up threads and background releases (abandon_gpu_startup) that have not ended, over
// all jobs. Never destroyed: the exit handler and the threads use it until the process ends.
struct BackgroundWork {
  std::mutex m;
  std::condition_variable ended;
  std::size_t running = 0;
};
BackgroundWork& background_work() {
  static auto* work = new BackgroundWork;
  return *work;
}
void background_work_begins() {
  BackgroundWork& b = background_work();
  std::lock_guard<std::mutex> lock(b.m);
  ++b.running;
}
void background_work_ends() {
  BackgroundWork& b = background_work();
  {
    std::lock_guard<std::mutex> lock(b.m);
    --b.running;
  }
  b.ended.notify_all();
}

// The exit handler: exit() (or a return from main) waits for the background work, so that the
// CUDA runtime's teardown, later among the exit handlers, never runs under it.
void wait_for_background_work() {
  BackgroundWork& b = background_work();
  std::unique_lock<std::mutex> lock(b.m);
  b.ended.wait(lock, [&] { return b.running == 0; });
}

// What the start-up thread does (start_gpu_in_background).
void start_gpu(const std::shared_ptr<GpuStartup>& st, const StartPlan& plan) {
  nvtx::Range range("gpu start-up", nvtx::Color::app);
  auto fail = [&](const std::string& reason) {
    std::lock_guard<std::mutex> lock(st->m);
    st->state = GpuStartup::State::failed;
    st->counted = true;
    st->failure = reason;
    if (!st->abandoned && st->notice) st->notice("no usable CUDA GPU (" + reason + "); running on the CPU");
    st->cv.notify_all();
  };
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    GpuStatus status = probe_gpu();  // the same reason text as select_backend's
    fail(status.reason.empty() ? "no CUDA device found" : status.reason);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(st->m);
    st->counted = true;
    st->cv.notify_all();
  }
  std::vector<int> gpus = plan.gpus;
  if (gpus.empty()) {
    for (int d = 0; d < count; ++d) gpus.push_back(d);
    gpus = dist::node_share(gpus, plan.share_index, plan.share_count);
  }
  const std::set<int> devices(gpus.begin(), gpus.end());
  // Every context before any handle: all GPUs' at once, beside the probe of device 0.
  std::future<std::string> contexts = std::async(std::launch::async, [&devices] {
    nvtx::Range r("cuda contexts", nvtx::Color::app);
    return start_contexts(std::vector<int>(devices.begin(), devices.end()));
  });
  GpuStatus status;
  {
    nvtx::Range r("cuda context", nvtx::Color::app);
    status = probe_gpu();
  }
  const std::string context_failure = contexts.get();
  if (!status.usable) return fail(status.reason);
  if (!context_failure.empty()) return fail(context_failure);
  std::vector<JpegDecodeService*> services;
  {
    std::lock_guard<std::mutex> lock(st->m);
    if (st->abandoned) return;
    st->gpus = gpus;
    st->gpu_name = status.name;
    std::map<int, int> producers;
    for (int w = 0; w < plan.workers; ++w)
      if (!st->left[std::size_t(w)]) ++producers[st->device_of(std::size_t(w))];
    if (plan.nvjpeg_decode)
      for (int d : gpus) {
        if (st->services.count(d)) continue;  // a GPU listed twice
        JpegDecodeService::Options o;
        o.device = d;
        o.label = plan.gpu_label(d);
        o.batch = plan.jpeg_batch;
        o.producers = producers[d];
        o.warm_jpegs = plan.warm_jpegs;
        o.notice = [weak = std::weak_ptr<GpuStartup>(st)](const std::string& m) {
          if (auto alive = weak.lock()) alive->tell(m);
        };
        st->services[d] = std::make_unique<JpegDecodeService>(std::move(o));
        services.push_back(st->services[d].get());
      }
    st->sides_made = true;
  }
  // Meanwhile, per GPU and all GPUs at once: the encoder's library and one run of the pipeline
  // (and encoder).
  auto warm_up = [&st, &plan](int d) {
    nvtx::Range r("warm-up", nvtx::Color::app, d);
    std::shared_ptr<io::NvjpegLibrary> library;
    if (plan.nvjpeg_encode) {
      JpegDecodeService* service = nullptr;
      {
        std::lock_guard<std::mutex> lock(st->m);
        if (st->services.count(d)) service = st->services.at(d).get();
      }
      library = make_encode_library(d, plan.gpu_label(d), [&st](const std::string& m) { st->tell(m); }, service);
    }
    try {
      WK_CUDA_CHECK(cudaSetDevice(d));
      image::Pipeline pipeline(plan.pipeline_text, Backend::gpu, plan.pipeline_options);
      std::optional<io::NvjpegEncoder> encoder;
      if (library) encoder.emplace(library, plan.jpeg_quality, pipeline.stream());
      run_on_small_image(pipeline, encoder ? &*encoder : nullptr);
    } catch (const std::exception&) {
      // What failed here fails again on a real file, which reports it (or moves to the CPU).
    }
    std::promise<std::shared_ptr<io::NvjpegLibrary>> made;
    made.set_value(std::move(library));
    std::lock_guard<std::mutex> lock(st->m);
    st->encode_libraries[d] = made.get_future().share();
  };
  {
    std::vector<std::future<void>> warming;
    for (int d : devices)
      if (d != *devices.begin()) warming.push_back(std::async(std::launch::async, warm_up, d));
    warm_up(*devices.begin());
    for (auto& w : warming) w.get();
  }
  for (JpegDecodeService* service : services) service->wait_started();
  std::lock_guard<std::mutex> lock(st->m);
  st->state = GpuStartup::State::ready;
  st->ready_s = std::chrono::duration<double>(Clock::now() - plan.t0).count();
  st->cv.notify_all();
}

// The start-up thread's body: the start-up, then the release of its reference (the last one when
// the job has ended first: what the start-up made then ends here).
void run_startup(std::shared_ptr<GpuStartup> st, StartPlan plan) {
  start_gpu(st, plan);
  st.reset();
  background_work_ends();
}

}  // namespace

GpuStartup::~GpuStartup() {
  if (thread.joinable()) thread.detach();  // ended already: dropped without abandon_gpu_startup
}

std::shared_ptr<GpuStartup> start_gpu_in_background(StartPlan plan, std::function<void(const std::string&)> notice) {
  auto st = std::make_shared<GpuStartup>();
  st->left.assign(std::size_t(plan.workers), false);
  st->notice = std::move(notice);
  background_work_begins();
  st->thread = std::thread(run_startup, st, std::move(plan));
  return st;
}

void abandon_gpu_startup(std::shared_ptr<GpuStartup> st) {
  {
    std::unique_lock<std::mutex> lock(st->m);
    st->cv.wait(lock, [&] { return st->counted; });
    st->abandoned = true;
  }
  // Registered once the CUDA runtime has started (the thread has counted the devices, or failed
  // to): exit handlers run in reverse order, so this one runs before the runtime's teardown.
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(wait_for_background_work); });
  if (st->thread.joinable()) st->thread.detach();
  // The job's reference goes on a thread of its own: when it is the last one (the start-up has
  // ended), the decode services' device buffers and nvJPEG handles are released there, not in the
  // job's time (nor in a process that ends with _exit at once).
  background_work_begins();
  std::thread([st = std::move(st)]() mutable {
    st.reset();
    background_work_ends();
  }).detach();
}

void end_gpu_startup(std::shared_ptr<GpuStartup> st, bool wait, GpuSummary& gs,
                     const std::function<void(JpegDecodeService&)>& add_stats) {
  std::vector<JpegDecodeService*> made;
  {
    std::unique_lock<std::mutex> lock(st->m);
    // Whether there is a GPU at all is known in milliseconds: wait for that much, so a machine
    // without one always gets its notice. Never for the context or nvJPEG (unless asked to).
    st->cv.wait(lock, [&] { return st->counted; });
    if (wait) {
      lock.unlock();
      st->thread.join();
      lock.lock();
    }
    st->abandoned = true;  // from here on the thread adds no service
    gs.ready_s = st->ready_s;
    if (st->state == GpuStartup::State::failed) gs.not_used = "no usable CUDA GPU (" + st->failure + ")";
    else if (st->state == GpuStartup::State::starting) gs.not_used = "the job ended before the GPU was ready";
    gs.gpu_name = st->gpu_name;
    for (auto& [device, service] : st->services) made.push_back(service.get());
  }
  for (JpegDecodeService* service : made) add_stats(*service);
  // Joined: `st` is the last reference, and what the start-up made ends here (the decode services'
  // threads end once every producer is done). Else it is left to end on its own.
  if (!wait) abandon_gpu_startup(std::move(st));
}

}  // namespace wk::pipeline
