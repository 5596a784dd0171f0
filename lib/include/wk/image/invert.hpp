#pragma once
// invert: the photographic negative of an 8-bit image, 255 - v in every channel, exactly
// cv::bitwise_not (ImageMagick's -negate).
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/core/image_view.hpp"

namespace wk::image {

// GPU: device images of the same size and channel count (1, 3 or 4); in place (d_dst == d_src)
// is allowed. Asynchronous on `stream`. `rung`: a rung of find_operation("invert")->rungs() by
// name, empty for the tuned default; one that does not apply gives way to the default. Returns
// the name of the rung that ran ("" for an empty image).
const char* invert(ConstImageView d_src, ImageView d_dst, cudaStream_t stream, std::string_view rung = {});

// CPU: cv::bitwise_not.
void invert_cpu(ConstImageView src, ImageView dst);

}  // namespace wk::image
