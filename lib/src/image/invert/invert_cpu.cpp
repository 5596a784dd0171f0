// invert on the host: cv::bitwise_not, the reference and the fallback.
#include <opencv2/core.hpp>

#include "wk/core/error.hpp"
#include "wk/image/invert.hpp"

namespace wk::image {

void invert_cpu(ConstImageView src, ImageView dst) {
  if (src.width != dst.width || src.height != dst.height || src.channels != dst.channels)
    throw Error(ErrorCategory::usage, "invert: source and destination differ in size or channels");
  if (src.empty()) return;
  const cv::Mat in(src.height, src.width, CV_8UC(src.channels), const_cast<std::uint8_t*>(src.data), src.pitch_bytes);
  cv::Mat out(dst.height, dst.width, CV_8UC(dst.channels), dst.data, dst.pitch_bytes);
  cv::bitwise_not(in, out);
}

}  // namespace wk::image
