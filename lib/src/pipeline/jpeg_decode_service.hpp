#pragma once
// One GPU's nvJPEG decoding for the folder job (--jpeg-decoder nvjpeg). The workers of that GPU
// read JPEGs, check their headers, have nvJPEG inspect them (each with its own parser, once the
// library handle exists) and submit them; one thread owns the nvJPEG library handle and decode
// state, inspects what was submitted before the handle existed and decodes in batches (one
// nvjpegDecodeBatched call per output format) into device buffers it recycles; the workers take
// decoded files back and finish them (operations, encode, write). The thread creates the handle
// itself (the hardware decoder's takes ~0.3 s to start on the H100), while the workers read the
// first files. One decoding thread per GPU, not one batch per worker: 16 workers calling
// nvjpegDecodeBatched on one handle contend for the hardware decoder and ran at a fraction of
// one caller's rate (docs/benchmarks.md).
//
// Memory stays bounded: at most 2 x batch files wait for the decoder (and 1 GiB of their
// bytes), and decoded files not yet recycled hold at most 2 x batch device buffers and a quarter
// of the device memory that was free at start (always at least one file).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/nvjpeg_decoder.hpp"
#include "pipeline/file_work.hpp"

namespace wk::pipeline {

class JpegDecodeService {
 public:
  using Notice = std::function<void(const std::string&)>;

  struct Options {
    int device = 0;
    int label = -1;        // the GPU's id in notices (FolderJobOptions::gpu_label); -1: device
    int batch = 64;        // the most JPEGs per decode call
    int producers = 1;     // workers that will submit (each calls producer_done() once)
    // JPEGs of the job (its first ones, in order). The longest of them (in bytes; none longer
    // than twice their median) is decoded in one batch of `batch` copies as soon as the
    // decoder exists, into buffers kept for the first real batch: nvJPEG's first call (~0.4 s on
    // the H100, the hardware decoder starting) and the first buffer allocations happen before any
    // file waits for them. The longest, because the hardware decoder sizes each place of a batch
    // for the longest JPEG it has held and grows it, slowly, when a longer one comes: warmed with
    // the job's first JPEG, its next seven batches of 4K photos took 59-94 ms instead of 49
    // (docs/benchmarks.md). The first one is decoded instead when nvJPEG does not take the
    // longest or its copies would not fit the device budget. Empty: no warm-up.
    std::vector<std::filesystem::path> warm_jpegs;
    Notice notice;
  };

  // What the decoding thread did, for the report and the bench.
  struct Stats {
    double started_s = -1;       // decoder made (and warmed up), seconds after construction; -1: not (yet)
    double busy_s = 0;           // inside decode calls (nvJPEG's inspection included), of which:
    double inspect_s = 0;        //   nvJPEG's look at the files the workers had not inspected
    double call_s = 0;           //   inside nvjpegDecodeBatched (host work)
    double sync_s = 0;           //   waiting for the decode stream after it (GPU and JPEG engine)
    double starved_s = 0;        // waiting for files while producers were still submitting
    double waiting_room_s = 0;   // waiting for decoded files to be recycled (device memory)
    double worker_inspect_s = 0; // the workers' inspect calls, summed over the workers
    std::string warm_jpeg;       // the JPEG the warm-up decoded; "": none
    std::size_t batches = 0, decoded = 0;
  };

  // Starts the decoding thread on `device`.
  explicit JpegDecodeService(Options options);
  ~JpegDecodeService();  // waits for the thread (after every producer_done)
  JpegDecodeService(const JpegDecodeService&) = delete;
  JpegDecodeService& operator=(const JpegDecodeService&) = delete;

  // Waits until the decoder exists and was warmed up (true), or could not start (false: the
  // service refuses every file).
  bool wait_started();
  Stats stats();

  // One worker's means of inspection, set up by inspect once the library handle exists: an
  // nvJPEG parser, or (WK_NVJPEG_INSPECT=warpkit) none: warpkit's own check of the hardware
  // decoder's limits.
  class Inspector {
    friend class JpegDecodeService;
    bool set_up = false;
    bool hardware = false;                     // the library is the hardware decoder's
    std::unique_ptr<io::NvjpegParser> parser;  // null when none is needed or none could be made
  };
  // The inspection of a read JPEG (after the caller's own header check) on the caller's thread.
  // False: the decoder would turn it down (decode it with OpenCV); true: submit it (inspected, or
  // left to the decoding thread while the library handle does not exist yet).
  bool inspect(FileWork& fw, Inspector& inspector);

