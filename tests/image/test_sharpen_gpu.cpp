// sharpen on the GPU: within 1 LSB of the CPU path (exact for AMOUNT 1), fused and unfused, on
// every rung, border and channel count.
#include <catch2/catch.hpp>

#include "filter_test_util.hpp"
#include "wk/image/sharpen.hpp"

using namespace wk;

namespace {
cv::Mat cpu_sharpen(const cv::Mat& src, double a, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  if (src.depth() == CV_8U) image::sharpen_cpu(test::const_view(src), test::view(out), a, b);
  else image::sharpen_cpu(test::cview_f32(src), test::view_f32(out), a, b);
  return out;
}
cv::Mat gpu_sharpen(const cv::Mat& src, double a, const image::Border& b, image::ConvVariant v, bool aligned) {
  if (src.depth() == CV_8U)
    return test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned,
                                                     [&](auto in, auto out, cudaStream_t s) { image::sharpen(in, out, a, b, s, v); });
  return test::gpu_run<float, float>(src, src.type(), aligned, [&](auto in, auto out, cudaStream_t s) { image::sharpen(in, out, a, b, s, v); });
}
}  // namespace

TEST_CASE("GPU sharpen: every rung, border and channel count", "[gpu][sharpen]") {
  int n = 0;
  for (const auto& v : image::conv_variants())
    for (const auto& b : test::all_borders()) {
      const int cn = n++ % 2 ? 3 : 1;
      for (double a : {1.0, 0.3}) {
          CAPTURE(v.name, test::name_of(b), cn, a);
          const cv::Mat src = test::random_image(83, 19, cn, unsigned(cn + int(a * 10)));
          REQUIRE(test::max_abs_diff(gpu_sharpen(src, a, b, v.variant, true), cpu_sharpen(src, a, b)) <= (a == 1.0 ? 0 : 1));
        }
    }
}

TEST_CASE("GPU sharpen fused kernels on a large image; float images", "[gpu][sharpen]") {
  // The two fused one-pass kernels (separable: the rolling Gaussian; vectorized_5x5, the default:
  // the streaming Gaussian, with interior warps at this size), every border; unaligned rows make
  // vectorized_5x5 hand over to the separable path.
  const cv::Mat src = test::random_image(2049, 513, 1, 2);
  for (auto v : {image::ConvVariant::separable, image::ConvVariant::vectorized_5x5})
    for (const auto& b : test::all_borders())
      for (double a : {1.0, 2.5, 0.3}) {
        CAPTURE(image::to_string(v), test::name_of(b), a);
        REQUIRE(test::max_abs_diff(gpu_sharpen(src, a, b, v, true), cpu_sharpen(src, a, b)) <= (a == 1.0 ? 0 : 1));
      }
  REQUIRE(test::max_abs_diff(gpu_sharpen(src, 1.0, {}, image::ConvVariant::vectorized_5x5, false), cpu_sharpen(src, 1.0, {})) == 0);
  REQUIRE(image::sharpen_default_variant() == image::ConvVariant::vectorized_5x5);
  const cv::Mat f = test::random_mat(30, 30, CV_32FC3, 2);
  CHECK(test::max_abs_diff(gpu_sharpen(f, 0.7, {}, image::ConvVariant::separable, false), cpu_sharpen(f, 0.7, {})) < 1e-2);
  CHECK(test::max_abs_diff(gpu_sharpen(f, 0.7, {}, image::sharpen_default_variant(), false), cpu_sharpen(f, 0.7, {})) < 1e-2);
}
