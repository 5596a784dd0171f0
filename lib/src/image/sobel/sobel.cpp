// sobel on the GPU: the vectorized 3 x 3 kernel (vectorized_3x3 rung, gray, aligned rows), the
// rolling 3 x 3 kernel (separable rung, gray) or the generic ladder with integer weights (exact in
// fp32); the magnitude from two s16 derivatives on the generic rungs.
#include "image/filter/stencil3x3_gpu.hpp"
#include "image/sobel/sobel_gpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/sobel.hpp"

namespace wk::image {

using namespace detail;

// vectorized_3x3 reads and writes every byte once with full-width coalesced accesses; to be
// measured on the H100 (docs/apod/sobel.md). Shapes it does not take fall back to separable.
ConvVariant sobel_default_variant() { return ConvVariant::vectorized_3x3; }

namespace {

// cv::getDerivKernels(1, 0, 3): smoothing [1 2 1], derivative [-1 0 1].
Taps1D sobel_taps_1d(SobelDerivative d) {
  Taps1D t;
  t.width = t.height = 3;
  t.anchor_x = t.anchor_y = 1;
  const float smooth[3] = {1, 2, 1}, deriv[3] = {-1, 0, 1};
  for (int i = 0; i < 3; ++i) {
    t.row[i] = d == SobelDerivative::dx ? deriv[i] : smooth[i];
    t.col[i] = d == SobelDerivative::dx ? smooth[i] : deriv[i];
  }
  return t;
}

Taps2D sobel_taps_2d(SobelDerivative d) {
  const Taps1D s = sobel_taps_1d(d);
  Taps2D t;
  t.width = t.height = 3;
  t.anchor_x = t.anchor_y = 1;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t.w[i * 3 + j] = s.col[i] * s.row[j];
  return t;
}

bool prepare(const GpuImage& s, const GpuImage& d) {
  check_filter_views("sobel", s, d);
  if (s.width == 0 || s.height == 0) return false;
  check_kernel_fits("sobel", 3, 3, s.width, s.height);
  return true;
}

// One derivative through the generic rungs.
void derivative(const GpuImage& s, const GpuImage& d, SobelDerivative which, const BorderArgs& b, const Epilogue& e,
                ConvVariant variant, cudaStream_t stream) {
  if (variant == ConvVariant::separable) separable_filter(s, d, sobel_taps_1d(which), b, e, stream);
  else filter2d(variant, s, d, sobel_taps_2d(which), b, e, stream);
}

}  // namespace

void sobel(ConstImageView d_src, ImageView d_dst, SobelOutput output, const Border& border, cudaStream_t stream,
           ConvVariant variant) {
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d)) return;
  const BorderArgs b = border_args(border, PixelType::u8);
  const SobelMode mode = output == SobelOutput::magnitude ? SobelMode::magnitude
                         : output == SobelOutput::dx      ? SobelMode::dx_abs
                                                          : SobelMode::dy_abs;
  if (variant == ConvVariant::vectorized_3x3) {
    const Stencil3x3 op = output == SobelOutput::magnitude ? Stencil3x3::sobel_magnitude
                          : output == SobelOutput::dx      ? Stencil3x3::sobel_dx_abs
                                                           : Stencil3x3::sobel_dy_abs;
    if (stencil3x3_supported(s, d, op)) return stencil3x3(s, d, op, b, stream);
    variant = ConvVariant::separable;  // colour, unaligned rows: the separable rung's kernels
  }
  if (variant == ConvVariant::separable && sobel_rolling_supported(s, d, mode)) return sobel_rolling(s, d, mode, b, stream);
  if (output != SobelOutput::magnitude) {
    // convertScaleAbs of the exact integer derivative, straight to 8 bits.
    return derivative(s, d, output == SobelOutput::dx ? SobelDerivative::dx : SobelDerivative::dy, b,
                      Epilogue{EpilogueKind::abs_round}, variant, stream);
  }
  const TempImage dx(s.width, s.height, s.channels, PixelType::s16, stream), dy(s.width, s.height, s.channels, PixelType::s16, stream);
  derivative(s, dx.image(), SobelDerivative::dx, b, Epilogue{}, variant, stream);
  derivative(s, dy.image(), SobelDerivative::dy, b, Epilogue{}, variant, stream);
  sobel_magnitude(dx.image(), dy.image(), d, stream);
}

void sobel_s16(ConstImageView d_src, ImageViewS16 d_dst, SobelDerivative which, const Border& border, cudaStream_t stream,
               ConvVariant variant) {
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d)) return;
  const BorderArgs b = border_args(border, PixelType::u8);
  const SobelMode mode = which == SobelDerivative::dx ? SobelMode::dx_s16 : SobelMode::dy_s16;
  if (variant == ConvVariant::vectorized_3x3) {
    const Stencil3x3 op = which == SobelDerivative::dx ? Stencil3x3::sobel_dx_s16 : Stencil3x3::sobel_dy_s16;
    if (stencil3x3_supported(s, d, op)) return stencil3x3(s, d, op, b, stream);
    variant = ConvVariant::separable;
  }
  if (variant == ConvVariant::separable && sobel_rolling_supported(s, d, mode)) return sobel_rolling(s, d, mode, b, stream);
  derivative(s, d, which, b, Epilogue{}, variant, stream);
}

void sobel(ConstImageViewF32 d_src, ImageViewF32 d_dst, SobelDerivative which, const Border& border, cudaStream_t stream,
           ConvVariant variant) {
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d)) return;
  if (variant == ConvVariant::vectorized_3x3) variant = ConvVariant::separable;  // 8-bit only
  derivative(s, d, which, border_args(border, PixelType::f32), Epilogue{}, variant, stream);
}

}  // namespace wk::image
