#pragma once
// An image operation pipeline such as "gray,gauss:5,equalize": parsed once, then run on each
// image. On the GPU the image is uploaded once, every operation runs on device memory (two
// pitched buffers used ping-pong), and the result is downloaded once: no host round trips
// between steps.
#include <opencv2/core.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/backend.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/filter.hpp"
#include "wk/image/op.hpp"

namespace wk::image {

struct OpSpec {
  std::string name;               // "gray"
  std::vector<std::string> args;  // the ':'-separated parts after the name
  std::string text;               // as written, for messages
};

// Splits on commas, and each operation on colons, outside [...] brackets (so
// "conv:[1 2; 3 4]" stays one operation). Throws wk::Error{usage} for empty operations or
// unbalanced brackets. Does not check the names or arguments: Pipeline does, against the
// operations' declarations (wk/image/op.hpp).
std::vector<OpSpec> parse_pipeline(std::string_view text);

struct PipelineOptions {
  Border border;      // the convolution family's border (default reflect101, as OpenCV)
  bool plot = false;  // histogram: also write NAME.hist.png
  // GPU pipelines: the stream to run on, borrowed (it must outlive the pipeline), instead of one
  // of the pipeline's own. Pipelines in several threads may share one; each run then also waits
  // for what the others queued on it before its own synchronization.
  cudaStream_t stream = nullptr;
};

// A file an operation produces next to the output image: the writer names it NAME + suffix,
// NAME being the output file name without its extension (histogram: ".hist.csv").
struct SideOutput {
  std::string suffix;
  std::vector<std::uint8_t> bytes;
};

// GPU pipelines: takes the final image where the operations left it, in device memory and in
// the pipeline's stream order, instead of the download (the folder job's GPU JPEG encoder). The
// pipeline synchronizes its stream after the sink returns.
using DeviceSink = std::function<void(const DeviceImage& result, cudaStream_t stream)>;

class Pipeline {
 public:
  // Throws wk::Error{usage} naming an unknown operation or a bad argument (a non-numeric weight,
  // an empty kernel file, K even or < 1, ...); wk::Error{io} for an unreadable kernel file.
  Pipeline(std::string_view text, Backend backend, PipelineOptions options = {});
  ~Pipeline();
  Pipeline(Pipeline&&) noexcept;
  Pipeline& operator=(Pipeline&&) noexcept;

  // Runs every operation on an 8-bit 1- or 3-channel (BGR) image and returns the result. An image
  // of another depth or with alpha (16-bit, float, BGRA) runs only when takes_any_depth(): on the
  // host through OpenCV, whatever the backend; else wk::Error{unsupported} names the first
  // operation that cannot take it.
  // `index` is the NVTX payload (the image's number in the job). Side outputs of this image
  // (histogram tables, plots) are appended to `side_outputs` when given. Throws wk::Error{usage}
  // for an image an operation cannot take (a kernel larger than the image).
  // GPU pipelines with a `sink`: the result goes to the sink instead of being downloaded, and
  // the returned Mat is empty. A CPU pipeline ignores `sink`.
  cv::Mat run(const cv::Mat& image, long index = -1, std::vector<SideOutput>* side_outputs = nullptr,
              const DeviceSink& sink = {});

  // GPU pipelines: the stream every GPU step of this pipeline runs on (created on first use, on
  // the current device). Work the caller queues on it before run_device (a GPU decode into the
  // image run_device takes) is ordered before the operations without any synchronization.
  cudaStream_t stream();

  // GPU pipelines: as run(), for an 8-bit 1- or 3-channel (BGR) image already in device memory,
  // written in stream() order (no h2d stage). The pipeline borrows `image`'s buffer as its first
  // ping-pong buffer and hands a buffer back in `image` (the same or a larger one, contents
  // unspecified), so a caller that decodes many images keeps reusing its allocations.
  // With a `sink`, as run().
  cv::Mat run_device(DeviceImage& image, long index = -1, std::vector<SideOutput>* side_outputs = nullptr,
                     const DeviceSink& sink = {});

  Backend backend() const;
  const std::vector<OpSpec>& ops() const;
  // True when every operation only reads the image (histogram): the result is the input, and a
  // job writes the side outputs only, no re-encoded copy.
  bool analysis_only() const;
  // True when every operation is defined on any depth and channel count (flip, rotate, transpose,
  // crop, resize, thumbnail): 16-bit, float and BGRA images then keep their depth and alpha.
  bool takes_any_depth() const;
  // The largest JPEG DCT scale denominator (1, 2, 4 or 8) a width x height input (EXIF
  // orientation applied) may be decoded at without losing what the first operation keeps
  // (thumbnail: the reduced image is still at least the thumbnail's size); 1 for the others.
  int jpeg_shrink(int width, int height) const;
  const PipelineOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wk::image
