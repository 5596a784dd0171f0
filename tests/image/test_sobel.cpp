// sobel on the host: exact 16-bit derivatives on every border, |dx| / |dy| and the magnitude rule.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "filter_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/sobel.hpp"

using namespace wk;
using test::const_view;
using test::view;

namespace {
const image::FilterKernel kDx = image::parse_kernel_text("[-1 0 1; -2 0 2; -1 0 1]", "t");
const image::FilterKernel kDy = image::parse_kernel_text("[-1 -2 -1; 0 0 0; 1 2 1]", "t");

cv::Mat s16(const cv::Mat& src, image::SobelDerivative d, const image::Border& b) {
  cv::Mat out(src.size(), CV_16SC(src.channels()));
  image::sobel_s16_cpu(const_view(src), test::view_s16(out), d, b);
  return out;
}
}  // namespace

TEST_CASE("sobel_s16_cpu, |dx|, |dy| and the magnitude are exact on every border and channel count", "[sobel]") {
  for (int cn : {1, 3, 4})
    for (int w : {3, 4, 17, 127, 129})
      for (const auto& b : test::all_borders()) {
        CAPTURE(cn, w, test::name_of(b));
        const cv::Mat big = test::random_image(w + 3, 8, cn, unsigned(w * 3 + cn));
        const cv::Mat src = big(cv::Rect(1, 1, w, 6));
        const cv::Mat rx = test::reference_correlation(src, kDx, b), ry = test::reference_correlation(src, kDy, b);
        REQUIRE(test::max_abs_diff(s16(src, image::SobelDerivative::dx, b), rx) == 0);
        REQUIRE(test::max_abs_diff(s16(src, image::SobelDerivative::dy, b), ry) == 0);
        cv::Mat mag(src.size(), src.type()), ax(src.size(), src.type()), ay(src.size(), src.type());
        image::sobel_cpu(const_view(src), view(mag), image::SobelOutput::magnitude, b);
        image::sobel_cpu(const_view(src), view(ax), image::SobelOutput::dx, b);
        image::sobel_cpu(const_view(src), view(ay), image::SobelOutput::dy, b);
        long bad = 0;
        for (int y = 0; y < src.rows; ++y)
          for (int x = 0; x < src.cols * cn; ++x) {
            const double gx = rx.ptr<double>(y)[x], gy = ry.ptr<double>(y)[x];
            bad += mag.ptr<std::uint8_t>(y)[x] != cv::saturate_cast<std::uint8_t>(std::nearbyint(std::sqrt(gx * gx + gy * gy)));
            bad += ax.ptr<std::uint8_t>(y)[x] != cv::saturate_cast<std::uint8_t>(std::abs(gx));
            bad += ay.ptr<std::uint8_t>(y)[x] != cv::saturate_cast<std::uint8_t>(std::abs(gy));
          }
        REQUIRE(bad == 0);
      }
}

TEST_CASE("sobel_cpu on float images, too small an image is refused", "[sobel]") {
  const cv::Mat f = test::random_mat(21, 13, CV_32FC1, 3);
  cv::Mat got(f.size(), f.type()), expected;
  image::sobel_cpu(test::cview_f32(f), test::view_f32(got),
                   image::SobelDerivative::dy, {});
  cv::Sobel(f, expected, CV_32F, 0, 1, 3);
  CHECK(test::max_abs_diff(got, expected) == 0);
  const cv::Mat tiny = test::random_image(2, 9, 1, 1);
  cv::Mat out(9, 2, CV_8UC1);
  CHECK_THROWS_WITH(image::sobel_cpu(const_view(tiny), view(out), image::SobelOutput::magnitude, {}), Catch::Contains("sobel"));
}
