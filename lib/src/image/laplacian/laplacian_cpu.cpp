// laplacian on the CPU: cv::Laplacian (ksize 1) and cv::convertScaleAbs.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "image/filter/filter_cpu.hpp"
#include "wk/image/laplacian.hpp"

namespace wk::image {

namespace {
void laplacian_mat(const cv::Mat& in, cv::Mat out, const Border& border) {
  detail::check_cpu_views("laplacian", in, out);
  if (in.empty()) return;
  check_kernel_fits("laplacian", 3, 3, in.cols, in.rows);
  const bool eight_bit = in.depth() == CV_8U;
  detail::run_with_border(in, out, border, 3, 3, 1, 1, [&](const cv::Mat& src, cv::Mat& dst, int cv_border) {
    if (!eight_bit) return cv::Laplacian(src, dst, CV_32F, 1, 1, 0, cv_border);
    cv::Mat l16;
    cv::Laplacian(src, l16, CV_16S, 1, 1, 0, cv_border);
    cv::convertScaleAbs(l16, dst);
  });
}
}  // namespace

void laplacian_cpu(ConstImageView src, ImageView dst, const Border& border) {
  laplacian_mat(detail::as_mat(src), detail::as_mat(dst), border);
}
void laplacian_cpu(ConstImageViewF32 src, ImageViewF32 dst, const Border& border) {
  laplacian_mat(detail::as_mat(src), detail::as_mat(dst), border);
}

}  // namespace wk::image
