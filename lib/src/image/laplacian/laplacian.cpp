// laplacian on the GPU: the conv family's rungs with cv::Laplacian's ksize-1 kernel and the
// convertScaleAbs epilogue (8-bit) straight from the exact integer sum, the vectorized 3 x 3
// stencil, and the tuning that orders them.
#include <algorithm>
#include <span>

#include "core/tuning.hpp"
#include "image/filter/filter_rungs.hpp"
#include "image/filter/stencil3x3_gpu.hpp"
#include "wk/image/laplacian.hpp"

namespace wk::image {

using namespace detail;

namespace detail {
namespace {

bool try_vectorized_3x3(const TapsCall& c) {
  if (c.s.type != PixelType::u8 || !stencil3x3_supported(c.s, c.d, Stencil3x3::laplacian_abs)) return false;
  stencil3x3(c.s, c.d, Stencil3x3::laplacian_abs, c.b, c.stream);
  return true;
}

constexpr auto kRungs = conv_family_rungs<TapsCall, 1>({{
    {{"vectorized_3x3", "8-bit gray: 16 px x 4 rows/thread, 64-bit loads, full-width stores"}, &try_vectorized_3x3},
}});

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192 8-bit gray, docs/apod/laplacian.md):
// vectorized_3x3 1200 Gpx/s and more, several times register_blocked. The kernel is not rank 1
// (no separable rung); colour, unaligned rows and float images take register_blocked. Older
// architectures: the sm_90 order.
constexpr const char* kSm90[] = {"vectorized_3x3", "register_blocked"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<TapsCall> kLadder{"laplacian", kRungs, kTuning};

const char* run(const GpuImage& s, const GpuImage& d, const Border& border, cudaStream_t stream, std::string_view rung) {
  check_filter_views("laplacian", s, d);
  if (s.width == 0 || s.height == 0) return kLadder.none(rung);
  check_kernel_fits("laplacian", 3, 3, s.width, s.height);
  Taps2D taps;
  taps.width = taps.height = 3;
  taps.anchor_x = taps.anchor_y = 1;
  const float k[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
  std::copy(k, k + 9, taps.w);
  const Epilogue e{s.type == PixelType::u8 ? EpilogueKind::abs_round : EpilogueKind::round_even};
  const TapsCall call{s, d, border_args(border, s.type), e, &taps, nullptr, stream};
  return kLadder.run(rung, call);
}

}  // namespace

std::span<const RungInfo> laplacian_rungs() { return kLadder.infos(); }

}  // namespace detail

const char* laplacian(ConstImageView d_src, ImageView d_dst, const Border& border, cudaStream_t stream, std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), border, stream, rung);
}

const char* laplacian(ConstImageViewF32 d_src, ImageViewF32 d_dst, const Border& border, cudaStream_t stream,
                      std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), border, stream, rung);
}

}  // namespace wk::image
