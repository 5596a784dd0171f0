#pragma once
// Internal: the Sobel's fast GPU kernel (sobel.cu).
#include <cuda_runtime_api.h>

#include "image/filter/filter_gpu.hpp"

namespace wk::image::detail {

enum class SobelMode : int { dx_s16, dy_s16, dx_abs, dy_abs, magnitude };

// 1-channel u8 input, rows 8-byte aligned; outputs s16 (16-byte aligned rows) or u8 (8-byte).
bool sobel_rolling_supported(const GpuImage& src, const GpuImage& dst, SobelMode mode);

// Each thread owns 8 columns and walks a segment of rows keeping three input rows in registers;
// the column neighbours x - 1 and x + 8 come from the neighbouring lanes. Integer arithmetic,
// exact; the magnitude is sqrtf of the exact integer dx^2 + dy^2.
void sobel_rolling(const GpuImage& src, const GpuImage& dst, SobelMode mode, const BorderArgs& border, cudaStream_t stream);

}  // namespace wk::image::detail
