#pragma once
// laplacian: cv::convertScaleAbs(cv::Laplacian(src, CV_16S, 1)) on 8-bit images, i.e. |v| of the
// 3 x 3 kernel [0 1 0; 1 -4 1; 0 1 0] (integer sums, exact), saturated; float images give
// cv::Laplacian(src, CV_32F, 1).
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/image/filter.hpp"

namespace wk::image {

// GPU: device images of the same size and channel count (1, 3 or 4). Asynchronous on `stream`.
// `rung`: a rung of find_operation("laplacian")->rungs() by name, empty for the tuned default; one that
// does not apply to the call gives way to the default. Returns the name of the rung that ran (""
// for an empty image).
const char* laplacian(ConstImageView d_src, ImageView d_dst, const Border& border, cudaStream_t stream,
                      std::string_view rung = {});
const char* laplacian(ConstImageViewF32 d_src, ImageViewF32 d_dst, const Border& border, cudaStream_t stream,
                      std::string_view rung = {});

void laplacian_cpu(ConstImageView src, ImageView dst, const Border& border);
void laplacian_cpu(ConstImageViewF32 src, ImageViewF32 dst, const Border& border);

}  // namespace wk::image
