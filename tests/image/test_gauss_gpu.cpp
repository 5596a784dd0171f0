// gauss on the GPU: every rung bit-exact to the CPU path (cv::GaussianBlur) on 8-bit images, the
// rolling kernel on many strips and row segments, float images within rounding; every call
// reports the rung that ran: the one asked for where it applies, else the tuning's choice.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>

#include "core/tuning.hpp"
#include "filter_test_util.hpp"
#include "image/gauss/gauss_gpu.hpp"
#include "rung_test_util.hpp"
#include "wk/image/gauss.hpp"

using namespace wk;

namespace {
cv::Mat cpu_gauss(const cv::Mat& src, int k, double sigma, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  if (src.depth() == CV_8U) image::gauss_cpu(test::const_view(src), test::view(out), k, sigma, b);
  else image::gauss_cpu(test::cview_f32(src), test::view_f32(out), k, sigma, b);
  return out;
}

// The rung a gauss call runs: `rung` where it applies, else the first rung of the tuning's order
// (gauss_rung_order) that does; "" for K = 1 (a copy). `aligned`: both views' rows 8-byte
// aligned (test::DeviceMat). What each rung takes (gauss_gpu.hpp): the generic 2-D rungs and
// separable every call; tensor_core 8-bit K 3..15; rolling 8-bit gray aligned K 3..15 with every
// tap below 256; vectorized_5x5 8-bit gray aligned K 3 and 5; vectorized_wide 8-bit gray aligned
// K 5..15 with every tap below 256.
std::string expected_gauss_rung(std::string_view rung, const cv::Mat& src, int k, double sigma, bool aligned) {
  if (k == 1) return "";
  const bool u8 = src.depth() == CV_8U;
  const std::vector<int> fixed = u8 ? image::gauss_fixed_point_kernel(k, sigma) : std::vector<int>{};
  const bool below_256 = u8 && *std::max_element(fixed.begin(), fixed.end()) < 256;
  const bool gray8 = u8 && src.channels() == 1 && aligned;
  auto applies = [&](std::string_view r) {
    if (r == "tensor_core") return u8 && k <= 15;
    if (r == "rolling") return gray8 && k <= 15 && below_256;
    if (r == "vectorized_5x5") return gray8 && k <= 5;
    if (r == "vectorized_wide") return gray8 && k >= 5 && k <= 15 && below_256;
    return true;
  };
  if (!rung.empty() && applies(rung)) return std::string(rung);
  for (const char* r : image::detail::gauss_rung_order(k, fixed, u8, wk::detail::current_sm()))
    if (applies(r)) return r;
  FAIL("no rung of the tuning's order applies");
  return {};
}

// Runs gauss on `rung` ("" for the default) and checks the name it reports (also stored in *ran).
cv::Mat gpu_gauss(const cv::Mat& src, int k, double sigma, const image::Border& b, std::string_view rung, bool aligned,
                  std::string* ran_out = nullptr) {
  std::string ran;
  cv::Mat out;
  if (src.depth() == CV_8U)
    out = test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned, [&](auto in, auto o, cudaStream_t s) {
      ran = image::gauss(in, o, k, sigma, b, s, rung);
    });
  else
    out = test::gpu_run<float, float>(src, src.type(), aligned,
                                      [&](auto in, auto o, cudaStream_t s) { ran = image::gauss(in, o, k, sigma, b, s, rung); });
  REQUIRE(ran == expected_gauss_rung(rung, src, k, sigma, aligned));
  if (ran_out) *ran_out = ran;
  return out;
}
}  // namespace

