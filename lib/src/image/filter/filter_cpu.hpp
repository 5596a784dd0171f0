#pragma once
// Internal: what the convolution family's CPU paths share (OpenCV headers are fine here: .cpp only).
#include <opencv2/core.hpp>

#include <functional>

#include "wk/image/filter.hpp"

namespace wk::image::detail {

// cv::Mat headers over views (no copy). A Mat made from a pointer is never a submatrix, so
// OpenCV filters treat the view's edge as the image's edge.
cv::Mat as_mat(ConstImageView v);
cv::Mat as_mat(ImageView v);
cv::Mat as_mat(ConstImageViewF32 v);
cv::Mat as_mat(ImageViewF32 v);
cv::Mat as_mat(ImageViewS16 v);

// Runs an OpenCV filter `fn(in, out, cv_border_type)` with warpkit's border. OpenCV's filters take
// reflect101, reflect, replicate and constant 0 directly; a constant V != 0 (their constant is
// always 0) and wrap (which they do not support) run on a copy padded by cv::copyMakeBorder with
// the kernel's reach (left = anchor_x, right = kernel_width - 1 - anchor_x, ...), and the result
// is cropped back. Every output pixel reads the same values either way.
void run_with_border(const cv::Mat& in, cv::Mat& out, const Border& border, int kernel_width, int kernel_height, int anchor_x,
                     int anchor_y, const std::function<void(const cv::Mat&, cv::Mat&, int)>& fn);

// Usage errors for mismatched host views: "OP: ...".
void check_cpu_views(const char* op, const cv::Mat& in, const cv::Mat& out);

}  // namespace wk::image::detail
