// sharpen on the GPU: 8-bit gray with aligned rows runs in one pass (the Gaussian's streaming or
// rolling kernel with the addWeighted epilogue fused); the conv family's rungs blur into a
// temporary with that gauss rung, then addWeighted.
#include <cmath>
#include <span>

#include "core/tuning.hpp"
#include "image/filter/filter_rungs.hpp"
#include "image/gauss/gauss_gpu.hpp"
#include "image/op_decl.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gauss.hpp"
#include "wk/image/sharpen.hpp"

namespace wk::image {

using namespace detail;

void check_sharpen_amount(double amount) {
  const double values[] = {amount};
  check_numbers(kSharpenOp.info, values);  // the rules of the declaration (sharpen_op.cpp)
}

namespace detail {
namespace {

bool prepare(const GpuImage& s, const GpuImage& d, double amount) {
  check_sharpen_amount(amount);
  check_filter_views("sharpen", s, d);
  if (s.width == 0 || s.height == 0) return false;
  check_kernel_fits("sharpen", kSharpenKsize, kSharpenKsize, s.width, s.height);
  return true;
}

struct SharpenCall {
  GpuImage s, d;
  Border border;
  float alpha, beta;            // cv::addWeighted converts its double weights to float
  const std::vector<int>* fixed;  // the 5 x 5 Gaussian's fixed-point kernel
  cudaStream_t stream;

  bool u8() const { return s.type == PixelType::u8; }
  SharpenEpilogue fused() const { return {true, alpha, beta, 0.f}; }
  // The blur on gauss's rung `rung` into a temporary, then the weighting.
  bool blur_then_weight(const char* rung) const {
    const TempImage blur(s.width, s.height, s.channels, s.type, stream);
    const GpuImage& b = blur.image();
    if (u8())
      gauss(ConstImageView{static_cast<const std::uint8_t*>(s.data), s.width, s.height, s.pitch, s.channels},
            ImageView{static_cast<std::uint8_t*>(b.data), b.width, b.height, b.pitch, b.channels}, kSharpenKsize, 0, border,
            stream, rung);
    else
      gauss(ConstImageViewF32{static_cast<const float*>(s.data), s.width, s.height, s.pitch, s.channels},
            ImageViewF32{static_cast<float*>(b.data), b.width, b.height, b.pitch, b.channels}, kSharpenKsize, 0, border, stream,
            rung);
    add_weighted(s, b, d, alpha, beta, 0.f, stream);
    return true;
  }
  bool run_2d(Filter2D k) const { return blur_then_weight(filter2d_rung_name(k)); }
  bool run_mma() const { return u8() && gauss_mma_supported(s, d, *fixed) && blur_then_weight("tensor_core"); }
  bool run_separable() const { return blur_then_weight("separable"); }
};

bool try_rolling(const SharpenCall& c) {
  if (!c.u8() || !gauss_rolling_supported(c.s, c.d, *c.fixed)) return false;
  gauss_rolling(c.s, c.d, *c.fixed, border_args(c.border, PixelType::u8), c.fused(), c.stream);
  return true;
}

bool try_vectorized_5x5(const SharpenCall& c) {
  if (!c.u8() || !gauss_vectorized_sharpen_supported(c.s, c.d, *c.fixed)) return false;
  gauss_vectorized_sharpen(c.s, c.d, *c.fixed, border_args(c.border, PixelType::u8), c.fused(), c.stream);
  return true;
}

constexpr auto kRungs = conv_family_rungs<SharpenCall, 2>({{
    {{"rolling", "8-bit gray: the Gaussian's rolling kernel, weighting fused"}, &try_rolling},
    {{"vectorized_5x5", "8-bit gray: the Gaussian's 16 px x 8 rows/thread kernel, weighting fused"}, &try_vectorized_5x5},
}});

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192 8-bit gray, docs/apod/sharpen.md): the fused
// vectorized_5x5 pass runs near the copy rate, the fused rolling pass next; colour, unaligned rows
// and float images blur with gauss's separable rung, then weight. Older architectures: the sm_90
// order.
constexpr const char* kSm90[] = {"vectorized_5x5", "rolling", "separable"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<SharpenCall> kLadder{"sharpen", kRungs, kTuning};

const char* run(const GpuImage& s, const GpuImage& d, double amount, const Border& border, cudaStream_t stream,
                std::string_view rung) {
  if (!prepare(s, d, amount)) return kLadder.none(rung);
  const std::vector<int> k = gauss_fixed_kernel(kSharpenKsize, 0);
  const SharpenCall call{s, d, border, static_cast<float>(1.0 + amount), static_cast<float>(-amount), &k, stream};
  return kLadder.run(rung, call);
}

}  // namespace

std::span<const RungInfo> sharpen_rungs() { return kLadder.infos(); }

}  // namespace detail

const char* sharpen(ConstImageView d_src, ImageView d_dst, double amount, const Border& border, cudaStream_t stream,
                    std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), amount, border, stream, rung);
}

const char* sharpen(ConstImageViewF32 d_src, ImageViewF32 d_dst, double amount, const Border& border, cudaStream_t stream,
                    std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), amount, border, stream, rung);
}

}  // namespace wk::image
