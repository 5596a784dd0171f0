// laplacian on the GPU: the vectorized 3 x 3 kernel (vectorized_3x3 rung, gray, aligned rows) or
// the generic ladder with cv::Laplacian's ksize-1 kernel and the convertScaleAbs epilogue (8-bit)
// straight from the exact integer sum.
#include <algorithm>

#include "image/filter/filter_gpu.hpp"
#include "image/filter/stencil3x3_gpu.hpp"
#include "wk/image/laplacian.hpp"

namespace wk::image {

using namespace detail;

// vectorized_3x3: the streaming kernel (to be measured on the H100, docs/apod/laplacian.md);
// other shapes fall back to register_blocked.
ConvVariant laplacian_default_variant() { return ConvVariant::vectorized_3x3; }

namespace {
void run(const GpuImage& s, const GpuImage& d, const Border& border, cudaStream_t stream, ConvVariant variant) {
  check_filter_views("laplacian", s, d);
  if (s.width == 0 || s.height == 0) return;
  check_kernel_fits("laplacian", 3, 3, s.width, s.height);
  Taps2D t;
  t.width = t.height = 3;
  t.anchor_x = t.anchor_y = 1;
  const float k[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
  std::copy(k, k + 9, t.w);
  const Epilogue e{s.type == PixelType::u8 ? EpilogueKind::abs_round : EpilogueKind::round_even};
  const BorderArgs b = border_args(border, s.type);
  if (variant == ConvVariant::vectorized_3x3 && stencil3x3_supported(s, d, Stencil3x3::laplacian_abs))
    return stencil3x3(s, d, Stencil3x3::laplacian_abs, b, stream);
  // Not rank 1: the separable rung stands in with the 2-D fast path, as for other shapes on vectorized_3x3.
  const bool fast_2d = variant == ConvVariant::separable || variant == ConvVariant::vectorized_3x3;
  filter2d(fast_2d ? ConvVariant::register_blocked : variant, s, d, t, b, e, stream);
}
}  // namespace

void laplacian(ConstImageView d_src, ImageView d_dst, const Border& border, cudaStream_t stream, ConvVariant variant) {
  run(gpu_image(d_src), gpu_image(d_dst), border, stream, variant);
}
void laplacian(ConstImageViewF32 d_src, ImageViewF32 d_dst, const Border& border, cudaStream_t stream, ConvVariant variant) {
  run(gpu_image(d_src), gpu_image(d_dst), border, stream, variant);
}

}  // namespace wk::image