TEST_CASE("GPU gauss: every rung, border and channel count bit-exact", "[gpu][gauss]") {
  int n = 0;
  for (const std::string& rung : test::rung_names_of("gauss"))
    for (const auto& b : test::all_borders()) {
      // Every (rung, border) pair; channel counts and alignments rotate through the pairs.
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      const bool aligned = (n++ / 3) % 2 == 0;
      for (int k : {5, 15}) {
        CAPTURE(rung, test::name_of(b), cn, k, aligned);
        const cv::Mat src = test::random_image(75, 33, cn, unsigned(cn * 5 + k));
        REQUIRE(test::max_abs_diff(gpu_gauss(src, k, 0, b, rung, aligned), cpu_gauss(src, k, 0, b)) == 0);
      }
    }
  // The rungs for 8-bit gray run as asked on aligned rows; unaligned rows, colour and float
  // images give way to another rung, and the result stays exact.
  const cv::Mat gray = test::random_image(75, 33, 1, 3), colour = test::random_image(75, 33, 3, 3);
  const cv::Mat f = test::random_mat(75, 33, CV_32FC1, 3);
  for (const char* rung : {"rolling", "vectorized_5x5", "vectorized_wide"})
    for (const cv::Mat* src : {&gray, &colour, &f})
      for (bool aligned : {true, false}) {
        CAPTURE(rung, src->channels(), src->depth(), aligned);
        std::string ran;
        const double diff = test::max_abs_diff(gpu_gauss(*src, 5, 1.5, {}, rung, aligned, &ran), cpu_gauss(*src, 5, 1.5, {}));
        if (src->depth() == CV_8U) CHECK(diff == 0);
        else CHECK(diff < 1e-3);
        CHECK((ran == rung) == (src == &gray && aligned));
      }
}

TEST_CASE("GPU gauss fast path: every K and sigma, edge widths, odd pitches", "[gpu][gauss]") {
  // rolling (8-bit gray, aligned rows, K up to 15 with every tap below 256; other calls give way
  // to the tuning's choice) and the generic separable passes, which take every call.
  for (const char* rung : {"rolling", "separable"}) {
    for (int k = 1; k <= 31; k += 2)
      for (double sigma : {0.0, 0.6, 4.0})
        for (bool aligned : {true, false}) {
          CAPTURE(rung, k, sigma, aligned);
          const cv::Mat src = test::random_image(std::max(k, 301), std::max(k, 45), 1, unsigned(k));
          REQUIRE(test::max_abs_diff(gpu_gauss(src, k, sigma, {}, rung, aligned), cpu_gauss(src, k, sigma, {})) == 0);
        }
    for (int w : {1, 3, 5, 8, 17, 127, 129, 1023, 1025, 4097})
      for (const auto& b : test::all_borders()) {
        const int k = std::min(w, 5) | 1;
        CAPTURE(rung, w, k, test::name_of(b));
        const cv::Mat src = test::random_image(w, 11, 1, unsigned(w));
        REQUIRE(test::max_abs_diff(gpu_gauss(src, k, 0, b, rung, true), cpu_gauss(src, k, 0, b)) == 0);
      }
  }
}

TEST_CASE("GPU gauss vectorized_5x5: K 3 and 5, every sigma and border, edge widths and heights, many warps",
          "[gpu][gauss][gauss_vectorized]") {
  const std::string_view vec = "vectorized_5x5";
  for (int k : {3, 5})
    for (double sigma : {0.0, 0.2, 0.3, 0.6, 1.5, 40.0})  // 0.2: a centre tap of 256; 0.3: 254
      for (const auto& b : test::all_borders()) {
        CAPTURE(k, sigma, test::name_of(b));
        const cv::Mat src = test::random_image(301, 45, 1, unsigned(k * 7 + int(sigma * 10)));
        REQUIRE(test::max_abs_diff(gpu_gauss(src, k, sigma, b, vec, true), cpu_gauss(src, k, sigma, b)) == 0);
      }
  // Widths around the 8-column chunks and the 512-column warps (interior warps, which skip the
  // border logic, from 1028 columns), heights around the 8-row warps and 64-row blocks, every
  // border (one in turn under the sanitizer); unaligned views take the stand-in rung. Sigma 0
  // gives taps that are multiples of 16 (both passes in 16-bit lanes), 1.5 general taps.
  for (int w : {3, 5, 6, 7, 8, 9, 10, 15, 16, 17, 255, 256, 257, 263, 511, 512, 513, 520, 1023, 1025, 1027, 1028, 1029, 1536, 4097})
    for (int h : {5, 8, 9, 11, 12, 13, 16, 17, 63, 64, 65, 130})
      for (double sigma : {0.0, 1.5})
        for (const auto& b : test::sweep_borders(std::size_t(w + h) + (sigma > 0))) {
          const int k = w < 5 ? 3 : 5;
          CAPTURE(w, h, k, sigma, test::name_of(b));
          const cv::Mat src = test::random_image(w, h, 1, unsigned(w * 131 + h));
          REQUIRE(test::max_abs_diff(gpu_gauss(src, k, sigma, b, vec, true), cpu_gauss(src, k, sigma, b)) == 0);
        }
  for (bool aligned : {true, false}) {
    CAPTURE(aligned);
    const cv::Mat src = test::random_image(2100, 700, 1, 10);
    REQUIRE(test::max_abs_diff(gpu_gauss(src, 5, 0, {}, vec, aligned), cpu_gauss(src, 5, 0, {})) == 0);
    // Every vertical (and, for sigma 0, horizontal) sum at the 16-bit lane's maximum.
    const cv::Mat flat(333, 517, CV_8UC1, cv::Scalar(255));
    for (double sigma : {0.0, 1.5})
      for (int k : {3, 5}) {
        CAPTURE(sigma, k);
        REQUIRE(test::max_abs_diff(gpu_gauss(flat, k, sigma, {}, vec, aligned), cpu_gauss(flat, k, sigma, {})) == 0);
      }
  }
}

