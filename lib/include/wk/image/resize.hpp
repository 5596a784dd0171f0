#pragma once
// Resampling: resize and thumbnail. The CPU path is OpenCV's cv::resize (the reference); the GPU
// path gives the same pixels for `nearest` and is within 1 level of it for the other
// interpolations (tests/image/test_resize*.cpp check both on odd sizes, 1-pixel images, extreme
// ratios and 1, 3 and 4 channels).
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/core/image_view.hpp"

namespace wk::image {

enum class Interp {
  nearest,  // cv::INTER_NEAREST: the pixel at floor(x * in/out)
  linear,   // cv::INTER_LINEAR: 2 x 2 taps, centres aligned (no antialiasing when shrinking)
  cubic,    // cv::INTER_CUBIC: 4 x 4 taps, A = -0.75
  area,     // cv::INTER_AREA: the mean of the input pixels each output pixel covers (shrinking);
            // enlarging, OpenCV's area-weighted linear
  lanczos,  // cv::INTER_LANCZOS4: 8 x 8 taps
};
const char* interp_name(Interp i);

enum class FitMode {
  fit,    // inside the box, aspect kept (the default)
  fill,   // cover the box, aspect kept, then cut to the box around the centre
  exact,  // the box's size, aspect not kept
};

// A resize request: "WxH", "W" or "xH" (the other side follows the aspect), or "N%".
struct ResizeSize {
  int width = 0, height = 0;  // 0: follows from the other
  double percent = 0;         // > 0: both sides scaled by percent / 100
};
// Parses SIZE; throws wk::Error{usage} "resize: '...' is not a size: expected WxH, W, xH or N%".
// `op` names the operation in the message.
ResizeSize parse_resize_size(std::string_view text, const char* op = "resize");

// What happens to one image: it is scaled to scaled_width x scaled_height, and the window of
// width x height at (x, y) of the scaled image is the output (fit and exact: the whole of it;
// fill: the centred box).
struct ResizePlan {
  int scaled_width = 0, scaled_height = 0;
  int x = 0, y = 0;
  int width = 0, height = 0;
};
// The plan for an in_width x in_height image (sides of the result at least 1 pixel). With
// `no_enlarge`, an image already inside the box keeps its size (thumbnail).
ResizePlan plan_resize(const ResizeSize& size, FitMode mode, int in_width, int in_height, bool no_enlarge = false);
// The default interpolation: area when no side grows, cubic otherwise.
Interp default_interp(const ResizePlan& plan, int in_width, int in_height);

// GPU: d_dst (plan.width x plan.height, d_src's channels: 1, 3 or 4) receives the plan's window of
// d_src scaled with `interp`; no overlap. Asynchronous on `stream`. `rung`: a rung of
// find_operation("resize")->rungs() by name, empty for the tuned default; returns the name of the
// rung that ran ("" for an empty image). Throws wk::Error{usage} for views that do not match the
// plan.
const char* resize(ConstImageView d_src, ImageView d_dst, const ResizePlan& plan, Interp interp, cudaStream_t stream,
                   std::string_view rung = {});

// CPU: cv::resize to the scaled size, then the window.
void resize_cpu(ConstImageView src, ImageView dst, const ResizePlan& plan, Interp interp);

}  // namespace wk::image
