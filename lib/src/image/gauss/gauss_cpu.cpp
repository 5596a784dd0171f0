// gauss on the CPU: cv::GaussianBlur is the reference and the fallback.
#include <opencv2/imgproc.hpp>

#include "image/filter/filter_cpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gauss.hpp"

namespace wk::image {

namespace {
void gauss_mat(const cv::Mat& in, cv::Mat out, int ksize, double sigma, const Border& border) {
  check_gauss_args(ksize, sigma);
  detail::check_cpu_views("gauss", in, out);
  if (in.empty()) return;
  check_kernel_fits("gauss", ksize, ksize, in.cols, in.rows);
  const int r = ksize / 2;
  detail::run_with_border(in, out, border, ksize, ksize, r, r, [&](const cv::Mat& src, cv::Mat& dst, int cv_border) {
    cv::GaussianBlur(src, dst, cv::Size(ksize, ksize), sigma, sigma, cv_border);
  });
}
}  // namespace

void gauss_cpu(ConstImageView src, ImageView dst, int ksize, double sigma, const Border& border) {
  gauss_mat(detail::as_mat(src), detail::as_mat(dst), ksize, sigma, border);
}

void gauss_cpu(ConstImageViewF32 src, ImageViewF32 dst, int ksize, double sigma, const Border& border) {
  gauss_mat(detail::as_mat(src), detail::as_mat(dst), ksize, sigma, border);
}

}  // namespace wk::image
