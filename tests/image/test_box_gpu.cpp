// box on the GPU: every rung equals the CPU path (cv::blur) bit for bit (even K >= 18: a tie
// OpenCV's scalar tail rounds in double may differ by 1); every call reports the rung that ran.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "filter_test_util.hpp"
#include "rung_test_util.hpp"
#include "wk/image/box.hpp"

using namespace wk;

namespace {
cv::Mat cpu_box(const cv::Mat& src, int k, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  if (src.depth() == CV_8U) image::box_cpu(test::const_view(src), test::view(out), k, b);
  else image::box_cpu(test::cview_f32(src), test::view_f32(out), k, b);
  return out;
}
// The rung a box call runs: `rung` where it applies, else the first of the sm_90 tuning's order
// (box.cpp: tensor_core, register_blocked) that does. Every rung takes every call (the all-ones
// kernel is rank 1) but tensor_core, which takes 8-bit images only.
std::string expected_box_rung(std::string_view rung, const cv::Mat& src) {
  const bool u8 = src.depth() == CV_8U;
  if (rung.empty() || (rung == "tensor_core" && !u8)) return u8 ? "tensor_core" : "register_blocked";
  return std::string(rung);
}
// Runs box on `rung` ("" for the default) and checks the name it reports (also stored in *ran).
cv::Mat gpu_box(const cv::Mat& src, int k, const image::Border& b, std::string_view rung, bool aligned, std::string* ran_out = nullptr) {
  std::string ran;
  cv::Mat out;
  if (src.depth() == CV_8U)
    out = test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned,
                                                    [&](auto in, auto o, cudaStream_t s) { ran = image::box(in, o, k, b, s, rung); });
  else
    out = test::gpu_run<float, float>(src, src.type(), aligned, [&](auto in, auto o, cudaStream_t s) { ran = image::box(in, o, k, b, s, rung); });
  REQUIRE(ran == expected_box_rung(rung, src));
  if (ran_out) *ran_out = ran;
  return out;
}
double tolerance(int k) { return k % 2 == 0 && k >= 18 ? 1 : 0; }
}  // namespace

TEST_CASE("GPU box: every rung, border and channel count equals cv::blur", "[gpu][box]") {
  int n = 0;
  for (const std::string& rung : test::rung_names_of("box"))
    for (const auto& b : test::all_borders()) {
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      const bool aligned = (n++ / 3) % 2 == 0;
      for (int k : {4, 17}) {
        CAPTURE(rung, test::name_of(b), cn, k, aligned);
        const cv::Mat src = test::random_image(71, 30, cn, unsigned(cn + k));
        std::string ran;
        REQUIRE(test::max_abs_diff(gpu_box(src, k, b, rung, aligned, &ran), cpu_box(src, k, b)) <= tolerance(k));
        CHECK(ran == rung);
      }
    }
}

TEST_CASE("GPU box: every K, edge sizes, float images", "[gpu][box]") {
  const cv::Mat src = test::random_image(200, 40, 1, 3);
  for (int k = 1; k <= 31; ++k) {
    CAPTURE(k);
    std::string ran;
    REQUIRE(test::max_abs_diff(gpu_box(src, k, {}, "", k % 2 == 0, &ran), cpu_box(src, k, {})) <= tolerance(k));
    CHECK(ran == "tensor_core");
  }
  for (int w : {1, 2, 3, 17, 127, 129, 4097}) {
    CAPTURE(w);
    const cv::Mat s = test::random_image(w, 3, 3, unsigned(w));
    const int k = std::min(w, 3);
    REQUIRE(test::max_abs_diff(gpu_box(s, k, {}, "", false), cpu_box(s, k, {})) == 0);
  }
  const cv::Mat f = test::random_mat(50, 20, CV_32FC4, 1);
  CHECK(test::max_abs_diff(gpu_box(f, 6, {image::BorderMode::reflect, 0}, "separable", true),
                           cpu_box(f, 6, {image::BorderMode::reflect, 0})) < 1e-3);
  // Float images: tensor_core gives way to register_blocked, the default too.
  for (const char* rung : {"tensor_core", ""}) {
    CAPTURE(rung);
    std::string ran;
    CHECK(test::max_abs_diff(gpu_box(f, 6, {image::BorderMode::reflect, 0}, rung, true, &ran), cpu_box(f, 6, {image::BorderMode::reflect, 0})) <
          1e-3);
    CHECK(ran == "register_blocked");
  }
  for (const char* bad : {"vectorized_3x3", "rolling", "fastest"})
    test::check_unknown_rung("box", bad, [&] { gpu_box(src, 3, {}, bad, true); });
}
