#pragma once
// An image operation pipeline such as "gray" (later "gray,gauss:5,equalize"): parsed once, then
// run on each image. On the GPU the image is uploaded once, every operation runs on device
// memory, and the result is downloaded once: no host round trips between steps.
#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/backend.hpp"

namespace wk::image {

struct OpSpec {
  std::string name;               // "gray"
  std::vector<std::string> args;  // the ':'-separated parts after the name
  std::string text;               // as written, for messages
};

// Splits on commas, and each operation on colons, outside [...] brackets (so a later
// "conv:[1 2; 3 4]" stays one operation). Throws wk::Error{usage} for empty operations or
// unbalanced brackets. Does not check the names: Pipeline does.
std::vector<OpSpec> parse_pipeline(std::string_view text);

// The operation names this build knows, for --help and messages.
std::vector<std::string> known_operations();

class Pipeline {
 public:
  // Throws wk::Error{usage} naming an unknown operation or a bad argument.
  Pipeline(std::string_view text, Backend backend);
  ~Pipeline();
  Pipeline(Pipeline&&) noexcept;
  Pipeline& operator=(Pipeline&&) noexcept;

  // Runs every operation on an 8-bit 1- or 3-channel (BGR) image and returns the result.
  // `index` is the NVTX payload (the image's number in the job).
  cv::Mat run(const cv::Mat& image, long index = -1);

  Backend backend() const;
  const std::vector<OpSpec>& ops() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wk::image
