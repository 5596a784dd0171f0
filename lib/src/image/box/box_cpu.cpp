// box on the CPU: cv::blur is the reference and the fallback.
#include <opencv2/imgproc.hpp>

#include "image/filter/filter_cpu.hpp"
#include "wk/image/box.hpp"

namespace wk::image {

namespace {
void box_mat(const cv::Mat& in, cv::Mat out, int ksize, const Border& border) {
  check_box_args(ksize);
  detail::check_cpu_views("box", in, out);
  if (in.empty()) return;
  check_kernel_fits("box", ksize, ksize, in.cols, in.rows);
  const int a = ksize / 2;
  detail::run_with_border(in, out, border, ksize, ksize, a, a, [&](const cv::Mat& src, cv::Mat& dst, int cv_border) {
    cv::blur(src, dst, cv::Size(ksize, ksize), cv::Point(-1, -1), cv_border);
  });
}
}  // namespace

void box_cpu(ConstImageView src, ImageView dst, int ksize, const Border& border) {
  box_mat(detail::as_mat(src), detail::as_mat(dst), ksize, border);
}
void box_cpu(ConstImageViewF32 src, ImageViewF32 dst, int ksize, const Border& border) {
  box_mat(detail::as_mat(src), detail::as_mat(dst), ksize, border);
}

}  // namespace wk::image
