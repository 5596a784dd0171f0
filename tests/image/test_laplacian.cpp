// laplacian on the host: |[0 1 0; 1 -4 1; 0 1 0]| exactly, on every border and channel count.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "filter_test_util.hpp"
#include "test_support.hpp"
#include "wk/image/laplacian.hpp"

using namespace wk;
using test::const_view;
using test::view;

TEST_CASE("laplacian_cpu is |exact Laplacian| saturated, on every border and channel count", "[laplacian]") {
  const auto k = image::parse_kernel_text("[0 1 0; 1 -4 1; 0 1 0]", "t");
  for (int cn : {1, 3, 4})
    for (int w : {3, 17, 129})
      for (const auto& b : test::all_borders()) {
        CAPTURE(cn, w, test::name_of(b));
        const cv::Mat src = test::random_image(w, 7, cn, unsigned(w + cn));
        cv::Mat got(src.size(), src.type());
        image::laplacian_cpu(const_view(src), view(got), b);
        cv::Mat expected = test::reference_correlation(src, k, b);
        expected = cv::abs(expected);
        cv::Mat e8;
        expected.convertTo(e8, CV_8U);
        REQUIRE(test::max_abs_diff(got, e8) == 0);
      }
  const cv::Mat f = test::random_mat(11, 9, CV_32FC3, 2);
  cv::Mat got(f.size(), f.type()), expected;
  image::laplacian_cpu(test::cview_f32(f), test::view_f32(got), {});
  cv::Laplacian(f, expected, CV_32F, 1);
  CHECK(test::max_abs_diff(got, expected) == 0);
}
