#pragma once
// box: K x K mean filter, exactly cv::blur(src, dst, Size(K, K), Point(-1, -1), border).
// 8-bit images reproduce OpenCV's integer arithmetic: for K * K <= 256 its fixed-point division
// ((sum + add) * mul) >> 23, above that cvRound(float(sum) * float(1 / K^2)). (For even K >= 18
// OpenCV's own scalar tail rounds ties in double and can differ from its SIMD body by 1: the GPU
// follows the SIMD body.) Even K is allowed, anchored at K / 2 as OpenCV.
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/image/filter.hpp"

namespace wk::image {

// K from 1 to 31; throws wk::Error{usage} naming box otherwise.
void check_box_args(int ksize);

// GPU: device images of the same size and channel count (1, 3 or 4). Asynchronous on `stream`.
// `rung`: a rung of find_operation("box")->rungs() by name, empty for the tuned default; one that
// does not apply to the call gives way to the default. Returns the name of the rung that ran (""
// for an empty image).
const char* box(ConstImageView d_src, ImageView d_dst, int ksize, const Border& border, cudaStream_t stream,
                std::string_view rung = {});
const char* box(ConstImageViewF32 d_src, ImageViewF32 d_dst, int ksize, const Border& border, cudaStream_t stream,
                std::string_view rung = {});

void box_cpu(ConstImageView src, ImageView dst, int ksize, const Border& border);
void box_cpu(ConstImageViewF32 src, ImageViewF32 dst, int ksize, const Border& border);

}  // namespace wk::image
