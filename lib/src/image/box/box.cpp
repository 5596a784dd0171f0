// box on the GPU: integer weights (sums exact in fp32) and OpenCV's 8-bit division rule as the
// epilogue, on the conv family's rungs (the separable rung is the generic two-pass kernel).
#include <span>

#include "core/tuning.hpp"
#include "image/filter/filter_rungs.hpp"
#include "image/op_decl.hpp"
#include "wk/core/error.hpp"
#include "wk/image/box.hpp"
#include "wk/image/filter_formula.hpp"

namespace wk::image {

using namespace detail;

void check_box_args(int ksize) {
  const double values[] = {double(ksize)};
  check_numbers(kBoxOp.info, values);  // the rules of the declaration (box_op.cpp)
}

namespace {

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192 8-bit gray, docs/apod/box.md): tensor_core
// 338 Gpx/s at 5x5 and 203 at 15x15 (all-ones weights: one exact fp16 term), register_blocked
// 317 and 90, the generic separable pass 98 and 64. Float images take register_blocked. Older
// architectures: the sm_90 order.
constexpr const char* kSm90[] = {"tensor_core", "register_blocked"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<TapsCall> kLadder{"box", taps_rungs(), kTuning};

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

const char* run(const GpuImage& s, const GpuImage& d, int ksize, const Border& border, cudaStream_t stream,
                std::string_view rung) {
  check_box_args(ksize);
  check_filter_views("box", s, d);
  if (s.width == 0 || s.height == 0) return kLadder.none(rung);
  check_kernel_fits("box", ksize, ksize, s.width, s.height);
  Taps1D factors;
  factors.width = factors.height = ksize;
  factors.anchor_x = factors.anchor_y = ksize / 2;
  for (int i = 0; i < ksize; ++i) factors.row[i] = factors.col[i] = 1.f;
  Taps2D taps;
  taps.width = taps.height = ksize;
  taps.anchor_x = taps.anchor_y = ksize / 2;
  for (int i = 0; i < ksize * ksize; ++i) taps.w[i] = 1.f;
  const TapsCall call{s, d, border_args(border, s.type), box_epilogue(ksize, s.type == PixelType::u8), &taps, &factors, stream};
  return kLadder.run(rung, call);
}

}  // namespace

const char* box(ConstImageView d_src, ImageView d_dst, int ksize, const Border& border, cudaStream_t stream,
                std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), ksize, border, stream, rung);
}

const char* box(ConstImageViewF32 d_src, ImageViewF32 d_dst, int ksize, const Border& border, cudaStream_t stream,
                std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), ksize, border, stream, rung);
}

}  // namespace wk::image
