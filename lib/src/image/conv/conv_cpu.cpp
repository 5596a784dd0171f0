// conv on the CPU: cv::sepFilter2D for rank-1 kernels, cv::filter2D otherwise.
#include <opencv2/imgproc.hpp>

#include "image/filter/filter_cpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/conv.hpp"

namespace wk::image {

namespace {
void conv_mat(const cv::Mat& in, cv::Mat out, const FilterKernel& k, const Border& border) {
  if (k.width < 1 || k.height < 1 || k.width > kMaxKernelSize || k.height > kMaxKernelSize ||
      k.weights.size() != std::size_t(k.width) * k.height)
    throw Error(ErrorCategory::usage, "conv: the kernel must be 1x1 to 31x31 with width * height weights");
  detail::check_cpu_views("conv", in, out);
  if (in.empty()) return;
  check_kernel_fits("conv", k.width, k.height, in.cols, in.rows);
  const cv::Point anchor(k.anchor_x(), k.anchor_y());
  const auto factors = separate(k);
  detail::run_with_border(in, out, border, k.width, k.height, anchor.x, anchor.y, [&](const cv::Mat& src, cv::Mat& dst, int cv_border) {
    if (factors) {
      const cv::Mat row(1, k.width, CV_32F, const_cast<float*>(factors->row.data()));
      const cv::Mat col(k.height, 1, CV_32F, const_cast<float*>(factors->column.data()));
      cv::sepFilter2D(src, dst, -1, row, col, anchor, 0, cv_border);
    } else {
      const cv::Mat kernel(k.height, k.width, CV_32F, const_cast<float*>(k.weights.data()));
      cv::filter2D(src, dst, -1, kernel, anchor, 0, cv_border);
    }
  });
}
}  // namespace

void conv_cpu(ConstImageView src, ImageView dst, const FilterKernel& kernel, const Border& border) {
  conv_mat(detail::as_mat(src), detail::as_mat(dst), kernel, border);
}
void conv_cpu(ConstImageViewF32 src, ImageViewF32 dst, const FilterKernel& kernel, const Border& border) {
  conv_mat(detail::as_mat(src), detail::as_mat(dst), kernel, border);
}

}  // namespace wk::image
