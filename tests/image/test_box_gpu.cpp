// box on the GPU: every rung equals the CPU path (cv::blur) bit for bit (even K >= 18: a tie
// OpenCV's scalar tail rounds in double may differ by 1).
#include <catch2/catch.hpp>

#include "filter_test_util.hpp"
#include "wk/image/box.hpp"

using namespace wk;

namespace {
cv::Mat cpu_box(const cv::Mat& src, int k, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  if (src.depth() == CV_8U) image::box_cpu(test::const_view(src), test::view(out), k, b);
  else image::box_cpu(test::cview_f32(src), test::view_f32(out), k, b);
  return out;
}
cv::Mat gpu_box(const cv::Mat& src, int k, const image::Border& b, image::ConvVariant v, bool aligned) {
  if (src.depth() == CV_8U)
    return test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned,
                                                     [&](auto in, auto out, cudaStream_t s) { image::box(in, out, k, b, s, v); });
  return test::gpu_run<float, float>(src, src.type(), aligned, [&](auto in, auto out, cudaStream_t s) { image::box(in, out, k, b, s, v); });
}
double tolerance(int k) { return k % 2 == 0 && k >= 18 ? 1 : 0; }
}  // namespace

TEST_CASE("GPU box: every rung, border and channel count equals cv::blur", "[gpu][box]") {
  int n = 0;
  for (const auto& v : image::conv_variants())
    for (const auto& b : test::all_borders()) {
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      const bool aligned = (n++ / 3) % 2 == 0;
      for (int k : {4, 17}) {
        CAPTURE(v.name, test::name_of(b), cn, k, aligned);
        const cv::Mat src = test::random_image(71, 30, cn, unsigned(cn + k));
        REQUIRE(test::max_abs_diff(gpu_box(src, k, b, v.variant, aligned), cpu_box(src, k, b)) <= tolerance(k));
      }
    }
}

TEST_CASE("GPU box: every K, edge sizes, float images", "[gpu][box]") {
  const cv::Mat src = test::random_image(200, 40, 1, 3);
  for (int k = 1; k <= 31; ++k) {
    CAPTURE(k);
    REQUIRE(test::max_abs_diff(gpu_box(src, k, {}, image::box_default_variant(), k % 2 == 0), cpu_box(src, k, {})) <= tolerance(k));
  }
  for (int w : {1, 2, 3, 17, 127, 129, 4097}) {
    CAPTURE(w);
    const cv::Mat s = test::random_image(w, 3, 3, unsigned(w));
    const int k = std::min(w, 3);
    REQUIRE(test::max_abs_diff(gpu_box(s, k, {}, image::box_default_variant(), false), cpu_box(s, k, {})) == 0);
  }
  const cv::Mat f = test::random_mat(50, 20, CV_32FC4, 1);
  CHECK(test::max_abs_diff(gpu_box(f, 6, {image::BorderMode::reflect, 0}, image::ConvVariant::separable, true),
                           cpu_box(f, 6, {image::BorderMode::reflect, 0})) < 1e-3);
}
