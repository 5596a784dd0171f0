// sobel on the CPU: cv::Sobel (ksize 3), cv::convertScaleAbs, and the magnitude of the two 16-bit
// derivatives through cv::magnitude in float (exact: see sobel.hpp) and cvRound.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "image/filter/filter_cpu.hpp"
#include "wk/image/sobel.hpp"

namespace wk::image {

namespace {

void sobel_mat(const cv::Mat& in, cv::Mat out, int out_depth, int dx, int dy, const Border& border) {
  detail::check_cpu_views("sobel", in, out);
  if (in.empty()) return;
  check_kernel_fits("sobel", 3, 3, in.cols, in.rows);
  detail::run_with_border(in, out, border, 3, 3, 1, 1, [&](const cv::Mat& src, cv::Mat& dst, int cv_border) {
    cv::Sobel(src, dst, out_depth, dx, dy, 3, 1, 0, cv_border);
  });
}

}  // namespace

void sobel_s16_cpu(ConstImageView src, ImageViewS16 dst, SobelDerivative d, const Border& border) {
  sobel_mat(detail::as_mat(src), detail::as_mat(dst), CV_16S, d == SobelDerivative::dx, d == SobelDerivative::dy, border);
}

void sobel_cpu(ConstImageViewF32 src, ImageViewF32 dst, SobelDerivative d, const Border& border) {
  sobel_mat(detail::as_mat(src), detail::as_mat(dst), CV_32F, d == SobelDerivative::dx, d == SobelDerivative::dy, border);
}

void sobel_cpu(ConstImageView src, ImageView dst, SobelOutput output, const Border& border) {
  const cv::Mat in = detail::as_mat(src);
  cv::Mat out = detail::as_mat(dst);
  detail::check_cpu_views("sobel", in, out);
  if (in.empty()) return;
  check_kernel_fits("sobel", 3, 3, in.cols, in.rows);
  cv::Mat gx(in.size(), CV_16SC(in.channels())), gy(in.size(), CV_16SC(in.channels()));
  const ImageViewS16 vx{reinterpret_cast<std::int16_t*>(gx.data), gx.cols, gx.rows, gx.step[0], gx.channels()};
  const ImageViewS16 vy{reinterpret_cast<std::int16_t*>(gy.data), gy.cols, gy.rows, gy.step[0], gy.channels()};
  if (output != SobelOutput::dy) sobel_s16_cpu(src, vx, SobelDerivative::dx, border);
  if (output != SobelOutput::dx) sobel_s16_cpu(src, vy, SobelDerivative::dy, border);
  if (output == SobelOutput::dx) return cv::convertScaleAbs(gx, out);
  if (output == SobelOutput::dy) return cv::convertScaleAbs(gy, out);
  cv::Mat fx, fy, mag;
  gx.convertTo(fx, CV_32F);
  gy.convertTo(fy, CV_32F);
  cv::magnitude(fx.reshape(1), fy.reshape(1), mag);
  mag.reshape(in.channels()).convertTo(out, out.type());
}

}  // namespace wk::image
