// equalize on the CPU: cv::equalizeHist is the reference and the fallback; colour goes through
// Y of YCrCb (cv::cvtColor both ways), alpha passed through.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <climits>
#include <string>

#include "wk/core/error.hpp"
#include "wk/image/equalize.hpp"

namespace wk::image {

void check_equalize_views(ConstImageView src, ImageView dst) {
  if (src.channels != 1 && src.channels != 3 && src.channels != 4)
    throw Error(ErrorCategory::usage, "equalize: input must have 1, 3 or 4 channels, not " + std::to_string(src.channels));
  if (dst.channels != src.channels) throw Error(ErrorCategory::usage, "equalize: output must have as many channels as the input");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::usage, "equalize: input and output sizes differ");
  if (src.width < 0 || src.height < 0) throw Error(ErrorCategory::usage, "equalize: negative image size");
  if (!src.empty() && (src.pitch_bytes < src.row_bytes() || dst.pitch_bytes < dst.row_bytes()))
    throw Error(ErrorCategory::usage, "equalize: pitch smaller than a row");
  if (double(src.width) * src.height > double(INT_MAX))
    throw Error(ErrorCategory::unsupported, "equalize: more than 2^31 pixels (cv::equalizeHist counts in int)");
}

void equalize_cpu(ConstImageView src, ImageView dst) {
  check_equalize_views(src, dst);
  if (src.empty()) return;
  const int cn = src.channels;
  const cv::Mat in(src.height, src.width, CV_8UC(cn), const_cast<std::uint8_t*>(src.data), src.pitch_bytes);
  cv::Mat out(dst.height, dst.width, CV_8UC(cn), dst.data, dst.pitch_bytes);
  if (cn == 1) {
    cv::equalizeHist(in, out);
  } else {
    cv::Mat ycc;
    cv::cvtColor(in, ycc, cv::COLOR_BGR2YCrCb);  // 4 channels: alpha ignored
    cv::Mat planes[3];
    cv::split(ycc, planes);
    cv::equalizeHist(planes[0], planes[0]);
    cv::merge(planes, 3, ycc);
    if (cn == 3) {
      cv::cvtColor(ycc, out, cv::COLOR_YCrCb2BGR);
    } else {
      cv::Mat bgr, alpha;
      cv::cvtColor(ycc, bgr, cv::COLOR_YCrCb2BGR);
      cv::extractChannel(in, alpha, 3);
      const cv::Mat parts[] = {bgr, alpha};
      const int from_to[] = {0, 0, 1, 1, 2, 2, 3, 3};
      cv::mixChannels(parts, 2, &out, 1, from_to, 4);
    }
  }
  if (out.data != dst.data) throw Error(ErrorCategory::internal, "equalize_cpu: OpenCV reallocated the output");
}

}  // namespace wk::image
