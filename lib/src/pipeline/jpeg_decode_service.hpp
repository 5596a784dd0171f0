#pragma once
// One GPU's nvJPEG decoding for the folder job (--jpeg-decoder nvjpeg). The workers of that GPU
// read JPEGs, check their headers and submit them; one thread owns the nvJPEG library handle and
// decode state, has nvJPEG inspect what has been submitted and decodes it in batches (one
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
#include <condition_variable>
#include <deque>
#include <functional>
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

  // Starts the decoding thread on `device`. `producers`: how many workers will submit (each
  // calls producer_done() once). `batch`: the most JPEGs per decode call.
  JpegDecodeService(int device, int batch, int producers, Notice notice);
  ~JpegDecodeService();  // waits for the thread (after every producer_done)
  JpegDecodeService(const JpegDecodeService&) = delete;
  JpegDecodeService& operator=(const JpegDecodeService&) = delete;

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

 private:
  void run();
  bool room() const;  // under mutex_: submit would take a file
  std::unique_ptr<FileWork> pop_ready();  // under mutex_: the oldest ready file, or null
  void decode(std::vector<std::unique_ptr<FileWork>>& batch, io::NvjpegDecoder& decoder, cudaStream_t stream);

  const int device_;
  Notice notice_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int batch_;                 // halved after device-memory failures; 0: refusing
  int producers_;             // still submitting
  std::deque<std::unique_ptr<FileWork>> pending_, ready_;
  std::size_t pending_bytes_ = 0;
  int outstanding_ = 0;       // decoded, not yet recycled
  std::size_t outstanding_bytes_ = 0, device_budget_ = 0;
  std::vector<DeviceImage> free_;
  bool ended_ = false;        // the thread has decoded everything it ever will
  std::thread thread_;
};

}  // namespace wk::pipeline
