// gray on the host: the shared fixed-point formula and the CPU path against OpenCV.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gray.hpp"
#include "wk/image/gray_formula.hpp"

using namespace wk;
using wk::test::const_view;
using wk::test::view;


TEST_CASE("gray_pixel equals cv::cvtColor for all 2^24 colours, BGR and RGB", "[gray]") {
  const cv::Mat src = test::all_colour_triples();
  cv::Mat bgr_ref, rgb_ref;
  cv::cvtColor(src, bgr_ref, cv::COLOR_BGR2GRAY);
  cv::cvtColor(src, rgb_ref, cv::COLOR_RGB2GRAY);
  long bgr_mismatch = 0, rgb_mismatch = 0;
  for (int y = 0; y < src.rows; ++y)
    for (int x = 0; x < src.cols; ++x) {
      const cv::Vec3b p = src.at<cv::Vec3b>(y, x);
      bgr_mismatch += image::gray_pixel(p[0], p[1], p[2], image::kGrayB, image::kGrayR) != bgr_ref.at<std::uint8_t>(y, x);
      rgb_mismatch += image::gray_pixel(p[0], p[1], p[2], image::kGrayR, image::kGrayB) != rgb_ref.at<std::uint8_t>(y, x);
    }
  CHECK(bgr_mismatch == 0);
  CHECK(rgb_mismatch == 0);
  // One pixel per row: OpenCV's scalar tail loop rather than its SIMD body.
  const cv::Mat column = src.reshape(3, 4096 * 4096);
  cv::Mat column_ref;
  cv::cvtColor(column, column_ref, cv::COLOR_BGR2GRAY);
  long column_mismatch = 0;
  for (int i = 0; i < column.rows; ++i) {
    const cv::Vec3b p = column.at<cv::Vec3b>(i, 0);
    column_mismatch += image::gray_pixel_bgr(p[0], p[1], p[2]) != column_ref.at<std::uint8_t>(i, 0);
  }
  CHECK(column_mismatch == 0);
  CHECK(image::kGrayB + image::kGrayG + image::kGrayR == 1 << image::kGrayShift);
}

TEST_CASE("gray_cpu equals cv::cvtColor on edge widths, ROIs and channel counts", "[gray]") {
  const int widths[] = {1, 2, 3, 17, 127, 129, 4097};
  for (int cn : {1, 3, 4})
    for (int w : widths)
      for (auto order : {image::ChannelOrder::bgr, image::ChannelOrder::rgb}) {
        CAPTURE(cn, w, order == image::ChannelOrder::bgr);
        // A region of interest of a wider image gives a pitch that is no multiple of 16.
        const cv::Mat big = test::random_image(w + 5, 9, cn, unsigned(w * 7 + cn));
        const cv::Mat src = big(cv::Rect(3, 1, w, 7));
        cv::Mat expected;
        if (cn == 1) expected = src.clone();
        else if (cn == 3) cv::cvtColor(src, expected, order == image::ChannelOrder::bgr ? cv::COLOR_BGR2GRAY : cv::COLOR_RGB2GRAY);
        else cv::cvtColor(src, expected, order == image::ChannelOrder::bgr ? cv::COLOR_BGRA2GRAY : cv::COLOR_RGBA2GRAY);
        cv::Mat got(src.rows, src.cols, CV_8UC1, cv::Scalar(7));
        image::gray_cpu(const_view(src), view(got), order);
        REQUIRE(cv::norm(expected, got, cv::NORM_INF) == 0);
      }
}

TEST_CASE("gray rejects mismatched views with a usage error", "[gray]") {
  cv::Mat src = test::random_image(8, 4, 3, 1);
  cv::Mat dst(4, 7, CV_8UC1), dst3(4, 8, CV_8UC3);
  cv::Mat two(4, 8, CV_8UC2);
  auto category = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.category();
    }
    return ErrorCategory::internal;
  };
  CHECK(category([&] { image::gray_cpu(const_view(src), view(dst), image::ChannelOrder::bgr); }) == ErrorCategory::usage);
  CHECK(category([&] { image::gray_cpu(const_view(src), view(dst3), image::ChannelOrder::bgr); }) == ErrorCategory::usage);
  cv::Mat ok(4, 8, CV_8UC1);
  CHECK(category([&] { image::gray_cpu(const_view(two), view(ok), image::ChannelOrder::bgr); }) == ErrorCategory::usage);
}

TEST_CASE("gray rungs are named in ladder order and unknown names are refused", "[gray]") {
  test::check_rung_table("gray", {"naive", "vectorized", "streaming"});
}
