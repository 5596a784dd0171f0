// sharpen on the GPU: gray 8-bit with aligned rows on the vectorized_5x5 rung (the default) or the
// separable rung is one pass (the Gaussian's streaming or rolling kernel with the addWeighted
// epilogue); otherwise the Gaussian rung into a temporary, then addWeighted.
#include <cmath>

#include "image/gauss/gauss_gpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gauss.hpp"
#include "wk/image/sharpen.hpp"

namespace wk::image {

using namespace detail;

void check_sharpen_amount(double amount) {
  if (!(amount >= 0) || !std::isfinite(amount))
    throw Error(ErrorCategory::usage, "sharpen: AMOUNT must be a finite number >= 0");
}

// The vectorized_5x5 rung with the weighting fused (gauss_vectorized.cu): measured on the H100,
// docs/apod/sharpen.md. Shapes it does not take run the separable rung's path.
ConvVariant sharpen_default_variant() { return ConvVariant::vectorized_5x5; }

namespace {
bool prepare(const GpuImage& s, const GpuImage& d, double amount) {
  check_sharpen_amount(amount);
  check_filter_views("sharpen", s, d);
  if (s.width == 0 || s.height == 0) return false;
  check_kernel_fits("sharpen", kSharpenKsize, kSharpenKsize, s.width, s.height);
  return true;
}
}  // namespace

void sharpen(ConstImageView d_src, ImageView d_dst, double amount, const Border& border, cudaStream_t stream, ConvVariant variant) {
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d, amount)) return;
  // cv::addWeighted converts its double weights to float.
  const float alpha = static_cast<float>(1.0 + amount), beta = static_cast<float>(-amount);
  const std::vector<int> k = gauss_fixed_kernel(kSharpenKsize, 0);
  const SharpenEpilogue fused{true, alpha, beta, 0.f};
  if (variant == ConvVariant::vectorized_5x5) {
    if (gauss_vectorized_sharpen_supported(s, d, k))
      return gauss_vectorized_sharpen(s, d, k, border_args(border, PixelType::u8), fused, stream);
    variant = ConvVariant::separable;  // colour, unaligned rows: the separable rung stands in
  }
  if (variant == ConvVariant::separable && gauss_rolling_supported(s, d, k))
    return gauss_rolling(s, d, k, border_args(border, PixelType::u8), fused, stream);
  const TempImage blur(s.width, s.height, s.channels, PixelType::u8, stream);
  const GpuImage& b = blur.image();
  gauss(d_src, ImageView{static_cast<std::uint8_t*>(b.data), b.width, b.height, b.pitch, b.channels}, kSharpenKsize, 0, border,
        stream, variant);
  add_weighted(s, b, d, alpha, beta, 0.f, stream);
}

void sharpen(ConstImageViewF32 d_src, ImageViewF32 d_dst, double amount, const Border& border, cudaStream_t stream,
             ConvVariant variant) {
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d, amount)) return;
  if (variant == ConvVariant::vectorized_5x5) variant = ConvVariant::separable;  // 8-bit only: the separable rung stands in
  const TempImage blur(s.width, s.height, s.channels, PixelType::f32, stream);
  const GpuImage& b = blur.image();
  gauss(d_src, ImageViewF32{static_cast<float*>(b.data), b.width, b.height, b.pitch, b.channels}, kSharpenKsize, 0, border, stream,
        variant);
  add_weighted(s, b, d, static_cast<float>(1.0 + amount), static_cast<float>(-amount), 0.f, stream);
}

}  // namespace wk::image
