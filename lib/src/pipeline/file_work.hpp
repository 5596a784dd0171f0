#pragma once
// One input file of the folder job from its claim to its record, and what a worker thread needs
// for it: its pipelines, the job's shared state, the reporter (internal to lib/src/pipeline).
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "io/nvjpeg_decoder.hpp"
#include "io/nvjpeg_encoder.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/parallel.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/files.hpp"
#include "wk/io/jpeg_header.hpp"
#include "wk/io/metadata.hpp"
#include "wk/io/output_file.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace wk::pipeline {

class JpegDecodeService;

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct FileWork {
  std::size_t i = 0;                // the file's number in the job (input order; NVTX payload)
  FileRecord r;
  std::vector<std::uint8_t> bytes;  // the file; kept until the file is done when nvJPEG decodes it
                                    // (a GPU failure after the decode decodes it again on the CPU)
  bool finished = false;            // r is final: skipped, or failed before decoding
  io::ImageMetadata metadata;       // read with the file unless --strip; written into its output
  io::JpegHeader header;            // warpkit's parse of its headers (when it goes to nvJPEG)
  io::NvjpegImageInfo jpeg;         // what nvJPEG will decode this file to; channels 0: not nvJPEG's
  bool inspected = false;           // the decoder's limits were checked (JpegDecodeService::inspect:
                                    // nvJPEG's look or warpkit's); else `jpeg` is from the header parse only
  // Filled by the JpegDecodeService: the decoded pixels (on the service's GPU) when `decoded`.
  bool decoded = false;
  DeviceImage image;
  std::size_t device_bytes = 0;     // width * height * channels, the service's memory accounting
};

// The streams the workers' GPU pipelines (and their JPEG encoders) run on: a few per device,
// shared, made on first use. The driver gives a context a fixed number of work queues
// (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default) and streams beyond them share queues, so with 16
// workers on 16 streams the decoder's work waited behind theirs: nvJPEG's batched decode took
// ~0.9 ms per image against ~0.8 on 2 shared streams (steady 970-998 against 1091-1117 img/s).
// wk-image asks for 12 queues (app::widen_gpu_work_queues); with 32, 2 shared streams and one per
// worker measured the same. Two stay the default so that the number of streams does not grow with
// the worker count beyond what a few queues hold (docs/benchmarks.md, "wk-image over a folder").
// WK_GPU_STREAMS=N sets how many per device (0: one per worker; anything but a number from 0 to
// 64 leaves the default).
class WorkerStreams {
 public:
  WorkerStreams();
  // A stream on `device` (the current one) for a new pipeline, the device's streams taken in turn;
  // nullptr: the pipeline makes its own.
  cudaStream_t take(int device);

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
// (the CPU backend, or after a GPU failure). A GPU worker also owns, when used, its nvJPEG encoder
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

  image::Pipeline& pick();
  bool on_gpu() const { return device >= 0 && !gpu_failed; }
  std::string name() const { return on_gpu() ? "gpu" + std::to_string(opt.gpu_label(device)) : "cpu"; }
  void lose_gpu() {
    gpu_failed = true;
    encoder.reset();
    gpu.reset();
  }
};

// The inputs resume_report lists as done, each with the earlier report's record of it when it
// has one (a rank of a distributed job has none: rank 0 puts them in as it merges).
using ResumeSkips = std::unordered_map<std::string, std::optional<FileRecord>>;

// What the workers share about the job's files.
struct Shared {
  const FolderJobOptions& opt;
  const std::vector<io::InputFile>& files;
  std::vector<std::filesystem::path> outputs;
  std::vector<std::string> precheck;  // per file: an error known before starting, or ""
  ResumeSkips resume_ok;
  std::mutex side_mutex;
  std::set<std::filesystem::path> side_paths;
  std::set<io::FileIdentity> input_ids;  // every input: no output may replace one
  ByteBudget* budget = nullptr;          // host memory of images in flight
  const std::atomic<bool>* stop = nullptr;
};

// What the workers share to report: each finished record, and notices.
struct Reporter {
  const JobCallbacks& cb;
  std::mutex mutex;
  std::vector<std::optional<FileRecord>>& records;
  std::chrono::steady_clock::time_point start;
  FileSource* source = nullptr;
  // source: the ranges dealt to this process, by first index: {end, files not yet finished}.
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> ranges;

  void notice(const std::string& msg);
  void finished(std::size_t i, FileRecord&& r);
  // Under mutex: the records of [begin, end) to source->range_done.
  void range_done(std::size_t begin, std::size_t end);
};

// The checks, the read and the header probe: everything before decoding. Returns false when the
// record is final (skipped, or failed).
bool begin_file(Shared& sh, FileWork& fw);
// Whether to hand this read file to the nvJPEG decode service: a complete JPEG whose header says
// nvJPEG decodes it as OpenCV would (io::nvjpeg_unsuitable_reason; the service then asks nvJPEG
// itself), within the pixel limit. False leaves the file to OpenCV, or, over the pixel limit,
// marks it failed.
bool for_nvjpeg(const Shared& sh, FileWork& fw);
// Decodes with OpenCV (within the memory budget), runs the operations, encodes and writes.
void decode_and_finish(Shared& sh, FileWork& fw, WorkerPipelines& wp, Reporter& rep);
// A file the decode service is done with: decoded by nvJPEG (finished from its device buffer,
// which goes back to the service) or not (its batch failed: OpenCV decodes it and names what is
// wrong with it). Reports its record.
void finish_from_service(Shared& sh, std::unique_ptr<FileWork> fw, WorkerPipelines& wp, JpegDecodeService& service,
                         Reporter& rep);
// Before its first decoded file arrives (the decode service starts the hardware decoder and
// decodes a first batch meanwhile), a GPU worker runs its pipeline and encoder once on a small
// image: the kernels' modules load and the encoder's state starts here, not on the first files.
void warm_up(WorkerPipelines& wp, const FolderJobOptions& opt, Reporter& rep);

// One run of `pipeline` (and `encoder`, when given) on a 64 x 64 gray-128 colour image: loads the
// kernels' modules and starts the encoder's state. Throws what the run throws.
void run_on_small_image(image::Pipeline& pipeline, io::NvjpegEncoder* encoder);
// The nvJPEG library handle the encoders of `device` share, or null (said through `notice`)
// when it does not start: that GPU's JPEGs are then encoded with OpenCV.
std::shared_ptr<io::NvjpegLibrary> make_encode_library(int device, int label, const std::function<void(const std::string&)>& notice,
                                                       JpegDecodeService* service);

}  // namespace wk::pipeline
