// wk-image's CPU load path for one file: the header probe and pixel limit before decoding
// (probe_dimensions, check_pixel_limit), decode_image (OpenCV imdecode with warpkit's checks),
// and the limit again on the decoded image, as the folder job does it.
// Invariants: bad data is a wk::Error (never a crash, another exception, a leaked file
// descriptor -- libFuzzer stops at "Too many open files" --, or an allocation beyond the limit:
// the run's -rss_limit_mb catches those); a decoded image is 8-bit 1- or 3-channel;
// when the probe read a size, the decoder produced that size (for JPEG, possibly turned by the
// EXIF orientation).
#include <opencv2/core.hpp>

#include <cstdlib>

#include "fuzz_util.hpp"
#include "wk/core/error.hpp"
#include "wk/io/image_codec.hpp"
#include "wk/pipeline/folder_job.hpp"

using wk::fuzz::check;

namespace {
// The fuzzer's --max-pixels: small, so a bomb is found without paging in gigabytes.
constexpr long long kMaxPixels = 1LL << 22;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cv::setNumThreads(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const auto dims = wk::pipeline::probe_dimensions(bytes);
  try {
    if (dims) wk::pipeline::check_pixel_limit(kMaxPixels, dims->first, dims->second);
    const cv::Mat img = wk::io::decode_image(bytes);
    check(img.depth() == CV_8U && (img.channels() == 1 || img.channels() == 3), "8-bit 1- or 3-channel image");
    check(img.total() <= std::size_t(kMaxPixels), "no decoded image beyond the pixel limit");
    if (dims) {
      const bool same = img.cols == dims->first && img.rows == dims->second;
      const bool turned = wk::io::is_jpeg_data(bytes) && img.cols == dims->second && img.rows == dims->first;
      check(same || turned, "the decoder produced the size the probe read");
    }
  } catch (const wk::Error& e) {
    check(e.category() == wk::ErrorCategory::decode || e.category() == wk::ErrorCategory::unsupported,
          std::string("a bad image is a decode error (Radiance HDR: unsupported): ") + e.what());
  }
  return 0;
}
