#pragma once
// conv: correlation with any kernel up to 31 x 31 (float weights, even sizes allowed, anchor at
// (width / 2, height / 2)), exactly as cv::filter2D(src, dst, -1, kernel, anchor, 0, border); a
// rank-1 kernel runs as two 1-D passes, as cv::sepFilter2D with the factors from separate().
// 8-bit results are saturate(cvRound(sum)) of an fp32 sum: the GPU sums in another order than
// OpenCV (and OpenCV itself switches to a DFT for large kernels), so results agree within 1 LSB.
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/image/filter.hpp"

namespace wk::image {

// GPU: device images of the same size and channel count (1, 3 or 4), not overlapping.
// `rung`: a rung of find_operation("conv")->rungs() by name, empty for the tuned default; one that
// does not apply to the call gives way to the default. Returns the name of the rung that ran (""
// for an empty image).
const char* conv(ConstImageView d_src, ImageView d_dst, const FilterKernel& kernel, const Border& border, cudaStream_t stream,
                 std::string_view rung = {});
const char* conv(ConstImageViewF32 d_src, ImageViewF32 d_dst, const FilterKernel& kernel, const Border& border,
                 cudaStream_t stream, std::string_view rung = {});

// CPU: cv::sepFilter2D (rank 1) or cv::filter2D.
void conv_cpu(ConstImageView src, ImageView dst, const FilterKernel& kernel, const Border& border);
void conv_cpu(ConstImageViewF32 src, ImageViewF32 dst, const FilterKernel& kernel, const Border& border);

}  // namespace wk::image
