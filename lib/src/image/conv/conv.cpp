// conv on the GPU: the conv family's rungs (filter.cu) with OpenCV's rounding (cvRound,
// saturate), and the tuning that orders them.
#include <algorithm>
#include <optional>
#include <span>

#include "core/tuning.hpp"
#include "image/filter/filter_rungs.hpp"
#include "wk/core/error.hpp"
#include "wk/image/conv.hpp"

namespace wk::image {

using namespace detail;

namespace {

void check_kernel_shape(const FilterKernel& k) {
  if (k.width < 1 || k.height < 1 || k.width > kMaxKernelSize || k.height > kMaxKernelSize ||
      k.weights.size() != std::size_t(k.width) * k.height)
    throw Error(ErrorCategory::usage, "conv: the kernel must be 1x1 to 31x31 with width * height weights");
}

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192 8-bit gray, docs/apod/conv.md): a rank-1
// kernel runs fastest as two 1-D passes (15x15 91.7 Gpx/s, 2.15x NPP); any other 8-bit kernel
// on the tensor cores (7x7 and 15x15 several times register_blocked); float images and weights
// the tensor cores cannot hold take register_blocked. Older architectures: the sm_90 order.
constexpr const char* kSm90[] = {"separable", "tensor_core", "register_blocked"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<TapsCall> kLadder{"conv", taps_rungs(), kTuning};

const char* run(const GpuImage& s, const GpuImage& d, const FilterKernel& k, const Border& border, cudaStream_t stream,
                std::string_view rung) {
  check_kernel_shape(k);
  check_filter_views("conv", s, d);
  if (s.width == 0 || s.height == 0) return kLadder.none(rung);
  check_kernel_fits("conv", k.width, k.height, s.width, s.height);
  const Taps2D taps = taps_2d(k);
  std::optional<Taps1D> factors;
  if (const auto f = separate(k)) {
    Taps1D& t = factors.emplace();
    t.width = k.width;
    t.height = k.height;
    t.anchor_x = k.anchor_x();
    t.anchor_y = k.anchor_y();
    std::copy(f->row.begin(), f->row.end(), t.row);
    std::copy(f->column.begin(), f->column.end(), t.col);
  }
  const TapsCall call{s, d, border_args(border, s.type), Epilogue{}, &taps, factors ? &*factors : nullptr, stream};
  return kLadder.run(rung, call);
}

}  // namespace

const char* conv(ConstImageView d_src, ImageView d_dst, const FilterKernel& kernel, const Border& border, cudaStream_t stream,
                 std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), kernel, border, stream, rung);
}

const char* conv(ConstImageViewF32 d_src, ImageViewF32 d_dst, const FilterKernel& kernel, const Border& border,
                 cudaStream_t stream, std::string_view rung) {
  return run(gpu_image(d_src), gpu_image(d_dst), kernel, border, stream, rung);
}

}  // namespace wk::image
