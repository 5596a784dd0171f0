// laplacian on the GPU: every rung equals the CPU path exactly; float images within rounding; the
// vectorized_3x3 kernel across its chunks, lanes, warps and blocks, aligned and not.
#include <catch2/catch.hpp>

#include "filter_test_util.hpp"
#include "wk/image/laplacian.hpp"

using namespace wk;

TEST_CASE("GPU laplacian: every rung, border and channel count exact", "[gpu][laplacian]") {
  int n = 0;
  for (const auto& v : image::conv_variants())
    for (const auto& b : test::all_borders()) {
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      ++n;
      for (int w : {3, 129}) {
          CAPTURE(v.name, test::name_of(b), cn, w);
          const cv::Mat src = test::random_image(w, 13, cn, unsigned(cn + w));
          cv::Mat expected(src.size(), src.type());
          image::laplacian_cpu(test::const_view(src), test::view(expected), b);
          const cv::Mat got = test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), w == 3, [&](auto in, auto out, cudaStream_t s) {
            image::laplacian(in, out, b, s, v.variant);
          });
          REQUIRE(test::max_abs_diff(got, expected) == 0);
        }
    }
  const cv::Mat f = test::random_mat(33, 20, CV_32FC1, 1);
  cv::Mat expected(f.size(), f.type());
  image::laplacian_cpu(test::cview_f32(f), test::view_f32(expected), {});
  const cv::Mat got = test::gpu_run<float, float>(f, f.type(), true, [&](auto in, auto out, cudaStream_t s) { image::laplacian(in, out, {}, s); });
  CHECK(test::max_abs_diff(got, expected) < 1e-3);
}

TEST_CASE("GPU laplacian vectorized_3x3: edge widths and heights, every border, odd pitches", "[gpu][laplacian]") {
  auto check = [](const cv::Mat& src, const image::Border& b, bool aligned) {
    cv::Mat expected(src.size(), src.type());
    image::laplacian_cpu(test::const_view(src), test::view(expected), b);
    const cv::Mat got = test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned, [&](auto in, auto out, cudaStream_t s) {
      image::laplacian(in, out, b, s, image::ConvVariant::vectorized_3x3);
    });
    REQUIRE(test::max_abs_diff(got, expected) == 0);
  };
  test::for_each_stencil3x3_case(5, 12, check);
  // Extremes: |-4 * 255| and 4 * 255 saturate at 255.
  cv::Mat dots(37, 530, CV_8UC1, cv::Scalar::all(0));
  for (int y = 1; y < dots.rows; y += 2)
    for (int x = y % 4; x < dots.cols; x += 2) dots.at<std::uint8_t>(y, x) = 255;
  check(dots, {image::BorderMode::constant, 255}, true);
  check(dots, {image::BorderMode::reflect101, 0}, true);
}
