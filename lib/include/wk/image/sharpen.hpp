#pragma once
// sharpen: unsharp mask, cv::addWeighted(src, 1 + A, cv::GaussianBlur(src, 5 x 5, 0), -A, 0).
// The blur is bit-exact (gauss.hpp); the weighting is fp32 fma(src, 1 + A, fma(blur, -A, 0)) and
// cvRound, as OpenCV's SIMD addWeighted, within 1 LSB of OpenCV everywhere.
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/image/filter.hpp"

namespace wk::image {

inline constexpr int kSharpenKsize = 5;

// A finite amount >= 0 (default 1); throws wk::Error{usage} naming sharpen otherwise.
void check_sharpen_amount(double amount);

// GPU: device images of the same size and channel count (1, 3 or 4). Asynchronous on `stream`.
// `rung`: a rung of find_operation("sharpen")->rungs() by name, empty for the tuned default; one that
// does not apply to the call gives way to the default. Returns the name of the rung that ran (""
// for an empty image).
const char* sharpen(ConstImageView d_src, ImageView d_dst, double amount, const Border& border, cudaStream_t stream,
                    std::string_view rung = {});
const char* sharpen(ConstImageViewF32 d_src, ImageViewF32 d_dst, double amount, const Border& border, cudaStream_t stream,
                    std::string_view rung = {});

void sharpen_cpu(ConstImageView src, ImageView dst, double amount, const Border& border);
void sharpen_cpu(ConstImageViewF32 src, ImageViewF32 dst, double amount, const Border& border);

}  // namespace wk::image
