// box on the host: the integer model the GPU implements (box_divide for areas <= 256, the float
// reciprocal above) against cv::blur, on every K, border and channel count.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "filter_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/box.hpp"
#include "wk/image/filter_formula.hpp"

using namespace wk;
using test::const_view;
using test::view;

namespace {
// The GPU's arithmetic: exact integer window sums, then OpenCV's 8-bit division.
cv::Mat box_model(const cv::Mat& src, int k, const image::Border& b) {
  image::FilterKernel ones;
  ones.width = ones.height = k;
  ones.weights.assign(std::size_t(k) * k, 1.f);
  const cv::Mat sums = test::reference_correlation(src, ones, b);
  cv::Mat out(src.size(), src.type());
  const int area = k * k;
  const image::BoxDivision div = image::box_division(area);
  for (int y = 0; y < src.rows; ++y)
    for (int x = 0; x < src.cols * src.channels(); ++x) {
      const unsigned s = static_cast<unsigned>(sums.ptr<double>(y)[x]);
      const long v = area == 1 ? long(s) : area <= 256 ? long(image::box_divide(s, div)) : std::lrintf(float(s) * float(1.0 / area));
      out.ptr<std::uint8_t>(y)[x] = cv::saturate_cast<std::uint8_t>(v);
    }
  return out;
}
}  // namespace

TEST_CASE("the box model equals cv::blur bit for bit (even K >= 18: OpenCV's own tail may round a tie)", "[box]") {
  for (int k = 1; k <= 31; ++k)
    for (const auto& b : test::all_borders()) {
      CAPTURE(k, test::name_of(b));
      const int cn = k % 3 == 0 ? 3 : (k % 3 == 1 ? 1 : 4);
      const cv::Mat src = test::random_image(k + 45, k + 6, cn, unsigned(k * 13));
      cv::Mat got(src.size(), src.type());
      image::box_cpu(const_view(src), view(got), k, b);
      const cv::Mat model = box_model(src, k, b);
      if (k % 2 == 0 && k >= 18) {
        REQUIRE(test::max_abs_diff(got, model) <= 1);
        CHECK(cv::countNonZero(cv::Mat(got != model).reshape(1)) <= 4);
      } else {
        REQUIRE(test::max_abs_diff(got, model) == 0);
      }
    }
}

TEST_CASE("box_divide gives cv::blur's result for every window sum of K <= 16", "[box]") {
  // A single-row image whose K-wide windows sweep every sum 0..255*K once the rows repeat:
  // check each K x K area against the same division of a known sum.
  for (int k = 2; k <= 16; ++k) {
    CAPTURE(k);
    const int area = k * k;
    const image::BoxDivision div = image::box_division(area);
    // Constant images have window sum 255 * ... every value v gives sum v * area: the quotient is v.
    for (int v = 0; v < 256; ++v) CHECK(image::box_divide(unsigned(v * area), div) == unsigned(v));
  }
}

TEST_CASE("box_cpu on float images and bad arguments", "[box]") {
  const cv::Mat f = test::random_mat(30, 20, CV_32FC3, 1);
  cv::Mat got(f.size(), f.type()), expected;
  image::box_cpu(test::cview_f32(f), test::view_f32(got), 4, {});
  cv::blur(f, expected, cv::Size(4, 4));
  CHECK(test::max_abs_diff(got, expected) == 0);
  for (int k : {0, -3, 32}) CHECK_THROWS_WITH(image::check_box_args(k), Catch::Contains("box"));
  const cv::Mat src = test::random_image(3, 3, 1, 1);
  cv::Mat out(3, 3, CV_8UC1);
  CHECK_THROWS_WITH(image::box_cpu(const_view(src), view(out), 4, {}), Catch::Contains("box") && Catch::Contains("larger"));
}
