#include "wk/pipeline/folder_job.hpp"

#include <cuda_runtime_api.h>
#include <sys/stat.h>
#include <opencv2/core.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <future>
#include <map>
#include <tuple>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>

#include "io/nvjpeg_decoder.hpp"
#include "io/nvjpeg_encoder.hpp"
#include "pipeline/file_work.hpp"
#include "pipeline/jpeg_decode_service.hpp"
#include "wk/core/backend.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"
#include "wk/io/image_codec.hpp"
#include "wk/io/jpeg_header.hpp"

namespace fs = std::filesystem;

namespace wk::pipeline {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The streams the workers' GPU pipelines (and their JPEG encoders) run on: a few per device,
// shared, made on first use. The driver gives a context a fixed number of work queues
// (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default) and streams beyond them share queues, so with 16
// workers on 16 streams the decoder's work waited behind theirs: nvJPEG's batched decode took
// ~0.9 ms per image against ~0.8 on 2 shared streams (steady 970-998 -> 1091-1117 img/s,
// docs/benchmarks.md, issue 20, sixth pass). wk-image now asks for 12 queues
// (app::widen_gpu_work_queues; seventh pass). With 32, 2 shared streams and one per worker
// measured the same; two stay the default so that the number of streams does not grow with
// --threads beyond what a few queues hold.
// WK_GPU_STREAMS=N sets how many per device (0: one per worker; anything but a number from 0 to
// 64 leaves the default).
class WorkerStreams {
 public:
  WorkerStreams() {
    if (const char* e = std::getenv("WK_GPU_STREAMS"); e && *e) {
      char* end = nullptr;
      const long n = std::strtol(e, &end, 10);
      if (*end == '\0' && n >= 0 && n <= 64) per_device_ = int(n);
    }
  }
  // A stream on `device` (the current one) for a new pipeline, the device's streams taken in turn;
  // nullptr: the pipeline makes its own.
  cudaStream_t take(int device) {
    if (per_device_ == 0) return nullptr;
    std::lock_guard<std::mutex> lock(m_);
    PerDevice& d = devices_[device];
    if (d.streams.empty()) d.streams.resize(std::size_t(per_device_));
    auto& s = d.streams[d.taken++ % d.streams.size()];
    if (!s) s.emplace();
    return s->get();
  }

 private:
  struct PerDevice {
    std::vector<std::optional<Stream>> streams;
    std::size_t taken = 0;
  };
  int per_device_ = 2;
  std::mutex m_;
  std::map<int, PerDevice> devices_;
};

// One worker's pipelines: the GPU one on its device, and a CPU one made when first needed
// (--device cpu, or after a GPU failure). A GPU worker also owns, when used, its nvJPEG encoder
// (JPEG outputs).
struct WorkerPipelines {
  WorkerPipelines(const FolderJobOptions& o, int d, WorkerStreams& s) : opt(o), device(d), streams(s) {}
  const FolderJobOptions& opt;
  int device;  // -1: CPU
  WorkerStreams& streams;
  std::optional<image::Pipeline> gpu, cpu;
  bool gpu_failed = false;
  // This device's encoder library handle when nvJPEG encodes (made in the background at the
  // start of the job; null when it failed).
  std::shared_future<std::shared_ptr<io::NvjpegLibrary>> encode_library;
  std::optional<io::NvjpegEncoder> encoder;
  bool encoder_tried = false;
  bool warmed_up = false;

