// conv on the GPU: the generic ladder of filter.cu with OpenCV's rounding (cvRound, saturate).
#include <algorithm>

#include "image/filter/filter_gpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/conv.hpp"

namespace wk::image {

using namespace detail;

ConvVariant conv_default_variant(const FilterKernel& kernel) {
  return separate(kernel) ? ConvVariant::separable : ConvVariant::tensor_core;
}

namespace {

void check_kernel_shape(const FilterKernel& k) {
  if (k.width < 1 || k.height < 1 || k.width > kMaxKernelSize || k.height > kMaxKernelSize ||
      k.weights.size() != std::size_t(k.width) * k.height)
    throw Error(ErrorCategory::usage, "conv: the kernel must be 1x1 to 31x31 with width * height weights");
}

void run(const GpuImage& s, const GpuImage& d, const FilterKernel& k, const Border& border, cudaStream_t stream,
         std::optional<ConvVariant> variant) {
  check_kernel_shape(k);
  check_filter_views("conv", s, d);
  if (s.width == 0 || s.height == 0) return;
  check_kernel_fits("conv", k.width, k.height, s.width, s.height);
  const BorderArgs b = border_args(border, s.type);
  const ConvVariant rung = variant.value_or(conv_default_variant(k));
  if (rung == ConvVariant::separable) {
    if (const auto f = separate(k)) {
      Taps1D t;
      t.width = k.width;
      t.height = k.height;
      t.anchor_x = k.anchor_x();
      t.anchor_y = k.anchor_y();
      std::copy(f->row.begin(), f->row.end(), t.row);
      std::copy(f->column.begin(), f->column.end(), t.col);
      return separable_filter(s, d, t, b, Epilogue{}, stream);
    }
  }
  filter2d(rung, s, d, taps_2d(k), b, Epilogue{}, stream);
}

}  // namespace

void conv(ConstImageView d_src, ImageView d_dst, const FilterKernel& kernel, const Border& border, cudaStream_t stream,
          std::optional<ConvVariant> variant) {
  run(gpu_image(d_src), gpu_image(d_dst), kernel, border, stream, variant);
}

void conv(ConstImageViewF32 d_src, ImageViewF32 d_dst, const FilterKernel& kernel, const Border& border, cudaStream_t stream,
          std::optional<ConvVariant> variant) {
  run(gpu_image(d_src), gpu_image(d_dst), kernel, border, stream, variant);
}

}  // namespace wk::image
