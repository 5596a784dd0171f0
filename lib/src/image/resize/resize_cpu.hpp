#pragma once
// Internal: resize on a cv::Mat of any depth and channel count (the pipeline's any-depth path and
// the view-based resize_cpu share it).
#include <opencv2/core.hpp>

#include "wk/image/resize.hpp"

namespace wk::image::detail {

// cv::resize of `in` to the plan's scaled size with `interp`, then the plan's window.
cv::Mat resize_mat(const cv::Mat& in, const ResizePlan& plan, Interp interp);

}  // namespace wk::image::detail
