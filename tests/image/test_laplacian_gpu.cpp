// laplacian on the GPU: every rung equals the CPU path exactly; float images within rounding; the
// vectorized_3x3 kernel across its chunks, lanes, warps and blocks, aligned and not. Every call
// reports the rung that ran: the one asked for where it applies, else the tuning's choice.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "filter_test_util.hpp"
#include "rung_test_util.hpp"
#include "wk/image/laplacian.hpp"

using namespace wk;

namespace {
// The rung a laplacian call runs: `rung` where it applies, else the first of the sm_90 tuning's
// order (laplacian.cpp: vectorized_3x3, register_blocked) that does. vectorized_3x3 takes 8-bit
// gray with 8-byte aligned rows, tensor_core 8-bit images; separable never applies (the kernel
// is not rank 1); the generic 2-D rungs take every call.
std::string expected_laplacian_rung(std::string_view rung, const cv::Mat& src, bool aligned) {
  const bool u8 = src.depth() == CV_8U;
  auto applies = [&](std::string_view r) {
    if (r == "vectorized_3x3") return u8 && src.channels() == 1 && aligned;
    if (r == "tensor_core") return u8;
    return r != "separable";
  };
  if (!rung.empty() && applies(rung)) return std::string(rung);
  return applies("vectorized_3x3") ? "vectorized_3x3" : "register_blocked";
}

// Runs laplacian on `rung` ("" for the default) and checks the name it reports (also stored in *ran).
cv::Mat gpu_laplacian(const cv::Mat& src, const image::Border& b, std::string_view rung, bool aligned, std::string* ran_out = nullptr) {
  std::string ran;
  cv::Mat out;
  if (src.depth() == CV_8U)
    out = test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned,
                                                    [&](auto in, auto o, cudaStream_t s) { ran = image::laplacian(in, o, b, s, rung); });
  else
    out = test::gpu_run<float, float>(src, src.type(), aligned, [&](auto in, auto o, cudaStream_t s) { ran = image::laplacian(in, o, b, s, rung); });
  REQUIRE(ran == expected_laplacian_rung(rung, src, aligned));
  if (ran_out) *ran_out = ran;
  return out;
}
}  // namespace

TEST_CASE("GPU laplacian: every rung, border and channel count exact", "[gpu][laplacian]") {
  int n = 0;
  for (const std::string& rung : test::rung_names_of("laplacian"))
    for (const auto& b : test::all_borders()) {
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      ++n;
      for (int w : {3, 129}) {
          CAPTURE(rung, test::name_of(b), cn, w);
          const cv::Mat src = test::random_image(w, 13, cn, unsigned(cn + w));
          cv::Mat expected(src.size(), src.type());
          image::laplacian_cpu(test::const_view(src), test::view(expected), b);
          std::string ran;
          REQUIRE(test::max_abs_diff(gpu_laplacian(src, b, rung, w == 3, &ran), expected) == 0);
          // separable does not apply (the kernel is not rank 1): the default runs.
          if (rung == "separable") CHECK(ran == (cn == 1 && w == 3 ? "vectorized_3x3" : "register_blocked"));
        }
    }
  const cv::Mat f = test::random_mat(33, 20, CV_32FC1, 1);
  cv::Mat expected(f.size(), f.type());
  image::laplacian_cpu(test::cview_f32(f), test::view_f32(expected), {});
  std::string ran;
  CHECK(test::max_abs_diff(gpu_laplacian(f, {}, "", true, &ran), expected) < 1e-3);
  CHECK(ran == "register_blocked");
  for (const char* bad : {"rolling", "vectorized_5x5", "fastest"})
    test::check_unknown_rung("laplacian", bad, [&] { gpu_laplacian(test::random_image(9, 9, 1, 1), {}, bad, true); });
}

TEST_CASE("GPU laplacian vectorized_3x3: edge widths and heights, every border, odd pitches", "[gpu][laplacian]") {
  auto check = [](const cv::Mat& src, const image::Border& b, bool aligned) {
    cv::Mat expected(src.size(), src.type());
    image::laplacian_cpu(test::const_view(src), test::view(expected), b);
    std::string ran;
    REQUIRE(test::max_abs_diff(gpu_laplacian(src, b, "vectorized_3x3", aligned, &ran), expected) == 0);
    CHECK(ran == (aligned ? "vectorized_3x3" : "register_blocked"));
  };
  test::for_each_stencil3x3_case(5, 12, check);
  // Extremes: |-4 * 255| and 4 * 255 saturate at 255.
  cv::Mat dots(37, 530, CV_8UC1, cv::Scalar::all(0));
  for (int y = 1; y < dots.rows; y += 2)
    for (int x = y % 4; x < dots.cols; x += 2) dots.at<std::uint8_t>(y, x) = 255;
  check(dots, {image::BorderMode::constant, 255}, true);
  check(dots, {image::BorderMode::reflect101, 0}, true);
}
