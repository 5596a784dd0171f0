#pragma once
// Internal: the vectorized 3 x 3 stencil kernel (stencil3x3.cu), the `vectorized_3x3` rung of
// sobel and laplacian on 1-channel 8-bit images.
#include <cuda_runtime_api.h>

#include "image/filter/filter_gpu.hpp"

namespace wk::image::detail {

// What the kernel computes; all are exact integer sums (cv::Sobel ksize 3, cv::Laplacian ksize 1).
enum class Stencil3x3 : int {
  sobel_dx_s16,     // cv::Sobel(src, CV_16S, 1, 0)
  sobel_dy_s16,     // cv::Sobel(src, CV_16S, 0, 1)
  sobel_dx_abs,     // cv::convertScaleAbs of the above: saturate(|dx|)
  sobel_dy_abs,     // saturate(|dy|)
  sobel_magnitude,  // saturate(cvRound(sqrt(dx^2 + dy^2)))
  laplacian_abs,    // cv::convertScaleAbs(cv::Laplacian(src, CV_16S, 1))
};

// 1-channel u8 input with 8-byte aligned rows (pointer and pitch); output s16 (the *_s16 ops,
// rows 16-byte aligned) or u8 (rows 8-byte aligned); at most 65535 * 16 rows. Other shapes use
// the generic rungs.
bool stencil3x3_supported(const GpuImage& src, const GpuImage& dst, Stencil3x3 op);

// Asynchronous on `stream`; throws wk::Error{internal} when !stencil3x3_supported.
void stencil3x3(const GpuImage& src, const GpuImage& dst, Stencil3x3 op, const BorderArgs& border, cudaStream_t stream);

}  // namespace wk::image::detail
