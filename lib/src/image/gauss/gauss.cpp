// gauss on the GPU: argument checks, OpenCV's kernel coefficients (host), the rung table and the
// tuning that orders it.
#include <opencv2/imgproc.hpp>

#include <array>
#include <cmath>
#include <map>
#include <mutex>

#include "core/tuning.hpp"
#include "image/filter/filter_rungs.hpp"
#include "image/gauss/gauss_gpu.hpp"
#include "image/op_decl.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gauss.hpp"

namespace wk::image {

namespace detail {

std::vector<int> gauss_fixed_kernel(int ksize, double sigma) {
  // Computing the bit-exact kernel is soft-float work; cache it per (K, sigma).
  static std::mutex mutex;
  static std::map<std::pair<int, double>, std::vector<int>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = cache.try_emplace({ksize, sigma});
  if (!fresh) return it->second;
  // cv::getGaussianKernel returns getGaussianKernelBitExact's soft doubles as doubles, exactly.
  const cv::Mat k = cv::getGaussianKernel(ksize, sigma, CV_64F);
  std::vector<int> fixed(ksize);
  // getGaussianKernelFixedPoint_ED: round with error diffusion from the outside in, the centre
  // takes what is left so the sum is exactly 256. IEEE double arithmetic, as softdouble's.
  double err = 0;
  int sum = 0;
  for (int i = 0; i < ksize / 2; ++i) {
    const double adjusted = k.at<double>(i) * 256.0 + err;
    const int v = static_cast<int>(std::nearbyint(adjusted));  // cvRound: half to even
    err = adjusted - v;
    fixed[i] = fixed[ksize - 1 - i] = v;
    sum += v;
  }
  fixed[ksize / 2] = 256 - 2 * sum;
  it->second = fixed;
  return fixed;
}

std::vector<float> gauss_float_kernel(int ksize, double sigma) {
  const cv::Mat k = cv::getGaussianKernel(ksize, sigma, CV_32F);
  return std::vector<float>(k.begin<float>(), k.end<float>());
}

}  // namespace detail

using namespace detail;

void check_gauss_args(int ksize, double sigma) {
  const double values[] = {double(ksize), sigma};
  check_numbers(kGaussOp.info, values);  // the rules of the declaration (gauss_op.cpp)
}

std::vector<int> gauss_fixed_point_kernel(int ksize, double sigma) {
  check_gauss_args(ksize, sigma);
  return gauss_fixed_kernel(ksize, sigma);
}

namespace detail {
namespace {

void copy_image(const GpuImage& s, const GpuImage& d, cudaStream_t stream) {
  WK_CUDA_CHECK(cudaMemcpy2DAsync(d.data, d.pitch, s.data, s.pitch, std::size_t(s.width) * s.channels * pixel_bytes(s.type),
                                  s.height, cudaMemcpyDeviceToDevice, stream));
}

template <class T>
Taps1D taps_1d(const std::vector<T>& k) {
  Taps1D t;
  t.width = t.height = static_cast<int>(k.size());
  t.anchor_x = t.anchor_y = t.width / 2;
  for (int i = 0; i < t.width; ++i) t.row[i] = t.col[i] = static_cast<float>(k[i]);
  return t;
}

template <class T>
Taps2D taps_outer(const std::vector<T>& k) {
  Taps2D t;
  t.width = t.height = static_cast<int>(k.size());
  t.anchor_x = t.anchor_y = t.width / 2;
  for (int i = 0; i < t.height; ++i)
    for (int j = 0; j < t.width; ++j) t.w[i * t.width + j] = static_cast<float>(k[i]) * static_cast<float>(k[j]);
  return t;
}

bool prepare(const GpuImage& s, const GpuImage& d, int ksize, double sigma) {
  check_gauss_args(ksize, sigma);
  check_filter_views("gauss", s, d);
  if (s.width == 0 || s.height == 0) return false;
  check_kernel_fits("gauss", ksize, ksize, s.width, s.height);
  return true;
}

// One gauss call as the rungs see it: 8-bit images carry OpenCV's fixed-point kernel (integer
// weights: the float sum is exactly OpenCV's fixed-point integer v * 2^16), float images the
// float kernel.
struct GaussCall {
  GpuImage s, d;
  BorderArgs b;
  const std::vector<int>* fixed = nullptr;   // 8-bit
  const std::vector<float>* taps = nullptr;  // float
  cudaStream_t stream = nullptr;