TEST_CASE("GPU gauss vectorized_wide: K 5..15, every sigma and border, edge widths and heights, many warps",
          "[gpu][gauss][gauss_vectorized]") {
  const std::string_view wide = "vectorized_wide";
  for (int k : {5, 7, 9, 11, 13, 15})
    for (double sigma : {0.0, 0.2, 0.3, 0.6, 1.5, 40.0})  // 0.2: a centre tap of 256 (a stand-in runs); 0.3: 254
      for (const auto& b : test::all_borders()) {
        CAPTURE(k, sigma, test::name_of(b));
        const cv::Mat src = test::random_image(301, 45, 1, unsigned(k * 7 + int(sigma * 10)));
        REQUIRE(test::max_abs_diff(gpu_gauss(src, k, sigma, b, wide, true), cpu_gauss(src, k, sigma, b)) == 0);
      }
  // Widths around the 8-column chunks and the 240-column warps (the first warp that skips the
  // border logic needs 488 columns, the second 728), heights around the 8-row warps (such a warp
  // needs R rows above and below) and 64-row blocks, every border (one in turn under the
  // sanitizer); unaligned views take the stand-in rung.
  for (int w : {15, 16, 17, 23, 239, 240, 241, 247, 248, 249, 479, 480, 481, 487, 488, 489, 728, 1023, 4097})
    for (int h : {15, 16, 17, 20, 21, 22, 23, 63, 64, 65, 129, 260})
      for (const auto& b : test::sweep_borders(std::size_t(w + 3 * h))) {
        const int k = 5 + 2 * ((w + h) % 6);
        CAPTURE(w, h, k, test::name_of(b));
        const cv::Mat src = test::random_image(w, h, 1, unsigned(w * 131 + h));
        REQUIRE(test::max_abs_diff(gpu_gauss(src, k, 0, b, wide, true), cpu_gauss(src, k, 0, b)) == 0);
      }
  for (bool aligned : {true, false}) {
    CAPTURE(aligned);
    const cv::Mat src = test::random_image(2100, 700, 1, 10);
    REQUIRE(test::max_abs_diff(gpu_gauss(src, 15, 0, {}, wide, aligned), cpu_gauss(src, 15, 0, {})) == 0);
    const cv::Mat flat(333, 517, CV_8UC1, cv::Scalar(255));  // every vertical sum at the 16-bit lane's maximum
    REQUIRE(test::max_abs_diff(gpu_gauss(flat, 15, 0, {}, wide, aligned), cpu_gauss(flat, 15, 0, {})) == 0);
  }
}

