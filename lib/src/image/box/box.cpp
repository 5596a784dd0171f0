// box on the GPU: integer weights (sums exact in fp32) and OpenCV's 8-bit division rule as the
// epilogue, on any rung; the separable rung is the generic two-pass kernel.
#include "image/filter/filter_gpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/box.hpp"
#include "wk/image/filter_formula.hpp"

namespace wk::image {

using namespace detail;

void check_box_args(int ksize) {
  if (ksize < 1 || ksize > kMaxKernelSize)
    throw Error(ErrorCategory::usage, "box: K must be from 1 to 31, not " + std::to_string(ksize));
}

// Measured on the H100 (8192x8192 u8, 2026-11-22, docs/apod/box.md): tensor_core 338 Gpx/s at
// 5x5 and 203 at 15x15 (all-ones weights: one exact fp16 term), register_blocked 317 and 90, the
// generic separable pass 98 and 64. Float images run register_blocked under the name.
ConvVariant box_default_variant() { return ConvVariant::tensor_core; }

namespace {

// cv::blur's 8-bit epilogue: areas up to 256 divide as box_divide (filter_formula.hpp); larger
// areas (ColumnSum<int, uchar>) multiply by the float reciprocal and round half to even.
Epilogue box_epilogue(int ksize, bool eight_bit) {
  const int area = ksize * ksize;
  Epilogue e;
  if (area == 1) return e;  // scale 1: OpenCV stores the sum itself
  if (eight_bit && area <= 256) {
    e.kind = EpilogueKind::box_fixed;
    const BoxDivision div = box_division(area);
    e.add = static_cast<int>(div.add);
    e.mul = div.mul;
  } else {
    e.kind = EpilogueKind::box_float;
    e.scale = static_cast<float>(1.0 / area);
  }
  return e;
}

void run(const GpuImage& s, const GpuImage& d, int ksize, const Border& border, cudaStream_t stream, ConvVariant variant) {
  check_box_args(ksize);
  check_filter_views("box", s, d);
  if (s.width == 0 || s.height == 0) return;
  check_kernel_fits("box", ksize, ksize, s.width, s.height);
  const BorderArgs b = border_args(border, s.type);
  const Epilogue e = box_epilogue(ksize, s.type == PixelType::u8);
  if (variant == ConvVariant::separable) {
    Taps1D t;
    t.width = t.height = ksize;
    t.anchor_x = t.anchor_y = ksize / 2;
    for (int i = 0; i < ksize; ++i) t.row[i] = t.col[i] = 1.f;
    separable_filter(s, d, t, b, e, stream);
  } else {
    Taps2D t;
    t.width = t.height = ksize;
    t.anchor_x = t.anchor_y = ksize / 2;
    for (int i = 0; i < ksize * ksize; ++i) t.w[i] = 1.f;
    filter2d(variant, s, d, t, b, e, stream);
  }
}

}  // namespace

void box(ConstImageView d_src, ImageView d_dst, int ksize, const Border& border, cudaStream_t stream, ConvVariant variant) {
  run(gpu_image(d_src), gpu_image(d_dst), ksize, border, stream, variant);
}

void box(ConstImageViewF32 d_src, ImageViewF32 d_dst, int ksize, const Border& border, cudaStream_t stream, ConvVariant variant) {
  run(gpu_image(d_src), gpu_image(d_dst), ksize, border, stream, variant);
}

}  // namespace wk::image
