// conv on the GPU: every rung within 1 LSB of the CPU path (cv::filter2D / sepFilter2D; float
// sums in another order), on every border, channel count, kernel size 1x1..31x31, odd pitches;
// every call reports the rung that ran: the one asked for where it applies, else the tuning's
// choice.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <string_view>

#include "filter_test_util.hpp"
#include "rung_test_util.hpp"
#include "wk/image/conv.hpp"

using namespace wk;

namespace {
cv::Mat cpu_conv(const cv::Mat& src, const image::FilterKernel& k, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  if (src.depth() == CV_8U) image::conv_cpu(test::const_view(src), test::view(out), k, b);
  else image::conv_cpu(test::cview_f32(src), test::view_f32(out), k, b);
  return out;
}

// The rung a conv call runs: `rung` where it applies, else the first of the sm_90 tuning's order
// (conv.cpp: separable, tensor_core, register_blocked) that does. separable takes rank-1 kernels
// (those image::separate factors), tensor_core 8-bit images (any finite weights: three fp16 terms
// hold a float weight), the generic 2-D rungs every call.
std::string expected_conv_rung(std::string_view rung, const cv::Mat& src, const image::FilterKernel& k) {
  const bool u8 = src.depth() == CV_8U, rank1 = image::separate(k).has_value();
  auto applies = [&](std::string_view r) {
    if (r == "tensor_core") return u8;
    if (r == "separable") return rank1;
    return true;
  };
  if (!rung.empty() && applies(rung)) return std::string(rung);
  for (const char* r : {"separable", "tensor_core", "register_blocked"})
    if (applies(r)) return r;
  return {};
}

// Runs conv on `rung` ("" for the default) and checks the name it reports (also stored in *ran).
cv::Mat gpu_conv(const cv::Mat& src, const image::FilterKernel& k, const image::Border& b, std::string_view rung, bool aligned,
                 std::string* ran_out = nullptr) {
  std::string ran;
  cv::Mat out;
  if (src.depth() == CV_8U)
    out = test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned, [&](auto in, auto o, cudaStream_t s) {
      ran = image::conv(in, o, k, b, s, rung);
    });
  else
    out = test::gpu_run<float, float>(src, src.type(), aligned, [&](auto in, auto o, cudaStream_t s) { ran = image::conv(in, o, k, b, s, rung); });
  REQUIRE(ran == expected_conv_rung(rung, src, k));
  if (ran_out) *ran_out = ran;
  return out;
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
  const image::FilterKernel full = test::random_kernel(7, 5, 11, -0.4f, 0.7f), rank1 = outer(6, 9, 12);
  REQUIRE_FALSE(image::separate(full));
  REQUIRE(image::separate(rank1));
  for (const std::string& rung : test::rung_names_of("conv"))
    for (const auto& b : test::all_borders()) {
      // Every (rung, border) pair; channel counts and alignments rotate through the pairs.
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      const bool aligned = (n++ / 3) % 2 == 0;
      {
        CAPTURE(rung, test::name_of(b), cn, aligned);
        const cv::Mat src = test::random_image(67, 29, cn, unsigned(cn * 7 + int(b.mode)));
        for (const image::FilterKernel* k : {&full, &rank1}) {
          CAPTURE(k->width, k->height);
          std::string ran;
          REQUIRE(test::max_abs_diff(gpu_conv(src, *k, b, rung, aligned, &ran), cpu_conv(src, *k, b)) <= 1);
          // Every rung takes 8-bit images, but separable needs a rank-1 kernel: the tuning runs
          // the others on the tensor cores.
          CHECK(ran == (rung == "separable" && k == &full ? std::string("tensor_core") : rung));
        }
      }
    }
}

