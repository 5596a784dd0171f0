#pragma once
// gauss: K x K Gaussian blur, exactly cv::GaussianBlur(src, dst, Size(K, K), sigma, sigma, border).
// 8-bit images are bit-exact on every rung: OpenCV's 8-bit path is fixed point (8-bit fraction
// coefficients, (v + 2^15) >> 16 rounding) and the GPU reproduces its integers exactly in fp32.
// 32-bit float images agree to float rounding (OpenCV's float kernel, separable in float).
#include <cuda_runtime_api.h>

#include <optional>
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

// The fastest measured rung for a K x K Gaussian (H100, 8192x8192 u8, docs/apod/gauss.md):
// vectorized_5x5 up to 5 x 5 (1194 vs 331 Gpx/s for register_blocked), except 5 x 5 with taps that
// are not all multiples of 16 (a sigma other than the default; 1163 vs 1080 Gpx/s, 2026-11-26),
// vectorized_wide for those and for 7 x 7 .. 15 x 15 (15x15: 705-709 vs 98 for separable), separable
// above; colour, unaligned rows or a centre weight of 256 take register_blocked (K <= 7) or
// separable under those names. Every rung is bit-exact.
ConvVariant gauss_default_variant(int ksize, double sigma = 0);

// GPU: d_src, d_dst device images of the same size and channels (1, 3 or 4), not overlapping.
// Asynchronous on `stream`. Throws wk::Error{usage} when the kernel is larger than the image.
void gauss(ConstImageView d_src, ImageView d_dst, int ksize, double sigma, const Border& border, cudaStream_t stream,
           std::optional<ConvVariant> variant = std::nullopt);  // nullopt: gauss_default_variant(ksize, sigma)
void gauss(ConstImageViewF32 d_src, ImageViewF32 d_dst, int ksize, double sigma, const Border& border, cudaStream_t stream,
           std::optional<ConvVariant> variant = std::nullopt);  // nullopt: gauss_default_variant(ksize)

// CPU: cv::GaussianBlur (constant V != 0 and wrap borders on a padded copy).
void gauss_cpu(ConstImageView src, ImageView dst, int ksize, double sigma, const Border& border);
void gauss_cpu(ConstImageViewF32 src, ImageViewF32 dst, int ksize, double sigma, const Border& border);

}  // namespace wk::image
