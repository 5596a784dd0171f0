#pragma once
// gauss: K x K Gaussian blur, exactly cv::GaussianBlur(src, dst, Size(K, K), sigma, sigma, border).
// 8-bit images are bit-exact on every rung: OpenCV's 8-bit path is fixed point (8-bit fraction
// coefficients, (v + 2^15) >> 16 rounding) and the GPU reproduces its integers exactly in fp32.
// 32-bit float images agree to float rounding (OpenCV's float kernel, separable in float).
#include <cuda_runtime_api.h>

#include <string_view>
#include <vector>

#include "wk/image/filter.hpp"

namespace wk::image {

// K odd from 1 to 31; sigma >= 0 (0: from K as OpenCV, 0.3 * ((K - 1) * 0.5 - 1) + 0.8).
// Throws wk::Error{usage} naming gauss otherwise.
void check_gauss_args(int ksize, double sigma);

// The bit-exact 8-bit kernel of cv::GaussianBlur: K integer coefficients with 8 fraction bits
// (ufixedpoint16), summing to exactly 256 (getGaussianKernelBitExact, then OpenCV's error
// diffusion). Out = gauss_fixed_round(sum_i k[i] * sum_j k[j] * in) (filter_formula.hpp).
std::vector<int> gauss_fixed_point_kernel(int ksize, double sigma);

// GPU: d_src, d_dst device images of the same size and channels (1, 3 or 4), not overlapping.
// Asynchronous on `stream`. Throws wk::Error{usage} when the kernel is larger than the image.
// `rung` selects a rung of the ladder by name (find_operation("gauss")->rungs(); empty: the tuned
// default); a rung that does not apply to the call gives way to the default. Returns the name of
// the rung that ran ("" when no kernel ran: an empty image, or K = 1, which copies).
const char* gauss(ConstImageView d_src, ImageView d_dst, int ksize, double sigma, const Border& border, cudaStream_t stream,
                  std::string_view rung = {});
const char* gauss(ConstImageViewF32 d_src, ImageViewF32 d_dst, int ksize, double sigma, const Border& border,
                  cudaStream_t stream, std::string_view rung = {});

// CPU: cv::GaussianBlur (constant V != 0 and wrap borders on a padded copy).
void gauss_cpu(ConstImageView src, ImageView dst, int ksize, double sigma, const Border& border);
void gauss_cpu(ConstImageViewF32 src, ImageViewF32 dst, int ksize, double sigma, const Border& border);

}  // namespace wk::image
