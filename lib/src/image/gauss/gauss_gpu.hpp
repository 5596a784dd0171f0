#pragma once
// Internal: the Gaussian's fast GPU path (gauss.cu) and the host helpers it needs (gauss.cpp).
#include <cuda_runtime_api.h>

#include <span>
#include <vector>

#include "image/filter/filter_gpu.hpp"

namespace wk::image::detail {

// cv::GaussianBlur's 8-bit kernel: ksize integer coefficients with 8 fractional bits (OpenCV's
// ufixedpoint16), summing to exactly 256: getGaussianKernelBitExact, then error diffusion
// (getGaussianKernelFixedPoint_ED). Out = (sum_i ky[i] * sum_j kx[j] * in + 2^15) >> 16 is then
// bit-exact (tests/image/test_gauss.cpp checks this against cv::GaussianBlur).
std::vector<int> gauss_fixed_kernel(int ksize, double sigma);

// The float kernel OpenCV uses for 32-bit float images (cv::getGaussianKernel(ksize, sigma, CV_32F)).
std::vector<float> gauss_float_kernel(int ksize, double sigma);

// The order in which the tuning for architecture `sm` tries gauss's rungs on a K x K call (8-bit
// with its fixed-point kernel `fixed`, or float).
std::span<const char* const> gauss_rung_order(int ksize, const std::vector<int>& fixed, bool u8, int sm);

// Sharpen fused into the Gaussian's epilogue: out = saturate(cvRound(fma(src, alpha, fma(blur, beta, gamma)))).
struct SharpenEpilogue {
  bool enabled = false;
  float alpha = 0, beta = 0, gamma = 0;
};

// True when the fast kernel takes this call: 1-channel u8 -> u8, rows 8-byte aligned, ksize 3..15,
// every coefficient below 256.
bool gauss_rolling_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel);

// The fast kernel: each thread owns 4 or 8 columns and walks a segment of rows. Per input row the
// horizontal pass is exact 8-bit dot products (dp4a) against coefficient words pre-shifted for each
// output phase, the vertical pass fp32 FMAs (exact: integer sums below 2^24) into a ring of 2R + 1
// pending output rows held in registers; each input byte is read once (plus 2R rows per segment).
void gauss_rolling(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
                   const SharpenEpilogue& sharpen, cudaStream_t stream);

// Taps that are all multiples of 16 (the default-sigma kernels, [64 128 64] and [16 64 96 64 16]):
// vectorized_5x5 runs both passes in 16-bit lanes on the taps / 16 (gauss_vectorized.cu).
bool gauss_small_taps(const std::vector<int>& kernel);

// The vectorized_5x5 rung (gauss_vectorized.cu): 1-channel u8 -> u8, rows 8-byte aligned, K 3 or
// 5 with a symmetric kernel summing to 256, at most 65535 * 64 rows.
bool gauss_vectorized_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel);

// A streaming kernel (16 columns x 8 rows per thread, 64-bit loads and stores): the vertical pass
// first, in 16-bit lanes of packed words, then the horizontal pass in 32 bits, or also in 16-bit
// lanes when every tap is a multiple of 16 (the default-sigma kernels). Bit-exact.
// Throws Error{internal} when !gauss_vectorized_supported.
void gauss_vectorized(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
                      cudaStream_t stream);

// sharpen fused into the vectorized_5x5 kernel: the default 5 x 5 Gaussian (small taps), then
// out = saturate(cvRound(fma(src, alpha, fma(blur, beta, gamma)))) per pixel before the store,
// with src the row's own bytes the vertical pass already loaded: one pass, 2 bytes per pixel.
bool gauss_vectorized_sharpen_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel);
void gauss_vectorized_sharpen(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
                              const SharpenEpilogue& sharpen, cudaStream_t stream);

// The vectorized_wide rung (gauss_wide.cu): 1-channel u8 -> u8, rows 8-byte aligned, K 5..15 with
// a symmetric kernel summing to 256, every weight below 256, at most 65535 * 32 rows.
bool gauss_wide_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel);

// A streaming kernel (8 columns x 8 rows per thread, 64-bit loads and stores): the vertical pass
// first, as 8-bit dot products (dp4a) over 4-row groups transposed into column words, then the
// horizontal pass as 16 x 8-bit dot products (dp2a) on the sums packed in 16-bit lanes. Bit-exact.
// Throws Error{internal} when !gauss_wide_supported.
void gauss_wide(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
                cudaStream_t stream);

// The Gaussian's tensor_core rung (gauss_mma.cu): u8 -> u8, any channel count and alignment,
// K 3..15 with taps 0..256. Both passes as fp16 mma products, the row pass's sums split into two
// exact fp16 terms for the column pass. Bit-exact. Throws Error{internal} when !gauss_mma_supported.
// 1-channel images with 16-byte aligned input rows and taps below 256 go to its streaming form.
bool gauss_mma_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel);
void gauss_mma(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
               cudaStream_t stream);

// The streaming form (gauss_mma_stream.cu): a block walks a 128-column strip, raw input rows
// staged by cp.async ahead of the tensor cores; the row pass on 8-bit integers (mma m16n8k32),
// the column pass in fp16. Bit-exact. Throws Error{internal} when !gauss_mma_stream_supported.
bool gauss_mma_stream_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel);
void gauss_mma_stream(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
                      cudaStream_t stream);

}  // namespace wk::image::detail