  bool u8() const { return fixed != nullptr; }
  Epilogue epilogue() const { return u8() ? Epilogue{EpilogueKind::fixed16} : Epilogue{}; }
  bool run_2d(Filter2D k) const {
    filter2d(k, s, d, u8() ? taps_outer(*fixed) : taps_outer(*taps), b, epilogue(), stream);
    return true;
  }
  bool run_mma() const {
    if (!u8() || !gauss_mma_supported(s, d, *fixed)) return false;
    gauss_mma(s, d, *fixed, b, stream);
    return true;
  }
  bool run_separable() const {
    separable_filter(s, d, u8() ? taps_1d(*fixed) : taps_1d(*taps), b, epilogue(), stream);
    return true;
  }
};

bool try_rolling(const GaussCall& c) {
  if (!c.u8() || !gauss_rolling_supported(c.s, c.d, *c.fixed)) return false;
  gauss_rolling(c.s, c.d, *c.fixed, c.b, {}, c.stream);
  return true;
}
bool try_vectorized_5x5(const GaussCall& c) {
  if (!c.u8() || !gauss_vectorized_supported(c.s, c.d, *c.fixed)) return false;
  gauss_vectorized(c.s, c.d, *c.fixed, c.b, c.stream);
  return true;
}
bool try_vectorized_wide(const GaussCall& c) {
  if (!c.u8() || !gauss_wide_supported(c.s, c.d, *c.fixed)) return false;
  gauss_wide(c.s, c.d, *c.fixed, c.b, c.stream);
  return true;
}

constexpr auto kRungs = conv_family_rungs<GaussCall, 3>({{
    {{"rolling", "8-bit gray: column strips rolled down in registers, both passes fused"}, &try_rolling},
    {{"vectorized_5x5", "8-bit gray 3x3/5x5: 16 px x 8 rows/thread, packed 16-bit vertical pass"}, &try_vectorized_5x5},
    {{"vectorized_wide", "8-bit gray 5x5..15x15: 8 px x 8 rows/thread, dp4a vertical, dp2a horizontal"}, &try_vectorized_wide},
}});

// ---- Tuning: the order in which the rungs are tried for a call, per architecture. Every rung
// is bit-exact, so the order is speed only. Measured on sm_90 (H100 and H200, 8192 x 8192 8-bit
// gray, docs/apod/gauss.md): vectorized_5x5 1194 Gpx/s against 331 for register_blocked at 5 x 5;
// 5 x 5 taps off the multiples of 16 (a sigma other than the default) 1163 in vectorized_wide
// against 1080; 15 x 15 vectorized_wide 705-709 against 98 for rolling. Colour, unaligned rows
// and a centre weight of 256 fall through to register_blocked (K <= 7) or the rolling and
// separable passes; above 15 x 15 only the generic separable pass applies. Older architectures
// take the sm_90 order until measured.
enum class Taps { any, small };  // small: every fixed-point tap a multiple of 16
struct GaussChoice {
  PixelType type;
  int max_ksize;
  Taps taps;
  std::array<const char*, 3> order;  // nullptr ends a shorter order
};
constexpr GaussChoice kSm90[] = {
    {PixelType::u8, 3, Taps::any, {"vectorized_5x5", "register_blocked", nullptr}},
    {PixelType::u8, 5, Taps::small, {"vectorized_5x5", "vectorized_wide", "register_blocked"}},
    {PixelType::u8, 7, Taps::any, {"vectorized_wide", "vectorized_5x5", "register_blocked"}},
    {PixelType::u8, 15, Taps::any, {"vectorized_wide", "rolling", "separable"}},
    {PixelType::u8, kMaxKernelSize, Taps::any, {"separable", nullptr, nullptr}},  // rolling: K <= 15
    {PixelType::f32, 15, Taps::any, {"register_blocked", nullptr, nullptr}},
    {PixelType::f32, kMaxKernelSize, Taps::any, {"separable", nullptr, nullptr}},
};
constexpr wk::detail::ArchTuning<std::span<const GaussChoice>> kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<GaussCall> kLadder{"gauss", kRungs, {}};  // the order depends on the call: gauss_rung_order

}  // namespace

std::span<const char* const> gauss_rung_order(int ksize, const std::vector<int>& fixed, bool u8, int sm) {
  const auto rows = wk::detail::tuning_for<std::span<const GaussChoice>>(kTuning, sm);
  const bool small = u8 && gauss_small_taps(fixed);
  for (const GaussChoice& row : rows) {
    if (row.type != (u8 ? PixelType::u8 : PixelType::f32) || ksize > row.max_ksize) continue;
    if (row.taps == Taps::small && !small) continue;
    std::size_t n = 0;
    while (n < row.order.size() && row.order[n]) ++n;
    return {row.order.data(), n};
  }
  throw Error(ErrorCategory::internal, "gauss: no tuning row for a " + std::to_string(ksize) + "x" + std::to_string(ksize) + " kernel");
}

std::span<const RungInfo> gauss_rungs() { return kLadder.infos(); }

}  // namespace detail

const char* gauss(ConstImageView d_src, ImageView d_dst, int ksize, double sigma, const Border& border, cudaStream_t stream,
                  std::string_view rung) {
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d, ksize, sigma)) return kLadder.none(rung);
  if (ksize == 1) {  // cv::GaussianBlur copies for 1 x 1
    copy_image(s, d, stream);
    return kLadder.none(rung);
  }
  const std::vector<int> k = gauss_fixed_kernel(ksize, sigma);
  const GaussCall call{s, d, border_args(border, PixelType::u8), &k, nullptr, stream};
  return kLadder.run(rung, gauss_rung_order(ksize, k, true, wk::detail::current_sm()), call);
}

const char* gauss(ConstImageViewF32 d_src, ImageViewF32 d_dst, int ksize, double sigma, const Border& border, cudaStream_t stream,
                  std::string_view rung) {
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d, ksize, sigma)) return kLadder.none(rung);
  if (ksize == 1) {
    copy_image(s, d, stream);
    return kLadder.none(rung);
  }
  const std::vector<float> k = gauss_float_kernel(ksize, sigma);
  const GaussCall call{s, d, border_args(border, PixelType::f32), nullptr, &k, stream};
  return kLadder.run(rung, gauss_rung_order(ksize, {}, false, wk::detail::current_sm()), call);
}

}  // namespace wk::image