  image::Pipeline& pick() {
    if (device >= 0 && !gpu_failed) {
      WK_CUDA_CHECK(cudaSetDevice(device));
      if (!gpu) {
        image::PipelineOptions po = opt.pipeline_options;
        po.stream = streams.take(device);
        gpu.emplace(opt.pipeline_text, Backend::gpu, po);
      }
      return *gpu;
    }
    if (!cpu) cpu.emplace(opt.pipeline_text, Backend::cpu, opt.pipeline_options);
    return *cpu;
  }
  bool on_gpu() const { return device >= 0 && !gpu_failed; }
  std::string name() const { return on_gpu() ? "gpu" + std::to_string(device) : "cpu"; }
  void lose_gpu() {
    gpu_failed = true;
    encoder.reset();
    gpu.reset();
  }
};

struct Shared {
  const FolderJobOptions& opt;
  const std::vector<io::InputFile>& files;
  std::vector<fs::path> outputs;
  std::vector<std::string> precheck;  // per file: an error known before starting, or ""
  std::unordered_set<std::string> resume_ok;
  std::mutex side_mutex;
  std::set<fs::path> side_paths;
  std::set<io::FileIdentity> input_ids;  // every input: no output may replace one
  ByteBudget* budget = nullptr;          // host memory of images in flight
  const std::atomic<bool>* stop = nullptr;
};

// What the workers share to report: each finished record, and notices.
struct Reporter {
  const JobCallbacks& cb;
  std::mutex mutex;
  std::vector<std::optional<FileRecord>>& records;
  void notice(const std::string& msg) {
    if (!cb.on_notice) return;
    std::lock_guard<std::mutex> lock(mutex);
    cb.on_notice(msg);
  }
  Clock::time_point start;
  FileSource* source = nullptr;
  // source: the ranges dealt to this process, by first index: {end, files not yet finished}.
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> ranges;
  void finished(std::size_t i, FileRecord&& r) {
    r.finished_s = std::chrono::duration<double>(Clock::now() - start).count();
    std::lock_guard<std::mutex> lock(mutex);
    records[i] = std::move(r);
    if (cb.on_file) cb.on_file(*records[i]);
    if (!source) return;
    auto it = ranges.upper_bound(i);
    if (it == ranges.begin()) return;
    --it;
    if (i < it->second.first && --it->second.second == 0) {
      range_done(it->first, it->second.first);
      ranges.erase(it);
    }
  }
  // Under mutex.
  void range_done(std::size_t begin, std::size_t end) {
    std::vector<std::pair<std::size_t, FileRecord>> done;
    for (std::size_t k = begin; k < end; ++k)
      if (records[k]) done.emplace_back(k, *records[k]);
    source->range_done({begin, end}, std::move(done));
  }
};

fs::path output_for(const FolderJobOptions& opt, const io::InputFile& in) {
  fs::path out = opt.outdir / in.relative;
  if (!opt.format.empty()) out.replace_extension("." + opt.format);
  return out.lexically_normal();
}

void record_failure(FileRecord& r, const std::exception& e) {
  r.status = FileStatus::failed;
  std::string msg = e.what();
  if (msg.rfind(r.path, 0) == 0 && msg.size() > r.path.size() + 2) msg = msg.substr(r.path.size() + 2);
  r.error = msg;
}

// The checks, the read and the header probe: everything before decoding. Returns false when the
// record is final (skipped, or failed).
bool begin_file(Shared& sh, FileWork& fw) {
  const io::InputFile& in = sh.files[fw.i];
  const fs::path& out = sh.outputs[fw.i];
  const long idx = static_cast<long>(fw.i);
  FileRecord& r = fw.r;
  r.path = in.path.string();
  r.output = out.string();
  fw.finished = true;
  try {
    if (!sh.precheck[fw.i].empty()) throw Error(ErrorCategory::usage, sh.precheck[fw.i]);
    std::error_code ec;
    if (sh.resume_ok.count(r.path)) {
      r = done_in_earlier_run(sh.opt, in);
      return false;
    }
    if (sh.opt.skip_existing && fs::exists(out, ec)) {
      r.status = FileStatus::skipped;
      r.error = "output exists (--skip-existing)";
      return false;
    }
    struct stat st {};  // before the read: a change while it is read shows at the next --resume
    if (::stat(in.path.c_str(), &st) == 0) {
      r.input_bytes = std::uint64_t(st.st_size);
      r.input_mtime_ns = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    }
    const auto t = Clock::now();
    {
      nvtx::Range s("read", nvtx::Color::io, idx);
      fw.bytes = io::read_file(in.path);
    }
    r.ms.read = ms_since(t);
    if (auto dims = probe_dimensions(fw.bytes)) {
      r.width = dims->first;
      r.height = dims->second;
      check_pixel_limit(sh.opt.max_pixels, dims->first, dims->second);
    }
  } catch (const std::exception& e) {
    record_failure(r, e);
    return false;
  }
  fw.finished = false;
  return true;
}

cv::Mat decode_with_opencv(const Shared& sh, FileWork& fw) {
  const auto t = Clock::now();
  cv::Mat img;
  {
    nvtx::Range s("decode", nvtx::Color::codec, static_cast<long>(fw.i));
    img = io::decode_image(fw.bytes, sh.files[fw.i].path);
  }
  fw.r.ms.decode += ms_since(t);
  fw.r.decoder = "opencv";
  fw.r.width = img.cols;
  fw.r.height = img.rows;
  if (double(img.total()) > double(sh.opt.max_pixels))
    throw Error(ErrorCategory::decode, "image has more pixels than --max-pixels " + std::to_string(sh.opt.max_pixels));
  return img;
}

// The worker's GPU JPEG encoder for `out`, made on first use; null when this file is encoded on
// the CPU (not a JPEG output, the CPU path, nvJPEG encoding off or failed to start).
io::NvjpegEncoder* gpu_jpeg_encoder(WorkerPipelines& wp, const fs::path& out, const FolderJobOptions& opt, Reporter& rep) {
  if (!wp.on_gpu() || !wp.encode_library.valid() || !io::is_jpeg_path(out)) return nullptr;
  if (!wp.encoder && !wp.encoder_tried) {
    wp.encoder_tried = true;
    try {
      if (auto library = wp.encode_library.get())
        wp.encoder.emplace(std::move(library), opt.encode.jpeg_quality, wp.pick().stream());
    } catch (const std::exception& e) {
      rep.notice("GPU " + std::to_string(wp.device) + ": " + e.what() + "; this worker encodes JPEGs with OpenCV");
    }
  }
  return wp.encoder ? &*wp.encoder : nullptr;
}

cv::Mat download(const DeviceImage& image, cudaStream_t stream) {
  cv::Mat m(image.height(), image.width(), CV_8UC(image.channels()));
  WK_CUDA_CHECK(cudaMemcpy2DAsync(m.data, m.step, image.view().data, image.pitch_bytes(),
                                  std::size_t(image.width()) * image.channels(), image.height(), cudaMemcpyDeviceToHost,
                                  stream));
  WK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return m;
}

// Runs the operations, encodes and writes. The input is `host` (decoded by OpenCV) or, when
// null, fw.image (decoded by nvJPEG on this worker's GPU). A JPEG output is encoded on the GPU
// when the worker has an nvJPEG encoder (only the compressed bytes are downloaded); an image
// nvJPEG refuses is downloaded and encoded by OpenCV. A GPU failure (out of memory, a lost
// device) must not lose the file or crash the job: this worker goes on with the CPU path,
// decoding the file again on the CPU when its pixels were on the GPU.
void finish_file(Shared& sh, FileWork& fw, WorkerPipelines& wp, const cv::Mat* host, Reporter& rep) {
  FileRecord& r = fw.r;
  const fs::path& out = sh.outputs[fw.i];
  const long idx = static_cast<long>(fw.i);
  try {
    auto t = Clock::now();
    std::vector<image::SideOutput> side;
    cv::Mat result, redecoded;
    std::vector<std::uint8_t> encoded;
    cv::Mat refused;  // a result nvJPEG would not encode, downloaded for OpenCV
    double gpu_encode_ms = 0;
    try {
      r.device = wp.name();
      image::DeviceSink sink;
      if (io::NvjpegEncoder* encoder = gpu_jpeg_encoder(wp, out, sh.opt, rep)) {
        sink = [&](const DeviceImage& image, cudaStream_t stream) {
          const auto te = Clock::now();
          nvtx::Range s("encode", nvtx::Color::codec, idx);
          try {
            encoded = encoder->encode(image, stream);
            r.encoder = "nvjpeg";
          } catch (const Error& e) {
            if (e.category() == ErrorCategory::cuda) throw;
            refused = download(image, stream);
          }
          gpu_encode_ms = ms_since(te);
        };
      }
      result = host ? wp.pick().run(*host, idx, &side, sink) : wp.pick().run_device(fw.image, idx, &side, sink);
      if (!refused.empty()) result = std::move(refused);
    } catch (const Error& e) {
      if (e.category() != ErrorCategory::cuda || wp.device < 0 || wp.gpu_failed) throw;
      wp.lose_gpu();
      rep.notice("GPU " + std::to_string(wp.device) + " failed on " + r.path + " (" + e.what() +
                 "); this worker continues on the CPU");
      side.clear();
      encoded.clear();
      r.encoder.clear();
      gpu_encode_ms = 0;
      r.device = wp.name();
      if (!host) {
        const auto td = Clock::now();
        redecoded = decode_with_opencv(sh, fw);
        host = &redecoded;
        t += Clock::now() - td;  // the decode is counted in ms.decode, not in ms.process
      }
      result = wp.pick().run(*host, idx, &side);
    }
    r.ms.process = ms_since(t) - gpu_encode_ms;
    r.ms.encode = gpu_encode_ms;
    redecoded.release();
    fw.bytes = {};

    if (encoded.empty()) {
      t = Clock::now();
      nvtx::Range s("encode", nvtx::Color::codec, idx);
      encoded = io::encode_image(result, out, sh.opt.encode);
      r.encoder = "opencv";
      r.ms.encode += ms_since(t);
    }
    t = Clock::now();
    {
      nvtx::Range s("write", nvtx::Color::io, idx);
      std::vector<fs::path> side_paths;
      for (const auto& so : side) {
        side_paths.push_back(out.parent_path() / (out.stem().string() + so.suffix));
        if (auto id = io::identity_of(side_paths.back()); id && sh.input_ids.count(*id))
          throw Error(ErrorCategory::usage, "output " + side_paths.back().string() + " would overwrite an input");
        std::lock_guard<std::mutex> lock(sh.side_mutex);
        if (!sh.side_paths.insert(side_paths.back()).second)
          throw Error(ErrorCategory::usage, "output " + side_paths.back().string() + " was already written from another input");
      }
      io::write_output(out, encoded);
      for (std::size_t k = 0; k < side.size(); ++k) io::write_output(side_paths[k], side[k].bytes);
    }
    r.ms.write = ms_since(t);
    r.status = FileStatus::ok;
  } catch (const std::exception& e) {
    record_failure(r, e);
  }
}

// Host memory one file takes while it is decoded, processed and encoded on the CPU side: its
// compressed bytes, the decoded image (3 bytes a pixel: colour after decoding) and room for two
// results of its size (an intermediate and the output, and the encoded output in their place).
// Unknown dimensions (a header probe_dimensions does not read): 8 times the compressed size.
std::uint64_t host_bytes_estimate(const FileWork& fw) {
  const std::uint64_t compressed = fw.bytes.size();
  if (fw.r.width > 0 && fw.r.height > 0) return compressed + std::uint64_t(fw.r.width) * std::uint64_t(fw.r.height) * 3 * 3;
  return compressed * 8;
}

// Holds a share of the job's memory budget for one file (none without a budget).
struct BudgetShare {
  ByteBudget* budget;
  std::uint64_t bytes = 0;
  bool take(std::uint64_t n, const std::atomic<bool>* stop) {
    if (!budget) return true;
    if (!budget->acquire(n, stop)) return false;
    bytes = n;
    return true;
  }
  ~BudgetShare() {
    if (budget && bytes) budget->release(bytes);
  }
};

void decode_and_finish(Shared& sh, FileWork& fw, WorkerPipelines& wp, Reporter& rep) {
  BudgetShare share{sh.budget};
  // A stop while waiting: the file is decoded all the same (it was read, so it is finished, not
  // left unstarted); only the wait ends.
  if (!share.take(host_bytes_estimate(fw), sh.stop)) share.bytes = 0;
  cv::Mat img;
  try {
    img = decode_with_opencv(sh, fw);
  } catch (const std::exception& e) {
    record_failure(fw.r, e);
    return;
  }
  fw.bytes = {};
  finish_file(sh, fw, wp, &img, rep);
}

// Before its first decoded file arrives (the decode service starts the hardware decoder and
// decodes a first batch meanwhile), a GPU worker runs its pipeline and encoder once on a small
// image: the kernels' modules load and the encoder's state starts here, not on the first files.
// One run of `pipeline` (and `encoder`, when given) on a 64 x 64 gray-128 colour image: loads the
// kernels' modules and starts the encoder's state. Throws what the run throws.
void run_on_small_image(image::Pipeline& pipeline, io::NvjpegEncoder* encoder) {
  DeviceImage image(64, 64, 3);
  WK_CUDA_CHECK(cudaMemset2DAsync(image.view().data, image.pitch_bytes(), 128, 64 * 3, 64, pipeline.stream()));
  image::DeviceSink sink;
  if (encoder) sink = [encoder](const DeviceImage& result, cudaStream_t stream) { encoder->encode(result, stream); };
  std::vector<image::SideOutput> side;
  pipeline.run_device(image, -1, &side, sink);
}

// The nvJPEG library handle the encoders of `device` share, or null (said through `notice`)
// when it does not start: that GPU's JPEGs are then encoded with OpenCV.
std::shared_ptr<io::NvjpegLibrary> make_encode_library(int device, const std::function<void(const std::string&)>& notice,
                                                       JpegDecodeService* service) {
  // The decode service's handle where there is one (a hardware-backend handle encodes as well):
  // one handle per GPU. Two made at once took ~0.28 s and ~0.56 s, and the decoder's state then
  // ~0.37 s instead of ~0.11 s: --device auto was ready at 0.68-0.74 s instead of 0.90-1.22 s
  // (H100, 300 4K JPEGs, docs/benchmarks.md).
  if (service)
    if (auto library = service->library().get()) return library;
  try {
    WK_CUDA_CHECK(cudaSetDevice(device));
    return std::make_shared<io::NvjpegLibrary>(false);
  } catch (const std::exception& e) {
    notice("GPU " + std::to_string(device) + ": " + e.what() + "; JPEGs are encoded with OpenCV");
    return nullptr;
  }
}

void warm_up(WorkerPipelines& wp, const FolderJobOptions& opt, Reporter& rep) {
  if (wp.warmed_up || !wp.on_gpu()) return;
  wp.warmed_up = true;
  nvtx::Range range("warm-up", nvtx::Color::app);
  try {
    image::Pipeline& pipeline = wp.pick();
    run_on_small_image(pipeline, gpu_jpeg_encoder(wp, "warm-up.jpg", opt, rep));
  } catch (const std::exception&) {
    // Whatever failed here fails again on a real file, which reports it.
  }
}

// A file the decode service is done with: decoded by nvJPEG (finished from its device buffer,
// which goes back to the service) or not (its batch failed: OpenCV decodes it and names what is
// wrong with it).
void finish_from_service(Shared& sh, std::unique_ptr<FileWork> fw, WorkerPipelines& wp, JpegDecodeService& service,
                         Reporter& rep) {
  {
    nvtx::Range file_range("file", nvtx::Color::app, static_cast<long>(fw->i));
    if (fw->decoded && wp.on_gpu()) finish_file(sh, *fw, wp, nullptr, rep);
    else decode_and_finish(sh, *fw, wp, rep);
  }
  if (fw->decoded) service.recycle(std::move(fw->image), fw->device_bytes);
  fw->bytes = {};
  rep.finished(fw->i, std::move(fw->r));
}

// Whether to hand this read file to the nvJPEG decode service: a complete JPEG whose header says
// nvJPEG decodes it as OpenCV would (io::nvjpeg_unsuitable_reason; the service then asks nvJPEG
// itself), within the pixel limit. False leaves the file to OpenCV, or, over the pixel limit,
// marks it failed.
bool for_nvjpeg(const Shared& sh, FileWork& fw) {
  // A truncated JPEG goes to OpenCV's path too, which names it.
  if (!io::is_jpeg_data(fw.bytes) || !io::jpeg_complete(fw.bytes)) return false;
  const auto header = io::parse_jpeg_header(fw.bytes);
  if (!header || !io::nvjpeg_unsuitable_reason(*header).empty() || header->width <= 0 || header->height <= 0) return false;
  try {
    check_pixel_limit(sh.opt.max_pixels, header->width, header->height);
  } catch (const std::exception& e) {
    record_failure(fw.r, e);
    fw.finished = true;
    return false;
  }
  fw.header = *header;
  fw.jpeg = io::NvjpegImageInfo{header->width, header->height, header->components == 1 ? 1 : 3};
  return true;
}

// --device auto (FolderJobOptions::start_on_cpu): the GPU side, started on a background thread
// while the workers take the first files on the CPU. Shared with that thread, which outlives the
// job when the job ends first and does not wait for it; the thread then makes nothing more and
// tells nothing more (abandoned).
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
  std::vector<fs::path> warm_jpegs;  // the job's first JPEG inputs (JpegDecodeService::Options)
  std::string pipeline_text;
  image::PipelineOptions pipeline_options;
  Clock::time_point t0;   // the job's start
  int share_index = 0, share_count = 1;  // FolderJobOptions::gpu_share_*
};

