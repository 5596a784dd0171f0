#include "image/filter/filter_cpu.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "wk/core/error.hpp"

namespace wk::image::detail {

cv::Mat as_mat(ConstImageView v) {
  return cv::Mat(v.height, v.width, CV_8UC(v.channels), const_cast<std::uint8_t*>(v.data), v.pitch_bytes);
}
cv::Mat as_mat(ImageView v) { return cv::Mat(v.height, v.width, CV_8UC(v.channels), v.data, v.pitch_bytes); }
cv::Mat as_mat(ConstImageViewF32 v) { return cv::Mat(v.height, v.width, CV_32FC(v.channels), const_cast<float*>(v.data), v.pitch_bytes); }
cv::Mat as_mat(ImageViewF32 v) { return cv::Mat(v.height, v.width, CV_32FC(v.channels), v.data, v.pitch_bytes); }
cv::Mat as_mat(ImageViewS16 v) { return cv::Mat(v.height, v.width, CV_16SC(v.channels), v.data, v.pitch_bytes); }

namespace {
int cv_border(BorderMode m) {
  switch (m) {
    case BorderMode::replicate: return cv::BORDER_REPLICATE;
    case BorderMode::reflect: return cv::BORDER_REFLECT;
    case BorderMode::reflect101: return cv::BORDER_REFLECT_101;
    case BorderMode::constant: return cv::BORDER_CONSTANT;
    case BorderMode::wrap: return cv::BORDER_WRAP;
  }
  return cv::BORDER_REFLECT_101;
}
}  // namespace

void run_with_border(const cv::Mat& in, cv::Mat& out, const Border& border, int kw, int kh, int ax, int ay,
                     const std::function<void(const cv::Mat&, cv::Mat&, int)>& fn) {
  bool direct = border.mode != BorderMode::wrap;
  if (border.mode == BorderMode::constant) {
    // The value as the image type holds it (saturate_cast of the Scalar).
    const double v = in.depth() == CV_8U ? std::clamp(std::lrint(border.value), 0L, 255L) : border.value;
    direct = v == 0;
  }
  if (direct) {
    cv::Mat o = out;  // OpenCV writes into the caller's memory
    fn(in, o, cv_border(border.mode));
    if (o.data != out.data) throw Error(ErrorCategory::internal, "filter CPU path: OpenCV reallocated the output");
    return;
  }
  cv::Mat padded, filtered;
  cv::copyMakeBorder(in, padded, ay, kh - 1 - ay, ax, kw - 1 - ax, cv_border(border.mode), cv::Scalar::all(border.value));
  fn(padded, filtered, cv::BORDER_REPLICATE);  // any mode: the crop below never sees it
  const cv::Mat result = filtered(cv::Rect(ax, ay, in.cols, in.rows));
  if (result.type() != out.type()) throw Error(ErrorCategory::internal, "filter CPU path produced an unexpected image type");
  result.copyTo(out);
}

void check_cpu_views(const char* op, const cv::Mat& in, const cv::Mat& out) {
  const std::string name(op);
  if (in.channels() != 1 && in.channels() != 3 && in.channels() != 4)
    throw Error(ErrorCategory::usage, name + ": input must have 1, 3 or 4 channels, not " + std::to_string(in.channels()));
  if (out.channels() != in.channels()) throw Error(ErrorCategory::usage, name + ": output must have as many channels as the input");
  if (in.size() != out.size()) throw Error(ErrorCategory::usage, name + ": input and output sizes differ");
}

}  // namespace wk::image::detail
