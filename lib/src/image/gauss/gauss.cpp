// gauss on the GPU: argument checks, OpenCV's kernel coefficients (host), and the choice of
// kernel for each rung.
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <map>
#include <mutex>

#include "image/gauss/gauss_gpu.hpp"
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
  if (ksize < 1 || ksize > kMaxKernelSize || ksize % 2 == 0)
    throw Error(ErrorCategory::usage, "gauss: K must be an odd number from 1 to 31, not " + std::to_string(ksize));
  if (!(sigma >= 0) || !std::isfinite(sigma))
    throw Error(ErrorCategory::usage, "gauss: sigma must be a finite number >= 0 (0: from K)");
}

std::vector<int> gauss_fixed_point_kernel(int ksize, double sigma) {
  check_gauss_args(ksize, sigma);
  return gauss_fixed_kernel(ksize, sigma);
}

ConvVariant gauss_default_variant(int ksize, double sigma) {
  if (ksize == 5 && sigma > 0 && std::isfinite(sigma)) {
    // vectorized_5x5 runs small taps (sigma 0's) in 16-bit lanes; others are faster in
    // vectorized_wide.
    if (!gauss_small_taps(gauss_fixed_kernel(ksize, sigma))) return ConvVariant::vectorized_wide;
  }
  if (ksize <= 5) return ConvVariant::vectorized_5x5;
  return ksize <= 15 ? ConvVariant::vectorized_wide : ConvVariant::separable;
}

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

}  // namespace

void gauss(ConstImageView d_src, ImageView d_dst, int ksize, double sigma, const Border& border, cudaStream_t stream,
           std::optional<ConvVariant> rung) {
  ConvVariant variant = rung.value_or(gauss_default_variant(ksize, sigma));
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d, ksize, sigma)) return;
  if (ksize == 1) return copy_image(s, d, stream);  // cv::GaussianBlur copies for 1 x 1
  const BorderArgs b = border_args(border, PixelType::u8);
  const std::vector<int> k = gauss_fixed_kernel(ksize, sigma);
  // Integer weights: the float sum is exactly OpenCV's fixed-point integer v * 2^16.
  const Epilogue e{EpilogueKind::fixed16};
  if (variant == ConvVariant::tensor_core && gauss_mma_supported(s, d, k)) return gauss_mma(s, d, k, b, stream);
  if (variant == ConvVariant::vectorized_5x5 || variant == ConvVariant::vectorized_wide) {
    // Each streaming rung takes the sizes it has; the other one stands in for the rest.
    const bool wide_first = variant == ConvVariant::vectorized_wide;
    if (wide_first && gauss_wide_supported(s, d, k)) return gauss_wide(s, d, k, b, stream);
    if (gauss_vectorized_supported(s, d, k)) return gauss_vectorized(s, d, k, b, stream);
    if (gauss_wide_supported(s, d, k)) return gauss_wide(s, d, k, b, stream);
    // Colour, unaligned rows, K > 15, a weight of 256: the measured fast rung for that K stands in.
    variant = ksize <= 7 ? ConvVariant::register_blocked : ConvVariant::separable;
  }
  if (variant == ConvVariant::separable) {
    if (gauss_rolling_supported(s, d, k)) gauss_rolling(s, d, k, b, {}, stream);
    else separable_filter(s, d, taps_1d(k), b, e, stream);
  } else {
    filter2d(variant, s, d, taps_outer(k), b, e, stream);
  }
}

void gauss(ConstImageViewF32 d_src, ImageViewF32 d_dst, int ksize, double sigma, const Border& border, cudaStream_t stream,
           std::optional<ConvVariant> rung) {
  const ConvVariant variant = rung.value_or(gauss_default_variant(ksize));
  const GpuImage s = gpu_image(d_src), d = gpu_image(d_dst);
  if (!prepare(s, d, ksize, sigma)) return;
  if (ksize == 1) return copy_image(s, d, stream);
  const BorderArgs b = border_args(border, PixelType::f32);
  const std::vector<float> k = gauss_float_kernel(ksize, sigma);
  if (variant == ConvVariant::separable) separable_filter(s, d, taps_1d(k), b, Epilogue{}, stream);
  else filter2d(variant, s, d, taps_outer(k), b, Epilogue{}, stream);
}

}  // namespace wk::image
