// sobel on the GPU: the rung table (the conv family's generic rungs on the two derivatives, the
// rolling 3 x 3 kernel, the vectorized 3 x 3 stencil) and the tuning that orders it.
#include <array>

#include "core/tuning.hpp"
#include "image/filter/filter_rungs.hpp"
#include "image/filter/stencil3x3_gpu.hpp"
#include "image/sobel/sobel_gpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/sobel.hpp"

namespace wk::image {

using namespace detail;

namespace detail {
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

// One sobel call as the rungs see it. `mode` is what the output holds (float images: dx_s16 or
// dy_s16, the plain derivative in float).
struct SobelCall {
  GpuImage s, d;
  BorderArgs b;
  SobelMode mode;
  cudaStream_t stream;

  bool u8() const { return s.type == PixelType::u8; }
  // The generic rungs compute each derivative with `pass(dst, derivative, epilogue)`, which
  // returns false (launching nothing) when it does not apply; the magnitude combines two.
  template <class Pass>
  bool derivatives(Pass pass) const {
    switch (mode) {
      case SobelMode::dx_s16: return pass(d, SobelDerivative::dx, Epilogue{});
      case SobelMode::dy_s16: return pass(d, SobelDerivative::dy, Epilogue{});
      case SobelMode::dx_abs: return pass(d, SobelDerivative::dx, Epilogue{EpilogueKind::abs_round});
      case SobelMode::dy_abs: return pass(d, SobelDerivative::dy, Epilogue{EpilogueKind::abs_round});
      case SobelMode::magnitude: break;
    }
    const TempImage dx(s.width, s.height, s.channels, PixelType::s16, stream), dy(s.width, s.height, s.channels, PixelType::s16, stream);
    if (!pass(dx.image(), SobelDerivative::dx, Epilogue{})) return false;
    pass(dy.image(), SobelDerivative::dy, Epilogue{});
    sobel_magnitude(dx.image(), dy.image(), d, stream);
    return true;
  }
  bool run_2d(Filter2D k) const {
    return derivatives([&](const GpuImage& out, SobelDerivative w, const Epilogue& e) {
      filter2d(k, s, out, sobel_taps_2d(w), b, e, stream);
      return true;
    });
  }
  bool run_mma() const {
    return derivatives([&](const GpuImage& out, SobelDerivative w, const Epilogue& e) {
      return filter2d_mma(s, out, sobel_taps_2d(w), b, e, stream);
    });
  }
  bool run_separable() const {
    return derivatives([&](const GpuImage& out, SobelDerivative w, const Epilogue& e) {
      separable_filter(s, out, sobel_taps_1d(w), b, e, stream);
      return true;
    });
  }
};

bool try_rolling(const SobelCall& c) {
  if (!c.u8() || !sobel_rolling_supported(c.s, c.d, c.mode)) return false;
  sobel_rolling(c.s, c.d, c.mode, c.b, c.stream);
  return true;
}

bool try_vectorized_3x3(const SobelCall& c) {
  if (!c.u8()) return false;
  constexpr Stencil3x3 kStencil[] = {Stencil3x3::sobel_dx_s16, Stencil3x3::sobel_dy_s16, Stencil3x3::sobel_dx_abs,
                                     Stencil3x3::sobel_dy_abs, Stencil3x3::sobel_magnitude};
  const Stencil3x3 op = kStencil[static_cast<int>(c.mode)];
  if (!stencil3x3_supported(c.s, c.d, op)) return false;
  stencil3x3(c.s, c.d, op, c.b, c.stream);
  return true;
}

constexpr auto kRungs = conv_family_rungs<SobelCall, 2>({{
    {{"rolling", "8-bit gray: column strips rolled down in registers, both derivatives fused"}, &try_rolling},
    {{"vectorized_3x3", "8-bit gray: 16 px x 4 rows/thread, 64-bit loads, full-width stores"}, &try_vectorized_3x3},
}});

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192 8-bit gray, docs/apod/sobel.md): dx to 16
// bits 912.6 Gpx/s on vectorized_3x3 (1.45x NPP), 279.6 on rolling, 231.5 on tensor_core; the
// magnitude 597.3 against 279.6. Colour and unaligned rows take rolling where it applies, then
// the generic separable pass (every float image). Older architectures: the sm_90 order.
constexpr const char* kSm90[] = {"vectorized_3x3", "rolling", "separable"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<SobelCall> kLadder{"sobel", kRungs, kTuning};

const char* run(const GpuImage& s, const GpuImage& d, SobelMode mode, const Border& border, cudaStream_t stream,
                std::string_view rung) {
  if (!prepare(s, d)) return kLadder.none(rung);
  const SobelCall call{s, d, border_args(border, s.type), mode, stream};
  return kLadder.run(rung, call);
}

}  // namespace

std::span<const RungInfo> sobel_rungs() { return kLadder.infos(); }

}  // namespace detail

const char* sobel(ConstImageView d_src, ImageView d_dst, SobelOutput output, const Border& border, cudaStream_t stream,
                  std::string_view rung) {
  const SobelMode mode = output == SobelOutput::magnitude ? SobelMode::magnitude
                         : output == SobelOutput::dx      ? SobelMode::dx_abs
                                                          : SobelMode::dy_abs;
  return run(gpu_image(d_src), gpu_image(d_dst), mode, border, stream, rung);
}

const char* sobel_s16(ConstImageView d_src, ImageViewS16 d_dst, SobelDerivative which, const Border& border,
                      cudaStream_t stream, std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), which == SobelDerivative::dx ? SobelMode::dx_s16 : SobelMode::dy_s16, border,
             stream, rung);
}

const char* sobel(ConstImageViewF32 d_src, ImageViewF32 d_dst, SobelDerivative which, const Border& border,
                  cudaStream_t stream, std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), which == SobelDerivative::dx ? SobelMode::dx_s16 : SobelMode::dy_s16, border,
             stream, rung);
}

}  // namespace wk::image