TEST_CASE("GPU conv: kernels 1x1 to 31x31, square and not, fast rungs", "[gpu][conv]") {
  const cv::Mat src = test::random_image(300, 40, 1, 5);
  for (int n = 1; n <= 31; ++n)
    for (const char* rung : {"register_blocked", "tensor_core", "separable"}) {
      const int w = n, h = std::max(1, 32 - n);
      const bool separable = std::string_view(rung) == "separable";
      CAPTURE(w, h, rung);
      const auto k = separable ? outer(w, h, unsigned(n)) : test::random_kernel(w, h, unsigned(n), -0.2f, 0.3f);
      if (separable) REQUIRE(image::separate(k));
      std::string ran;
      REQUIRE(test::max_abs_diff(gpu_conv(src, k, {}, rung, n % 2 == 0, &ran), cpu_conv(src, k, {})) <= 1);
      CHECK(ran == rung);
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
        std::string ran;
        REQUIRE(test::max_abs_diff(gpu_conv(src, c.k, b, "tensor_core", aligned, &ran), cpu_conv(src, c.k, b)) <= c.tolerance);
        CHECK(ran == "tensor_core");
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
        REQUIRE(test::max_abs_diff(gpu_conv(src, k, {}, "", aligned), cpu_conv(src, k, {})) <= 1);
      }
}

TEST_CASE("GPU conv: the tuned default is the separable passes for a rank-1 kernel, the tensor cores for another", "[gpu][conv]") {
  const cv::Mat src = test::random_image(61, 47, 3, 1);
  const cv::Mat f = test::random_mat(61, 47, CV_32FC1, 1);
  const image::FilterKernel full = test::random_kernel(7, 7, 1), smooth = image::parse_kernel_text("[1 2 1; 2 4 2; 1 2 1]", "t");
  for (bool aligned : {true, false}) {
    CAPTURE(aligned);
    std::string ran;
    CHECK(test::max_abs_diff(gpu_conv(src, full, {}, "", aligned, &ran), cpu_conv(src, full, {})) <= 1);
    CHECK(ran == "tensor_core");
    CHECK(test::max_abs_diff(gpu_conv(src, smooth, {}, "", aligned, &ran), cpu_conv(src, smooth, {})) <= 1);
    CHECK(ran == "separable");
    // Float images: no tensor_core rung.
    CHECK(test::max_abs_diff(gpu_conv(f, full, {}, "", aligned, &ran), cpu_conv(f, full, {})) < 1e-3);
    CHECK(ran == "register_blocked");
    CHECK(test::max_abs_diff(gpu_conv(f, smooth, {}, "", aligned, &ran), cpu_conv(f, smooth, {})) < 1e-3);
    CHECK(ran == "separable");
  }
}

TEST_CASE("GPU conv on float images and its usage errors", "[gpu][conv]") {
  for (const std::string& rung : test::rung_names_of("conv")) {
    CAPTURE(rung);
    const cv::Mat src = test::random_mat(45, 27, CV_32FC3, 3);
    const auto k = test::random_kernel(5, 7, 4);
    std::string ran;
    CHECK(test::max_abs_diff(gpu_conv(src, k, {image::BorderMode::wrap, 0}, rung, true, &ran), cpu_conv(src, k, {image::BorderMode::wrap, 0})) <
          1e-3);
    // No tensor cores for float, no separable passes for a kernel of rank 2 and more.
    CHECK(ran == (rung == "tensor_core" || rung == "separable" ? std::string("register_blocked") : rung));
  }
  const cv::Mat small = test::random_image(4, 4, 1, 1);
  CHECK_THROWS_WITH(gpu_conv(small, test::random_kernel(5, 1, 1), {}, "naive", true), Catch::Contains("larger"));
  // Names of no conv rung (other ops' own rungs among them) are usage errors naming the known ones.
  for (const char* bad : {"vectorized_3x3", "vectorized_5x5", "vectorized_wide", "rolling", "fft"})
    test::check_unknown_rung("conv", bad, [&] { gpu_conv(test::random_image(9, 9, 1, 2), test::random_kernel(3, 3, 1), {}, bad, true); });
}
