// sharpen on the CPU: cv::GaussianBlur 5 x 5 and cv::addWeighted.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "image/filter/filter_cpu.hpp"
#include "wk/image/gauss.hpp"
#include "wk/image/sharpen.hpp"

namespace wk::image {

namespace {
void sharpen_mat(const cv::Mat& in, cv::Mat out, double amount, const Border& border) {
  check_sharpen_amount(amount);
  detail::check_cpu_views("sharpen", in, out);
  if (in.empty()) return;
  check_kernel_fits("sharpen", kSharpenKsize, kSharpenKsize, in.cols, in.rows);
  cv::Mat blur(in.size(), in.type());
  constexpr int r = kSharpenKsize / 2;
  detail::run_with_border(in, blur, border, kSharpenKsize, kSharpenKsize, r, r, [&](const cv::Mat& src, cv::Mat& dst, int cv_border) {
    cv::GaussianBlur(src, dst, cv::Size(kSharpenKsize, kSharpenKsize), 0, 0, cv_border);
  });
  cv::addWeighted(in, 1 + amount, blur, -amount, 0, out);
}
}  // namespace

void sharpen_cpu(ConstImageView src, ImageView dst, double amount, const Border& border) {
  sharpen_mat(detail::as_mat(src), detail::as_mat(dst), amount, border);
}
void sharpen_cpu(ConstImageViewF32 src, ImageViewF32 dst, double amount, const Border& border) {
  sharpen_mat(detail::as_mat(src), detail::as_mat(dst), amount, border);
}

}  // namespace wk::image
