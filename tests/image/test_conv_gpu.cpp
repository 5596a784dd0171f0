// conv on the GPU: every rung within 1 LSB of the CPU path (cv::filter2D / sepFilter2D; float
// sums in another order), on every border, channel count, kernel size 1x1..31x31, odd pitches.
#include <catch2/catch.hpp>

#include <cmath>

#include "filter_test_util.hpp"
#include "wk/image/conv.hpp"

using namespace wk;

namespace {
cv::Mat cpu_conv(const cv::Mat& src, const image::FilterKernel& k, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  if (src.depth() == CV_8U) image::conv_cpu(test::const_view(src), test::view(out), k, b);
  else image::conv_cpu(test::cview_f32(src), test::view_f32(out), k, b);
  return out;
}
cv::Mat gpu_conv(const cv::Mat& src, const image::FilterKernel& k, const image::Border& b, image::ConvVariant v, bool aligned) {
  if (src.depth() == CV_8U)
    return test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned, [&](auto in, auto out, cudaStream_t s) {
      image::conv(in, out, k, b, s, v);
    });
  return test::gpu_run<float, float>(src, src.type(), aligned, [&](auto in, auto out, cudaStream_t s) { image::conv(in, out, k, b, s, v); });
}
image::FilterKernel outer(int w, int h, unsigned seed) {
  const auto col = test::random_kernel(1, h, seed), row = test::random_kernel(w, 1, seed + 1);
  image::FilterKernel k = test::random_kernel(w, h, seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) k.weights[y * w + x] = col.weights[y] * row.weights[x];
  return k;
}
}  // namespace

TEST_CASE("GPU conv: every rung, border and channel count within 1 LSB of the CPU path", "[gpu][conv]") {
  int n = 0;
  for (const auto& v : image::conv_variants())
    for (const auto& b : test::all_borders()) {
      // Every (rung, border) pair; channel counts and alignments rotate through the pairs.
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      const bool aligned = (n++ / 3) % 2 == 0;
      {
        CAPTURE(v.name, test::name_of(b), cn, aligned);
        const cv::Mat src = test::random_image(67, 29, cn, unsigned(cn * 7 + int(b.mode)));
        for (const auto& k : {test::random_kernel(7, 5, 11, -0.4f, 0.7f), outer(6, 9, 12)}) {
          CAPTURE(k.width, k.height);
          REQUIRE(test::max_abs_diff(gpu_conv(src, k, b, v.variant, aligned), cpu_conv(src, k, b)) <= 1);
        }
      }
    }
}

TEST_CASE("GPU conv: kernels 1x1 to 31x31, square and not, fast rungs", "[gpu][conv]") {
  const cv::Mat src = test::random_image(300, 40, 1, 5);
  for (int n = 1; n <= 31; ++n)
    for (auto v : {image::ConvVariant::register_blocked, image::ConvVariant::tensor_core, image::ConvVariant::separable}) {
      const int w = n, h = std::max(1, 32 - n);
      CAPTURE(w, h, image::to_string(v));
      const auto k = v == image::ConvVariant::separable ? outer(w, h, unsigned(n)) : test::random_kernel(w, h, unsigned(n), -0.2f, 0.3f);
      REQUIRE(test::max_abs_diff(gpu_conv(src, k, {}, v, n % 2 == 0), cpu_conv(src, k, {})) <= 1);
    }
}

TEST_CASE("GPU conv: the tensor_core rung's weight terms", "[gpu][conv]") {
  // Integer weights are exact in one fp16 term and their sums exact in the fp32 accumulator: the
  // result equals OpenCV's bit for bit. Fractional weights with sum |w| = 6 (the benchmark's) take
  // two terms, sum |w| = 110 three; weights over 13 octaves of magnitude two.
  const cv::Mat src = test::random_image(531, 150, 1, 21);
  image::FilterKernel integer = test::random_kernel(13, 11, 3);
  for (float& w : integer.weights) w = std::round(w * 6.f);
  image::FilterKernel two = test::random_kernel(15, 15, 6, -0.5f, 1.f);
  for (float& w : two.weights) w /= 15.f;
  image::FilterKernel spread = test::random_kernel(9, 9, 4);
  for (std::size_t i = 0; i < spread.weights.size(); ++i) spread.weights[i] *= std::ldexp(1.f, -int(i % 13));
  struct Case {
    const char* name;
    image::FilterKernel k;
    double tolerance;
  };
  for (const Case& c : {Case{"integer", integer, 0}, Case{"two terms", two, 1}, Case{"three terms", test::random_kernel(15, 15, 7), 1},
                        Case{"spread", spread, 1}, Case{"31x31", test::random_kernel(31, 31, 8, -0.02f, 0.04f), 1}})
    for (const auto& b : test::all_borders())
      for (bool aligned : {true, false}) {
        CAPTURE(c.name, test::name_of(b), aligned);
        REQUIRE(test::max_abs_diff(gpu_conv(src, c.k, b, image::ConvVariant::tensor_core, aligned), cpu_conv(src, c.k, b)) <= c.tolerance);
      }
}

TEST_CASE("GPU conv: edge sizes and odd pitches", "[gpu][conv]") {
  struct Size {
    int w, h, k;
  };
  for (const Size s : {Size{1, 1, 1}, {2, 7, 2}, {1, 9, 1}, {3, 3, 3}, {17, 4, 3}, {127, 9, 7}, {129, 5, 5}, {4097, 3, 3}, {1000, 300, 15}})
    for (int cn : {1, 3})
      for (bool aligned : {true, false}) {
        CAPTURE(s.w, s.h, s.k, cn, aligned);
        const cv::Mat src = test::random_image(s.w, s.h, cn, unsigned(s.w + s.h));
        const auto k = test::random_kernel(s.k, s.k, unsigned(s.k));
        REQUIRE(test::max_abs_diff(gpu_conv(src, k, {}, image::conv_default_variant(k), aligned), cpu_conv(src, k, {})) <= 1);
      }
}

TEST_CASE("GPU conv on float images and its usage errors", "[gpu][conv]") {
  for (const auto& v : image::conv_variants()) {
    CAPTURE(v.name);
    const cv::Mat src = test::random_mat(45, 27, CV_32FC3, 3);
    const auto k = test::random_kernel(5, 7, 4);
    CHECK(test::max_abs_diff(gpu_conv(src, k, {image::BorderMode::wrap, 0}, v.variant, true), cpu_conv(src, k, {image::BorderMode::wrap, 0})) <
          1e-3);
  }
  const cv::Mat small = test::random_image(4, 4, 1, 1);
  CHECK_THROWS_WITH(gpu_conv(small, test::random_kernel(5, 1, 1), {}, image::ConvVariant::naive, true), Catch::Contains("larger"));
}