// The start-up thread: the device count (fast, also without a GPU: a job that ends early waits
// for this much only), the CUDA contexts and a probe launch (select_backend's checks), then per
// GPU the decode service (its thread makes the hardware decoder's handle and decodes a warm-up
// batch) and the encoder library (here, meanwhile), and one run of the pipeline and encoder on a
// small image (kernel modules, encoder kernels). Ready when all of that is.
void start_gpu(std::shared_ptr<GpuStartup> st, StartPlan plan) {
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
  GpuStatus status;
  {
    nvtx::Range r("cuda context", nvtx::Color::app);
    status = probe_gpu();
  }
  if (!status.usable) return fail(status.reason);
  std::vector<int> gpus = plan.gpus;
  if (gpus.empty()) {
    for (int d = 0; d < count; ++d) gpus.push_back(d);
    gpus = dist::node_share(gpus, plan.share_index, plan.share_count);
  }
  try {
    for (int d : gpus) {  // every context before any handle
      WK_CUDA_CHECK(cudaSetDevice(d));
      WK_CUDA_CHECK(cudaFree(nullptr));
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
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
        if (st->services.count(d)) continue;  // --gpus 0,0
        JpegDecodeService::Options o;
        o.device = d;
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
  // Meanwhile, per GPU: the encoder's library and one run of the pipeline (and encoder).
  for (int d : std::set<int>(gpus.begin(), gpus.end())) {
    nvtx::Range r("warm-up", nvtx::Color::app, d);
    std::shared_ptr<io::NvjpegLibrary> library;
    if (plan.nvjpeg_encode) {
      JpegDecodeService* service = nullptr;
      {
        std::lock_guard<std::mutex> lock(st->m);
        if (st->services.count(d)) service = st->services.at(d).get();
      }
      library = make_encode_library(d, [&st](const std::string& m) { st->tell(m); }, service);
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
  }
  for (JpegDecodeService* service : services) service->wait_started();
  std::lock_guard<std::mutex> lock(st->m);
  st->state = GpuStartup::State::ready;
  st->ready_s = std::chrono::duration<double>(Clock::now() - plan.t0).count();
  st->cv.notify_all();
}

}  // namespace

bool nvjpeg_in_build() noexcept { return io::nvjpeg_in_build(); }

fs::path output_path(const FolderJobOptions& options, const io::InputFile& input) { return output_for(options, input); }

FileRecord done_in_earlier_run(const FolderJobOptions& options, const io::InputFile& input) {
  FileRecord r;
  r.path = input.path.string();
  r.output = output_for(options, input).string();
  r.status = FileStatus::skipped;
  r.error = "done in an earlier run (--resume)";
  struct stat st {};  // as checked by inputs_to_skip: a later --resume checks it again
  if (::stat(input.path.c_str(), &st) == 0) {
    r.input_bytes = std::uint64_t(st.st_size);
    r.input_mtime_ns = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  return r;
}

std::size_t remove_stale_temporaries(const fs::path& output) {
  const fs::path dir = output.has_parent_path() ? output.parent_path() : fs::path(".");
  const std::string prefix = "." + output.filename().string();
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // ".NAME" + the marker + 6 random characters, or + PID + "-" + 6 random characters
    if (name.size() >= prefix.size() + 10 && name.rfind(prefix, 0) == 0 && io::is_temporary_name(it->path()) &&
        name.compare(prefix.size(), 4, ".wk-") == 0 &&
        (name.size() == prefix.size() + 10 || name.find('-', prefix.size() + 4) == name.size() - 7)) {
      std::error_code rm;
      if (fs::remove(it->path(), rm)) ++removed;
    }
  }
  return removed;
}

void tally(JobResult& result, std::size_t files) {
  JobTotals& tot = result.totals;
  tot.files = files;
  tot.ok = tot.failed = tot.skipped = 0;
  tot.megapixels = 0;
  tot.not_started = files - std::min(files, result.records.size());
  result.gpu.files_cpu = result.gpu.files_gpu = 0;
  for (const FileRecord& r : result.records) {
    if (!r.device.empty()) ++(r.device == "cpu" ? result.gpu.files_cpu : result.gpu.files_gpu);
    if (r.status == FileStatus::ok) {
      ++tot.ok;
      tot.megapixels += double(r.width) * r.height / 1e6;
    } else if (r.status == FileStatus::failed) {
      ++tot.failed;
    } else {
      ++tot.skipped;
    }
  }
}

JobResult run_folder_job(const FolderJobOptions& opt, const std::atomic<bool>* stop, const JobCallbacks& cb,
                         FileSource* source) {
  // Bad pipelines and options are usage errors before any file is touched.
  { image::Pipeline validate(opt.pipeline_text, Backend::cpu, opt.pipeline_options); }
  if (opt.max_pixels < 1) throw Error(ErrorCategory::usage, "--max-pixels must be at least 1");
  {
    std::error_code ec;
    if (fs::exists(opt.outdir, ec) && !fs::is_directory(opt.outdir, ec))
      throw Error(ErrorCategory::usage, "-o " + opt.outdir.string() + ": exists and is not a folder");
  }
  if (opt.jpeg_batch < 1) throw Error(ErrorCategory::usage, "--jpeg-batch must be at least 1");
  if (opt.jpeg_decoder == JpegDecoder::nvjpeg && !io::nvjpeg_in_build())
    throw Error(ErrorCategory::usage, "--jpeg-decoder nvjpeg: this build has no nvJPEG (it is built when the CUDA toolkit has it)");
  if (opt.jpeg_decoder == JpegDecoder::nvjpeg && opt.backend != Backend::gpu)
    throw Error(ErrorCategory::usage, "--jpeg-decoder nvjpeg needs the GPU backend");
  if (opt.jpeg_encoder == JpegEncoder::nvjpeg && !io::nvjpeg_in_build())
    throw Error(ErrorCategory::usage, "--jpeg-encoder nvjpeg: this build has no nvJPEG (it is built when the CUDA toolkit has it)");
  if (opt.jpeg_encoder == JpegEncoder::nvjpeg && opt.backend != Backend::gpu)
    throw Error(ErrorCategory::usage, "--jpeg-encoder nvjpeg needs the GPU backend");
  // auto: nvJPEG where the build has it, on the GPU backend (measured faster on the H100
  // machine, docs/benchmarks.md); the CPU backend always uses OpenCV.
  const bool gpu_codecs = opt.backend == Backend::gpu && io::nvjpeg_in_build();
  const bool nvjpeg_decode = gpu_codecs && opt.jpeg_decoder != JpegDecoder::opencv;
  const bool nvjpeg_encode = gpu_codecs && opt.jpeg_encoder != JpegEncoder::opencv &&
                             (opt.format.empty() || io::is_jpeg_path("x." + opt.format));
  // start_on_cpu: the GPU is started in the background (start_gpu) and the workers begin on the
  // CPU; an explicit --gpus list is still checked here when the machine has GPUs at all.
  const bool hybrid = opt.backend == Backend::gpu && opt.start_on_cpu;
  std::vector<int> gpus = opt.gpus;
  if (opt.backend == Backend::gpu && (!hybrid || !gpus.empty())) {
    int count = 0;
    if (hybrid) {
      if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
      (void)cudaGetLastError();
    } else {
      WK_CUDA_CHECK(cudaGetDeviceCount(&count));
    }
    if (gpus.empty()) {
      for (int d = 0; d < count; ++d) gpus.push_back(d);
      gpus = dist::node_share(gpus, opt.gpu_share_index, opt.gpu_share_count);
    }
    for (int d : gpus)
      if ((d < 0 || d >= count) && (!hybrid || count > 0))
        throw Error(ErrorCategory::usage, "--gpus: no GPU " + std::to_string(d) + " (this machine has " + std::to_string(count) + ")");
    if (hybrid) gpus.clear();  // the start-up thread decides (opt.gpus)
  }
  std::optional<EarlierReport> earlier;
  if (!source && !opt.resume_report.empty()) earlier = read_earlier_report(opt.resume_report);

  const auto t0 = Clock::now();
  JobResult result;
  io::InputScan scan;
  if (source) {
    scan = source->listed;
  } else {
    nvtx::Range r("scan", nvtx::Color::io);
    scan = io::scan_inputs(opt.inputs, opt.outdir);
  }
  result.scan_errors = scan.errors;
  if (cb.on_notice)
    for (const std::string& notice : scan.notices) cb.on_notice(notice);
  Shared sh{opt, scan.files, {}, {}, {}, {}, {}, {}, nullptr, stop};
  std::map<fs::path, std::size_t> first_user;
  std::vector<io::JobFile> reads, writes;
  for (std::size_t i = 0; i < scan.files.size(); ++i) {
    sh.outputs.push_back(output_for(opt, scan.files[i]));
    auto [it, fresh] = first_user.emplace(sh.outputs.back(), i);
    sh.precheck.push_back(fresh ? "" : "output " + sh.outputs.back().string() + " is also the output of " +
                                           scan.files[it->second].path.string() + " (same name below an input root)");
    reads.push_back({"the input " + scan.files[i].path.string(), scan.files[i].path});
    if (fresh) writes.push_back({"the output of " + scan.files[i].path.string(), sh.outputs.back()});
  }
  // No file the job writes is a file it reads, before any work (an output named like another
  // input: a.jpg -> a.png beside a.png; the report named like an image).
  if (!opt.report.empty()) writes.push_back({"the report", opt.report});
  io::check_writes_apart(reads, writes);
  for (const io::JobFile& r : reads)
    if (auto id = io::identity_of(r.path)) sh.input_ids.insert(*id);
  if (source) {
    sh.resume_ok.insert(source->resume_done.begin(), source->resume_done.end());
  } else if (earlier) {
    std::vector<std::string> notices;
    for (auto& p : inputs_to_skip(opt, scan.files, *earlier, &notices)) sh.resume_ok.insert(std::move(p));
    if (cb.on_notice)
      for (const std::string& notice : notices) cb.on_notice(notice);
  }
  ByteBudget budget(opt.memory_budget ? opt.memory_budget : std::max<std::uint64_t>(physical_memory_bytes() / 2, 1ull << 30));
  sh.budget = &budget;
  if (cb.on_start) cb.on_start(scan.files.size());

  const std::size_t n = scan.files.size();
  const int hw = static_cast<int>(usable_cores());
  const int workers = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(opt.threads > 0 ? opt.threads : hw, std::max<std::size_t>(n, 1))));
  // Workers give each image one core; OpenCV's own thread pool would oversubscribe them.
  const int saved_cv_threads = cv::getNumThreads();
  if (workers > 1) cv::setNumThreads(1);

  std::vector<std::optional<FileRecord>> records(n);
  std::atomic<std::size_t> next{0};
  std::exception_ptr fatal;
  Reporter rep{cb, {}, records, t0, source, {}};
  // The next file for a worker: all of them in order, or those of the ranges `source` deals.
  std::mutex take_mutex;
  std::size_t range_next = 0, range_end = 0;
  auto take = [&]() -> std::optional<std::size_t> {
    if (!source) {
      const std::size_t i = next++;
      return i < n ? std::optional<std::size_t>(i) : std::nullopt;
    }
    std::lock_guard<std::mutex> lock(take_mutex);
    while (range_next >= range_end) {
      const auto range = source->next();
      if (!range) return std::nullopt;
      if (range->second > n || range->first > range->second)
        throw Error(ErrorCategory::internal, "folder job: a dealt range beyond the file list");
      {
        std::lock_guard<std::mutex> rep_lock(rep.mutex);
        rep.ranges[range->first] = {range->second, range->second - range->first};
      }
      std::tie(range_next, range_end) = *range;
    }
    return range_next++;
  };
  auto device_of = [&](int w) { return gpus.empty() ? -1 : gpus[static_cast<std::size_t>(w) % gpus.size()]; };

  std::shared_ptr<GpuStartup> startup;
  std::atomic<std::size_t> cpu_started{0};
  std::size_t cpu_start_limit = 0;
  if (const char* e = std::getenv("WK_CPU_START_FILES"); e && hybrid) cpu_start_limit = std::strtoull(e, nullptr, 10);
  // start_on_cpu: the GPU is started only for a job the CPU would take long over; starting it
  // takes ~1-1.5 s on the H100 machine (context, nvJPEG, a first decode), and a process that
  // exits while it is half-started pays ~0.15 s more for the driver's cleanup. The estimate:
  // the input bytes at kCpuBytesPerSecond per worker (4K JPEG q90: ~2.2 MB in ~0.15 s of decode,
  // operations and encode). WK_CPU_START_FILES (tests) always starts it.
  bool start_the_gpu = hybrid && cpu_start_limit > 0;
  // The nvJPEG decoders' warm-up candidates (JpegDecodeService::Options): the job's first JPEGs.
  // The warm-up reads their sizes (after its handle is made) and takes the longest.
  std::vector<fs::path> warm_jpegs;
  if (nvjpeg_decode) {
    constexpr std::size_t kWarmCandidates = 1024;
    for (std::size_t i = 0; i < scan.files.size() && warm_jpegs.size() < kWarmCandidates; ++i)
      if (io::is_jpeg_path(scan.files[i].path)) warm_jpegs.push_back(scan.files[i].path);
  }
  if (hybrid && !start_the_gpu) {
    constexpr double kCpuBytesPerSecond = 15e6, kWorthIt = 1.0;
    double bytes = 0;
    for (const auto& f : scan.files) {
      std::error_code ec;
      const auto size = fs::file_size(f.path, ec);
      if (!ec) bytes += double(size);
      if (bytes / (kCpuBytesPerSecond * workers) > kWorthIt) break;
    }
    start_the_gpu = bytes / (kCpuBytesPerSecond * workers) > kWorthIt;
  }
  // While the GPU starts, two cores (of four or more) stay with its start-up threads: with every
  // core decoding, the nvJPEG handle took 0.6 s to make instead of 0.28 s.
  const int cpu_phase_workers = hw >= 4 ? std::max(1, std::min(workers, hw - 2)) : workers;
  if (start_the_gpu) {
    startup = std::make_shared<GpuStartup>();
    startup->left.assign(std::size_t(workers), false);
    startup->notice = [&rep](const std::string& m) { rep.notice(m); };
    StartPlan plan{opt.gpus, workers, nvjpeg_decode, nvjpeg_encode, opt.jpeg_batch, opt.encode.jpeg_quality, {},
                   opt.pipeline_text, opt.pipeline_options, t0, opt.gpu_share_index, opt.gpu_share_count};
    plan.warm_jpegs = warm_jpegs;
    startup->thread = std::thread(start_gpu, startup, std::move(plan));
  }

  // nvJPEG per GPU in use: one decode service (its thread owns the decoder) and one library
  // handle for the workers' encoders, made in the background while the workers read the first
  // files. A GPU where nvJPEG does not start decodes or encodes with OpenCV, and says so.
  std::map<int, std::unique_ptr<JpegDecodeService>> services;
  std::map<int, std::shared_future<std::shared_ptr<io::NvjpegLibrary>>> encode_libraries;
  const auto t_services = Clock::now();
  {
    std::map<int, int> producers;
    for (int w = 0; w < workers; ++w)
      if (device_of(w) >= 0) ++producers[device_of(w)];
    for (const auto& [device, count] : producers) {
      if (nvjpeg_decode) {
        JpegDecodeService::Options o;
        o.device = device;
        o.batch = opt.jpeg_batch;
        o.producers = count;
        // The warm-up batch makes the decode state and sizes every place for the job's longest
        // JPEG. Batches of 8, 16 and 32 first with no warm-up, as before, took 3.85 s instead of
        // 3.34 s over 3000 4K files; the first file came ~0.13 s sooner (H100, docs/benchmarks.md).
        o.warm_jpegs = warm_jpegs;
        o.notice = [&rep](const std::string& m) { rep.notice(m); };
        services[device] = std::make_unique<JpegDecodeService>(std::move(o));
      }
      if (nvjpeg_encode)
        encode_libraries[device] = std::async(std::launch::async, [&rep, device = device,
                                                                   service = nvjpeg_decode ? services[device].get() : nullptr] {
          return make_encode_library(device, [&rep](const std::string& m) { rep.notice(m); }, service);
        }).share();
    }
  }

  WorkerStreams worker_streams;  // outlives the workers' pipelines and encoders
  auto worker = [&](int w) {
    WorkerPipelines wp{opt, device_of(w), worker_streams};
    JpegDecodeService* service = services.count(wp.device) ? services.at(wp.device).get() : nullptr;
    if (encode_libraries.count(wp.device)) wp.encode_library = encode_libraries.at(wp.device);
    // start_on_cpu: this worker takes whole files on the CPU until the start-up thread says the
    // GPU is ready (then it hands over, with its GPU's decode service and encoder library) or
    // failed (then it stays on the CPU). `settled`: one of the two has happened.
    bool settled = !startup;
    auto hand_over = [&] {
      std::lock_guard<std::mutex> lock(startup->m);
      if (startup->state == GpuStartup::State::starting) return;
      settled = true;
      if (startup->state == GpuStartup::State::failed) return;
      nvtx::Range r("cpu hand-over", nvtx::Color::app, w);
      wp.device = startup->device_of(std::size_t(w));
      if (startup->services.count(wp.device)) service = startup->services.at(wp.device).get();
      if (startup->encode_libraries.count(wp.device)) wp.encode_library = startup->encode_libraries.at(wp.device);
    };
    // Waits until the start-up thread says ready or failed, then hands over (or stays).
    auto wait_and_hand_over = [&] {
      {
        std::unique_lock<std::mutex> lock(startup->m);
        startup->cv.wait(lock, [&] { return startup->state != GpuStartup::State::starting; });
      }
      hand_over();
    };
    // A worker that leaves before handing over: a service made meanwhile counts it as a producer.
    struct LeaveStartup {
      GpuStartup* st;
      int w;
      const bool& settled;
      ~LeaveStartup() {
        if (!st || settled) return;
        std::lock_guard<std::mutex> lock(st->m);
        if (!st->sides_made) {
          st->left[std::size_t(w)] = true;
          return;
        }
        if (st->state == GpuStartup::State::failed) return;
        const int d = st->device_of(std::size_t(w));
        if (st->services.count(d)) st->services.at(d)->producer_done();
      }
    } leave_startup{startup.get(), w, settled};
    // Every producer says when it has submitted its last file, also when it leaves with an
    // exception: the service decodes what is left, then ends.
    struct ProducerDone {
      JpegDecodeService* service;
      void operator()() {
        if (service) std::exchange(service, nullptr)->producer_done();
      }
      ~ProducerDone() { (*this)(); }
    } producer_done{service};
    JpegDecodeService::Inspector inspector;  // this worker's nvJPEG parser (or warpkit's check)
    try {
      for (;;) {
        if (!settled) {
          hand_over();
          if (!settled && w >= cpu_phase_workers) wait_and_hand_over();
          // WK_CPU_START_FILES=N (tests): at most N files start on the CPU; after them the
          // workers wait for the start-up to settle, so a test knows which files go where.
          while (!settled && cpu_start_limit > 0) {
            std::size_t c = cpu_started.load();
            if (c < cpu_start_limit && cpu_started.compare_exchange_weak(c, c + 1)) break;
            if (c >= cpu_start_limit) wait_and_hand_over();
          }
          if (service) producer_done.service = service;
        }
        // Decoded files first, one per file read: device memory stays low and the decoder fed.
        if (service)
          if (auto ready = service->take_ready()) finish_from_service(sh, std::move(ready), wp, *service, rep);
        if (stop && stop->load()) break;
        const std::optional<std::size_t> taken = take();
        if (!taken) break;
        const std::size_t i = *taken;
        auto fw = std::make_unique<FileWork>();
        fw->i = i;
        bool to_service = false;
        {
          // One "file" range from the read to the write; a file handed to the decoder gets a
          // second one when it is finished.
          nvtx::Range file_range("file", nvtx::Color::app, static_cast<long>(i));
          to_service = begin_file(sh, *fw) && service && wp.on_gpu() && for_nvjpeg(sh, *fw) &&
                       service->inspect(*fw, inspector);
          if (!to_service && !fw->finished) decode_and_finish(sh, *fw, wp, rep);
        }
        while (to_service) {
          const auto answer = service->submit(fw);
          if (answer == JpegDecodeService::Submit::taken) break;
          if (answer == JpegDecodeService::Submit::refused) {
            nvtx::Range file_range("file", nvtx::Color::app, static_cast<long>(i));
            decode_and_finish(sh, *fw, wp, rep);
            to_service = false;
          } else {
            warm_up(wp, opt, rep);
            if (auto ready = service->wait_ready_or_room()) finish_from_service(sh, std::move(ready), wp, *service, rep);
          }
        }
        if (fw) rep.finished(i, std::move(fw->r));
      }
      producer_done();
      if (service) {
        warm_up(wp, opt, rep);
        while (auto ready = service->wait_ready_or_end()) finish_from_service(sh, std::move(ready), wp, *service, rep);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(rep.mutex);
      if (!fatal) fatal = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) pool.emplace_back(worker, w);
  for (auto& t : pool) t.join();
  GpuSummary& gs = result.gpu;
  auto add_stats = [&gs](JpegDecodeService& service) {
    const JpegDecodeService::Stats st = service.stats();
    gs.decode_batches += st.batches;
    gs.decoded += st.decoded;
    gs.decode_busy_s += st.busy_s;
    gs.decode_starved_s += st.starved_s;
    gs.decode_waiting_room_s += st.waiting_room_s;
    gs.decode_inspect_s += st.inspect_s;
    gs.decode_call_s += st.call_s;
    gs.decode_sync_s += st.sync_s;
    gs.worker_inspect_s += st.worker_inspect_s;
    if (gs.decode_warm_up.empty()) gs.decode_warm_up = st.warm_jpeg;
    return st.started_s;
  };
  for (auto& [device, service] : services) {
    const double started = add_stats(*service);
    const double at = started < 0 ? -1 : std::chrono::duration<double>(t_services - t0).count() + started;
    if (at >= 0 && (gs.ready_s < 0 || at < gs.ready_s)) gs.ready_s = at;
  }
  services.clear();  // their threads have ended: every producer is done and the rest decoded
  if (hybrid && !startup) gs.not_used = "a small job: the CPU alone ends sooner than the GPU would start";
  if (startup) {
    std::unique_lock<std::mutex> lock(startup->m);
    // Whether there is a GPU at all is known in milliseconds: wait for that much, so a machine
    // without one always gets its notice. Never for the context or nvJPEG (unless asked to).
    startup->cv.wait(lock, [&] { return startup->counted; });
    if (opt.wait_for_gpu_startup) {
      lock.unlock();
      startup->thread.join();
      lock.lock();
    }
    startup->abandoned = true;
    gs.ready_s = startup->ready_s;
    if (startup->state == GpuStartup::State::failed) gs.not_used = "no usable CUDA GPU (" + startup->failure + ")";
    else if (startup->state == GpuStartup::State::starting) gs.not_used = "the job ended before the GPU was ready";
    gs.gpu_name = startup->gpu_name;
    auto made = std::move(startup->services);
    lock.unlock();
    for (auto& [device, service] : made) add_stats(*service);
    if (startup->thread.joinable()) {
      // Left running (wait_for_gpu_startup false): the services it made stay alive with it; the
      // process ends with _exit.
      startup->thread.detach();
      for (auto& [device, service] : made) (void)service.release();
    }
    made.clear();  // joined: their threads end once every producer is done
  }
  cv::setNumThreads(saved_cv_threads);
  if (fatal) std::rethrow_exception(fatal);

  // Ranges cut short by a stop: what was finished of them.
  for (const auto& [begin, range] : rep.ranges) rep.range_done(begin, range.first);
  rep.ranges.clear();
  for (auto& r : records)
    if (r) result.records.push_back(std::move(*r));
  tally(result, n);
  JobTotals& tot = result.totals;
  tot.interrupted = stop && stop->load() && tot.not_started > 0;
  tot.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

}  // namespace wk::pipeline