TEST_CASE("GPU gauss tensor_core: K 3..15, every sigma and border, edge widths and heights, channels", "[gpu][gauss]") {
  const std::string_view tc = "tensor_core";
  for (int k : {3, 5, 7, 9, 11, 13, 15})
    for (double sigma : {0.0, 0.2, 0.3, 0.6, 1.5, 40.0})  // 0.2: a centre tap of 256; 0.3: 254
      for (const auto& b : test::all_borders()) {
        CAPTURE(k, sigma, test::name_of(b));
        const cv::Mat src = test::random_image(301, 45, 1, unsigned(k * 7 + int(sigma * 10)));
        REQUIRE(test::max_abs_diff(gpu_gauss(src, k, sigma, b, tc, true), cpu_gauss(src, k, sigma, b)) == 0);
      }
  // Widths around the 16-column strips and 128-column blocks, heights around the 8-row tiles and
  // 128-row blocks; unaligned views and colour take the byte-store and per-pixel staging paths.
  int n = 0;
  for (int w : {15, 16, 17, 31, 127, 128, 129, 143, 144, 145, 1023, 1025})
    for (int h : {15, 16, 17, 63, 64, 65, 127, 128, 129, 135, 136, 137, 300}) {
      const std::vector<image::Border> borders = test::all_borders();
      const image::Border b = borders[std::size_t(n) % borders.size()];
      const int cn = n % 5 == 0 ? 3 : 1;
      const bool aligned = n++ % 3 != 0;
      const int k = w >= 15 && h >= 15 ? 15 : 5;
      CAPTURE(w, h, k, cn, aligned, test::name_of(b));
      const cv::Mat src = test::random_image(w, h, cn, unsigned(w * 131 + h));
      REQUIRE(test::max_abs_diff(gpu_gauss(src, k, 0, b, tc, aligned), cpu_gauss(src, k, 0, b)) == 0);
    }
  // Many 128 x 128 tiles, the last of each row and column partial, every border, default and
  // general sigmas; a flat 255 image puts every row sum at its maximum (65280).
  for (int k : {3, 7, 15})
    for (const auto& b : test::all_borders()) {
      CAPTURE(k, test::name_of(b));
      const cv::Mat src = test::random_image(2100, 700, 1, unsigned(k * 17));
      REQUIRE(test::max_abs_diff(gpu_gauss(src, k, 0, b, tc, true), cpu_gauss(src, k, 0, b)) == 0);
      REQUIRE(test::max_abs_diff(gpu_gauss(src, k, 1.7, b, tc, true), cpu_gauss(src, k, 1.7, b)) == 0);
    }
  const cv::Mat flat(517, 333, CV_8UC1, cv::Scalar(255));
  REQUIRE(test::max_abs_diff(gpu_gauss(flat, 15, 0, {}, tc, true), cpu_gauss(flat, 15, 0, {})) == 0);
}

TEST_CASE("GPU gauss rolling kernel across many strips and row segments, float images", "[gpu][gauss]") {
  const cv::Mat src = test::random_image(2100, 700, 1, 9);
  for (int k : {3, 5, 7, 9, 15})
    for (const auto& b : {image::Border{}, image::Border{image::BorderMode::constant, 200}, image::Border{image::BorderMode::wrap, 0}}) {
      CAPTURE(k, test::name_of(b));
      REQUIRE(test::max_abs_diff(gpu_gauss(src, k, 0, b, "rolling", true), cpu_gauss(src, k, 0, b)) == 0);
    }
  for (const std::string& rung : test::rung_names_of("gauss")) {
    CAPTURE(rung);
    const cv::Mat f = test::random_mat(70, 41, CV_32FC1, 2);
    CHECK(test::max_abs_diff(gpu_gauss(f, 9, 2.0, {}, rung, false), cpu_gauss(f, 9, 2.0, {})) < 1e-3);
  }
  CHECK_THROWS_WITH(gpu_gauss(test::random_image(4, 9, 1, 1), 5, 0, {}, "separable", true), Catch::Contains("larger"));
}

TEST_CASE("GPU gauss: the tuned default on every kind of call, unknown rung names", "[gpu][gauss]") {
  const cv::Mat gray = test::random_image(301, 45, 1, 4), colour = test::random_image(301, 45, 4, 4);
  const cv::Mat f = test::random_mat(301, 45, CV_32FC3, 4);
  for (int k : {1, 3, 5, 7, 15, 17, 31})
    for (double sigma : {0.0, 1.5})
      for (const cv::Mat* src : {&gray, &colour, &f})
        for (bool aligned : {true, false}) {
          CAPTURE(k, sigma, src->channels(), src->depth(), aligned);
          const double diff = test::max_abs_diff(gpu_gauss(*src, k, sigma, {}, "", aligned), cpu_gauss(*src, k, sigma, {}));
          if (src->depth() == CV_8U) REQUIRE(diff == 0);
          else REQUIRE(diff < 1e-3);
        }
  // Names of no gauss rung (sobel's and laplacian's vectorized_3x3 among them) are usage errors
  // that name the known rungs, whatever the image.
  for (const char* bad : {"vectorized_3x3", "fastest", "Separable"})
    for (const cv::Mat* src : {&gray, &f})
      test::check_unknown_rung("gauss", bad, [&] { gpu_gauss(*src, 5, 0, {}, bad, true); });
}
