// gray on the CPU: OpenCV's cvtColor is both the reference and the fallback.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <string>

#include "wk/core/error.hpp"
#include "wk/image/gray.hpp"

namespace wk::image {

void check_gray_views(ConstImageView src, ImageView dst) {
  if (src.channels != 1 && src.channels != 3 && src.channels != 4)
    throw Error(ErrorCategory::usage, "gray: input must have 1, 3 or 4 channels, not " + std::to_string(src.channels));
  if (dst.channels != 1) throw Error(ErrorCategory::usage, "gray: output must have 1 channel");
  if (src.width != dst.width || src.height != dst.height)
    throw Error(ErrorCategory::usage, "gray: input and output sizes differ");
  if (src.width < 0 || src.height < 0) throw Error(ErrorCategory::usage, "gray: negative image size");
  if (!src.empty() && (src.pitch_bytes < src.row_bytes() || dst.pitch_bytes < dst.row_bytes()))
    throw Error(ErrorCategory::usage, "gray: pitch smaller than a row");
}

void gray_cpu(ConstImageView src, ImageView dst, ChannelOrder order) {
  check_gray_views(src, dst);
  if (src.empty()) return;
  const cv::Mat in(src.height, src.width, CV_8UC(src.channels), const_cast<std::uint8_t*>(src.data), src.pitch_bytes);
  cv::Mat out(dst.height, dst.width, CV_8UC1, dst.data, dst.pitch_bytes);
  const bool bgr = order == ChannelOrder::bgr;
  switch (src.channels) {
    case 1: in.copyTo(out); break;
    case 3: cv::cvtColor(in, out, bgr ? cv::COLOR_BGR2GRAY : cv::COLOR_RGB2GRAY); break;
    case 4: cv::cvtColor(in, out, bgr ? cv::COLOR_BGRA2GRAY : cv::COLOR_RGBA2GRAY); break;
  }
  if (out.data != dst.data) throw Error(ErrorCategory::internal, "gray_cpu: OpenCV reallocated the output");
}

}  // namespace wk::image