  enum class Submit { taken, full, refused };
  // Hands over a read JPEG whose header the caller checked (fw->jpeg: size and channels from
  // it, for the memory accounting). taken: `fw` is the service's now;
  // full: too much is waiting, finish a decoded file (take_ready / wait_ready_or_room) and try
  // again; refused: the service no longer decodes (nvJPEG failed for good): decode it with
  // OpenCV. `fw` stays the caller's unless taken.
  Submit submit(std::unique_ptr<FileWork>& fw);

  // A file the service is done with: decoded (fw->decoded, pixels in fw->image) or not (its
  // batch failed: decode it with OpenCV, which names what is wrong). Every decoded file's buffer
  // comes back through recycle(). take_ready: null when none is ready now. wait_ready_or_room:
  // waits until one is ready (returned) or submit would not answer `full` (null).
  // wait_ready_or_end: waits until one is ready, or returns null when there will be none.
  std::unique_ptr<FileWork> take_ready();
  std::unique_ptr<FileWork> wait_ready_or_room();
  std::unique_ptr<FileWork> wait_ready_or_end();

  // A decoded file is finished: `buffer` (any device buffer of this GPU, e.g. the one the
  // pipeline handed back) is reused for a later batch; `device_bytes` is the file's.
  void recycle(DeviceImage&& buffer, std::size_t device_bytes);

  // This producer submits nothing more.
  void producer_done();

  int device() const { return device_; }

  // The decoder's nvJPEG library handle once the thread has made it (null when nvJPEG did not
  // start), for the encoders of this GPU: a second handle made beside it took ~0.28 s more on
  // the H100 and slowed the decoder's own start (docs/benchmarks.md).
  std::shared_future<std::shared_ptr<io::NvjpegLibrary>> library() const { return library_; }

 private:
  void run();
  bool room() const;  // under mutex_: submit would take a file
  std::unique_ptr<FileWork> pop_ready();  // under mutex_: the oldest ready file, or null
  // Decodes `batch`; adds what it timed to `st` (the caller holds no lock; it adds them under one).
  void decode(std::vector<std::unique_ptr<FileWork>>& batch, io::NvjpegDecoder& decoder, cudaStream_t stream, Stats& st);
  void warm_up(io::NvjpegDecoder& decoder, cudaStream_t stream);

  // Who inspects the JPEGs (WK_NVJPEG_INSPECT, read once per service, to compare them in one
  // run; the default is `workers`): nvJPEG on each worker (a parser per worker), nvJPEG on the
  // decoding thread (as it once was), or warpkit's own marker walk on each worker
  // (no nvJPEG call but the decode: io::hardware_decoder_unsuitable_reason).
  enum class InspectBy { workers, decoder, warpkit };
  static InspectBy inspect_by_from_environment();

  const int device_;
  const int label_;  // its id in notices
  Notice notice_;
  const std::vector<std::filesystem::path> warm_jpegs_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int batch_;                 // halved after device-memory failures; 0: refusing
  int producers_;             // still submitting
  const InspectBy inspect_by_;
  std::deque<std::unique_ptr<FileWork>> pending_, ready_;
  std::size_t pending_bytes_ = 0;
  int outstanding_ = 0;       // decoded, not yet recycled
  std::size_t outstanding_bytes_ = 0, device_budget_ = 0;
  std::vector<DeviceImage> free_;
  bool started_ = false;      // the decoder exists (or failed to: batch_ == 0)
  bool ended_ = false;        // the thread has decoded everything it ever will
  Stats stats_;
  std::atomic<std::int64_t> worker_inspect_ns_{0};
  std::promise<std::shared_ptr<io::NvjpegLibrary>> library_made_;
  std::shared_future<std::shared_ptr<io::NvjpegLibrary>> library_ = library_made_.get_future().share();
  std::thread thread_;
};

}  // namespace wk::pipeline
