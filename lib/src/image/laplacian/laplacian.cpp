// laplacian on the GPU: the generic ladder with cv::Laplacian's ksize-1 kernel and the
// convertScaleAbs epilogue (8-bit) straight from the exact integer sum.
#include <algorithm>

#include "image/filter/filter_gpu.hpp"
#include "wk/image/laplacian.hpp"

namespace wk::image {

using namespace detail;

ConvVariant laplacian_default_variant() { return ConvVariant::register_blocked; }

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
  // Not rank 1: the separable rung stands in with the 2-D fast path.
  filter2d(variant == ConvVariant::separable ? ConvVariant::register_blocked : variant, s, d, t, border_args(border, s.type), e, stream);
}
}  // namespace

void laplacian(ConstImageView d_src, ImageView d_dst, const Border& border, cudaStream_t stream, ConvVariant variant) {
  run(gpu_image(d_src), gpu_image(d_dst), border, stream, variant);
}
void laplacian(ConstImageViewF32 d_src, ImageViewF32 d_dst, const Border& border, cudaStream_t stream, ConvVariant variant) {
  run(gpu_image(d_src), gpu_image(d_dst), border, stream, variant);
}

}  // namespace wk::image
