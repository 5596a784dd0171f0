#pragma once
// Internal interface of the convolution family's GPU machinery (lib/src/image/filter/filter.cu):
// type-erased device images, the epilogues that turn a float sum into OpenCV's output value, and
// the launchers of the generic ladder rungs. The public headers (conv.hpp, gauss.hpp, ...) are
// thin layers over this.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "wk/image/filter.hpp"

namespace wk::image::detail {

enum class PixelType : int { u8, s16, f32 };

struct GpuImage {
  void* data = nullptr;
  int width = 0, height = 0;
  std::size_t pitch = 0;  // bytes
  int channels = 1;
  PixelType type = PixelType::u8;
};

inline GpuImage gpu_image(ConstImageView v) {
  return {const_cast<std::uint8_t*>(v.data), v.width, v.height, v.pitch_bytes, v.channels, PixelType::u8};
}
inline GpuImage gpu_image(ImageView v) { return {v.data, v.width, v.height, v.pitch_bytes, v.channels, PixelType::u8}; }
inline GpuImage gpu_image(ImageViewS16 v) { return {v.data, v.width, v.height, v.pitch_bytes, v.channels, PixelType::s16}; }
inline GpuImage gpu_image(ConstImageViewF32 v) {
  return {const_cast<float*>(v.data), v.width, v.height, v.pitch_bytes, v.channels, PixelType::f32};
}
inline GpuImage gpu_image(ImageViewF32 v) { return {v.data, v.width, v.height, v.pitch_bytes, v.channels, PixelType::f32}; }

// How the float sum of a pixel becomes the output value. Sums of integer weights over 8-bit
// pixels are exact in float (below 2^24), so every epilogue but round_even on fractional
// weights reproduces OpenCV bit for bit.
enum class EpilogueKind : int {
  round_even,  // cvRound (half to even), saturate: cv::filter2D / sepFilter2D float paths, s16 outputs
  fixed16,     // sum = v * 2^16 exactly (integer weights scaled by 2^16): (v + 2^15) >> 16, saturate.
               // cv::GaussianBlur's bit-exact 8-bit path (ufixedpoint16 kernels, ufixedpoint32 sums)
  box_fixed,   // cv::blur 8-bit with area <= 256: ((s + add) * mul) >> 23 (ColumnSum<ushort, uchar>)
  box_float,   // cv::blur with area > 256: cvRound(float(s) * scale) (ColumnSum<int, uchar>)
  abs_round,   // cv::convertScaleAbs of an exact integer: saturate(|v|)
};

struct Epilogue {
  EpilogueKind kind = EpilogueKind::round_even;
  float scale = 1.f;  // box_float; also applied to float outputs
  int add = 0;        // box_fixed
  unsigned mul = 0;   // box_fixed
};

// Border with the constant value already converted to the input type (saturate_cast, as OpenCV's
// Scalar): 8-bit inputs get cvRound and clamping to 0..255.
struct BorderArgs {
  BorderMode mode = BorderMode::reflect101;
  float value = 0;
};
BorderArgs border_args(const Border& border, PixelType input);

// A 2-D kernel as kernel parameter: it lives in the constant bank, one copy per launch, so
// concurrent launches with different weights on different streams never race.
struct Taps2D {
  int width = 0, height = 0, anchor_x = 0, anchor_y = 0;
  // Row-major width x height; room for rows padded to 32 (the register-blocked rung's layout).
  float w[kMaxKernelSize * 32] = {};
};
Taps2D taps_2d(const FilterKernel& kernel);

// Rank-1 kernel: out = sum_i col[i] * sum_j row[j] * in(x + j - anchor_x, y + i - anchor_y).
struct Taps1D {
  int width = 0, height = 0, anchor_x = 0, anchor_y = 0;
  float row[kMaxKernelSize] = {};
  float col[kMaxKernelSize] = {};
};

// The kernels of the generic 2-D rungs, slowest to fastest.
enum class Filter2D {
  naive,             // 1 output/thread, weights and pixels from global memory
  constant_weights,  // weights in constant memory (kernel parameter space): broadcast, cached
  shared_tiles,      // block tile + halo staged in shared memory, border resolved while loading
  cached_halo,       // tile interior in shared memory, halo read through the L1 cache
  register_blocked,  // shared tile, 16 outputs/thread from a register window
};

// Supported type pairs: u8 -> u8, u8 -> s16, f32 -> f32. Asynchronous on `stream`.
void filter2d(Filter2D rung, const GpuImage& src, const GpuImage& dst, const Taps2D& taps, const BorderArgs& border,
              const Epilogue& epilogue, cudaStream_t stream);
// The tensor_core rung (filter_mma.cu) for 8-bit inputs and 8/16-bit outputs. Returns false,
// launching nothing, for other types and for weights that fp16 terms cannot hold to within 2^-10
// LSB.
bool filter2d_mma(const GpuImage& src, const GpuImage& dst, const Taps2D& taps, const BorderArgs& border,
                  const Epilogue& epilogue, cudaStream_t stream);
// The generic two-pass path: one kernel, the row pass into shared memory, then the column pass.
void separable_filter(const GpuImage& src, const GpuImage& dst, const Taps1D& taps, const BorderArgs& border,
                      const Epilogue& epilogue, cudaStream_t stream);

// dst (u8) = saturate(cvRound(sqrt(dx^2 + dy^2))) of two s16 images.
void sobel_magnitude(const GpuImage& dx, const GpuImage& dy, const GpuImage& dst, cudaStream_t stream);
// dst = saturate(cvRound(fma(a, alpha, fma(b, beta, gamma)))) (u8) or the unrounded value (f32):
// cv::addWeighted as OpenCV's SIMD path computes it.
void add_weighted(const GpuImage& a, const GpuImage& b, const GpuImage& dst, float alpha, float beta, float gamma,
                  cudaStream_t stream);

// A stream-ordered device image (cudaMallocAsync / cudaFreeAsync on the caller's stream): a
// temporary that never synchronizes.
class TempImage {
 public:
  TempImage(int width, int height, int channels, PixelType type, cudaStream_t stream);
  ~TempImage();
  TempImage(const TempImage&) = delete;
  TempImage& operator=(const TempImage&) = delete;
  const GpuImage& image() const { return image_; }

 private:
  GpuImage image_;
  cudaStream_t stream_;
};

// Usage errors for mismatched views: "OP: ..." (sizes, channels 1/3/4, pitches).
void check_filter_views(const char* op, const GpuImage& src, const GpuImage& dst);
std::size_t pixel_bytes(PixelType type);

// The byte-image fields that the streaming kernels' argument structs share (src, src_pitch, dst,
// dst_pitch, width, height), filled from the views.
template <class Args>
void set_byte_io(Args& a, const GpuImage& src, const GpuImage& dst) {
  a.src = static_cast<const std::uint8_t*>(src.data);
  a.src_pitch = src.pitch;
  a.dst = static_cast<std::uint8_t*>(dst.data);
  a.dst_pitch = dst.pitch;
  a.width = src.width;
  a.height = src.height;
}

// The multiprocessor count of the current device (cached per device).
int sm_count();

// Rows per block for the rolling (column-strip) kernels of gauss and sobel: `strips` blocks
// across, one block per `rows` rows down (at most 65535 down). Picks the candidate that best
// balances few partial waves over `resident` concurrent blocks against the 2 * halo_rows extra
// rows each block reads.
int rolling_rows_per_block(int strips, int height, int resident, int halo_rows);

}  // namespace wk::image::detail
