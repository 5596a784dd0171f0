// sharpen on the GPU: within 1 LSB of the CPU path (exact for AMOUNT 1), fused and unfused, on
// every rung, border and channel count. Every call reports the rung that ran: the one asked for
// where it applies, else the tuning's choice.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "filter_test_util.hpp"
#include "rung_test_util.hpp"
#include "wk/image/sharpen.hpp"

using namespace wk;

namespace {
cv::Mat cpu_sharpen(const cv::Mat& src, double a, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  if (src.depth() == CV_8U) image::sharpen_cpu(test::const_view(src), test::view(out), a, b);
  else image::sharpen_cpu(test::cview_f32(src), test::view_f32(out), a, b);
  return out;
}
// The rung a sharpen call runs: `rung` where it applies, else the first of the sm_90 tuning's
// order (sharpen.cpp: vectorized_5x5, rolling, separable) that does. The fused rungs (rolling,
// vectorized_5x5) take 8-bit gray with 8-byte aligned rows, tensor_core 8-bit images; the generic
// 2-D rungs and separable (gauss on that rung, then the weighting) every call.
std::string expected_sharpen_rung(std::string_view rung, const cv::Mat& src, bool aligned) {
  const bool u8 = src.depth() == CV_8U, gray8 = u8 && src.channels() == 1 && aligned;
  auto applies = [&](std::string_view r) {
    if (r == "rolling" || r == "vectorized_5x5") return gray8;
    if (r == "tensor_core") return u8;
    return true;
  };
  if (!rung.empty() && applies(rung)) return std::string(rung);
  return gray8 ? "vectorized_5x5" : "separable";
}
// Runs sharpen on `rung` ("" for the default) and checks the name it reports (also stored in *ran).
cv::Mat gpu_sharpen(const cv::Mat& src, double a, const image::Border& b, std::string_view rung, bool aligned,
                    std::string* ran_out = nullptr) {
  std::string ran;
  cv::Mat out;
  if (src.depth() == CV_8U)
    out = test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned,
                                                    [&](auto in, auto o, cudaStream_t s) { ran = image::sharpen(in, o, a, b, s, rung); });
  else
    out = test::gpu_run<float, float>(src, src.type(), aligned, [&](auto in, auto o, cudaStream_t s) { ran = image::sharpen(in, o, a, b, s, rung); });
  REQUIRE(ran == expected_sharpen_rung(rung, src, aligned));
  if (ran_out) *ran_out = ran;
  return out;
}
}  // namespace

TEST_CASE("GPU sharpen: every rung, border and channel count", "[gpu][sharpen]") {
  int n = 0;
  for (const std::string& rung : test::rung_names_of("sharpen"))
    for (const auto& b : test::all_borders()) {
      const int cn = n++ % 2 ? 3 : 1;
      for (double a : {1.0, 0.3}) {
          CAPTURE(rung, test::name_of(b), cn, a);
          const cv::Mat src = test::random_image(83, 19, cn, unsigned(cn + int(a * 10)));
          std::string ran;
          REQUIRE(test::max_abs_diff(gpu_sharpen(src, a, b, rung, true, &ran), cpu_sharpen(src, a, b)) <= (a == 1.0 ? 0 : 1));
          // The fused rungs stand aside for colour: blur on the separable passes, then weight.
          const bool fused = rung == "rolling" || rung == "vectorized_5x5";
          CHECK(ran == (fused && cn == 3 ? std::string("separable") : rung));
        }
    }
  for (const char* bad : {"vectorized_3x3", "vectorized_wide", "fastest"})
    test::check_unknown_rung("sharpen", bad, [&] { gpu_sharpen(test::random_image(9, 9, 1, 1), 1.0, {}, bad, true); });
}

TEST_CASE("GPU sharpen fused kernels on a large image, float images", "[gpu][sharpen]") {
  // The two fused one-pass kernels (rolling: the rolling Gaussian; vectorized_5x5, the default:
  // the streaming Gaussian, with interior warps at this size), every border; unaligned rows make
  // vectorized_5x5 hand over to the separable path.
  const cv::Mat src = test::random_image(2049, 513, 1, 2);
  for (const char* rung : {"rolling", "vectorized_5x5"})
    for (const auto& b : test::all_borders())
      for (double a : {1.0, 2.5, 0.3}) {
        CAPTURE(rung, test::name_of(b), a);
        std::string ran;
        REQUIRE(test::max_abs_diff(gpu_sharpen(src, a, b, rung, true, &ran), cpu_sharpen(src, a, b)) <= (a == 1.0 ? 0 : 1));
        CHECK(ran == rung);
      }
  std::string ran;
  REQUIRE(test::max_abs_diff(gpu_sharpen(src, 1.0, {}, "vectorized_5x5", false, &ran), cpu_sharpen(src, 1.0, {})) == 0);
  CHECK(ran == "separable");
  REQUIRE(test::max_abs_diff(gpu_sharpen(src, 1.0, {}, "", true, &ran), cpu_sharpen(src, 1.0, {})) == 0);
  REQUIRE(ran == "vectorized_5x5");
  const cv::Mat f = test::random_mat(30, 30, CV_32FC3, 2);
  CHECK(test::max_abs_diff(gpu_sharpen(f, 0.7, {}, "separable", false, &ran), cpu_sharpen(f, 0.7, {})) < 1e-2);
  CHECK(ran == "separable");
  CHECK(test::max_abs_diff(gpu_sharpen(f, 0.7, {}, "", false, &ran), cpu_sharpen(f, 0.7, {})) < 1e-2);
  CHECK(ran == "separable");
}
