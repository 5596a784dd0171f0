// equalize on the host: the shared YCrCb and LUT formulas and the CPU path against OpenCV.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/equalize.hpp"
#include "wk/image/equalize_formula.hpp"

using namespace wk;
using wk::test::const_view;
using wk::test::view;

namespace {

cv::Mat opencv_equalize(const cv::Mat& src) {
  cv::Mat out;
  if (src.channels() == 1) {
    cv::equalizeHist(src, out);
    return out;
  }
  cv::Mat ycc, bgr;
  cv::cvtColor(src, ycc, cv::COLOR_BGR2YCrCb);
  std::vector<cv::Mat> p;
  cv::split(ycc, p);
  cv::equalizeHist(p[0], p[0]);
  cv::merge(p, ycc);
  cv::cvtColor(ycc, bgr, cv::COLOR_YCrCb2BGR);
  if (src.channels() == 3) return bgr;
  std::vector<cv::Mat> parts;
  cv::split(bgr, parts);
  cv::Mat alpha;
  cv::extractChannel(src, alpha, 3);
  parts.push_back(alpha);
  cv::merge(parts, out);
  return out;
}

// Images whose histograms exercise the LUT: a few values, gaps, one dominant value, smooth.
cv::Mat test_image(int w, int h, int cn, int kind, unsigned seed) {
  cv::Mat m = test::random_image(w, h, cn, seed);
  cv::RNG rng(seed);
  switch (kind) {
    case 0: break;                                       // uniform noise
    case 1: m = m / 64 * 64 + cv::Scalar::all(3); break;                // 4 values with gaps
    case 2: m.setTo(cv::Scalar::all(77)); m.at<std::uint8_t>(0, 0) = 200; break;  // one dominant value
    case 3: m.setTo(cv::Scalar::all(123)); break;        // a single value
    case 4:                                              // a smooth gradient in a narrow range
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w * cn; ++x) m.ptr<std::uint8_t>(y)[x] = std::uint8_t(100 + (x / cn + y) % 40);
      break;
  }
  return m;
}

}  // namespace

TEST_CASE("bgr_to_ycc and ycc_to_bgr equal cv::cvtColor for all 2^24 inputs", "[equalize]") {
  const cv::Mat src = test::all_colour_triples();
  cv::Mat ycc, bgr;
  cv::cvtColor(src, ycc, cv::COLOR_BGR2YCrCb);
  cv::cvtColor(src, bgr, cv::COLOR_YCrCb2BGR);
  long fwd = 0, inv = 0;
  for (int y = 0; y < src.rows; ++y)
    for (int x = 0; x < src.cols; ++x) {
      const cv::Vec3b p = src.at<cv::Vec3b>(y, x);
      const image::Ycc c = image::bgr_to_ycc(p[0], p[1], p[2]);
      fwd += cv::Vec3b(c.y, c.cr, c.cb) != ycc.at<cv::Vec3b>(y, x);
      const image::Bgr b = image::ycc_to_bgr(p[0], p[1], p[2]);
      inv += cv::Vec3b(b.b, b.g, b.r) != bgr.at<cv::Vec3b>(y, x);
    }
  CHECK(fwd == 0);
  CHECK(inv == 0);
}

TEST_CASE("equalize_lut_value reproduces cv::equalizeHist's LUT", "[equalize]") {
  for (int kind = 0; kind < 5; ++kind)
    for (int w : {1, 3, 64, 1001}) {
      CAPTURE(kind, w);
      const cv::Mat src = test_image(w, 37, 1, kind, unsigned(kind * 100 + w));
      cv::Mat expected;
      cv::equalizeHist(src, expected);
      int hist[256] = {};
      for (int y = 0; y < src.rows; ++y)
        for (int x = 0; x < src.cols; ++x) ++hist[src.at<std::uint8_t>(y, x)];
      int first = 0;
      while (!hist[first]) ++first;
      const int total = src.rows * src.cols;
      std::uint8_t lut[256] = {};
      if (hist[first] == total) {
        for (auto& v : lut) v = std::uint8_t(first);
      } else {
        const float scale = image::equalize_scale(total, hist[first]);
        int cumulative = 0;
        for (int v = first + 1; v < 256; ++v) lut[v] = image::equalize_lut_value(cumulative += hist[v], scale);
      }
      long mismatches = 0;
      for (int y = 0; y < src.rows; ++y)
        for (int x = 0; x < src.cols; ++x) mismatches += lut[src.at<std::uint8_t>(y, x)] != expected.at<std::uint8_t>(y, x);
      CHECK(mismatches == 0);
    }
}

TEST_CASE("equalize_cpu equals OpenCV on gray, BGR and BGRA, edge widths and ROIs", "[equalize]") {
  for (int cn : {1, 3, 4})
    for (int w : {1, 2, 3, 17, 127, 129, 4097})
      for (int kind : {0, 1, 2, 3, 4}) {
        CAPTURE(cn, w, kind);
        const cv::Mat big = test_image(w + 4, 9, cn, kind, unsigned(w * 3 + cn * 11 + kind));
        const cv::Mat src = big(cv::Rect(2, 1, w, 7));
        cv::Mat got(src.rows, src.cols, src.type(), cv::Scalar::all(9));
        image::equalize_cpu(const_view(src), view(got));
        REQUIRE(cv::norm(opencv_equalize(src.clone()), got, cv::NORM_INF) == 0);
      }
}

TEST_CASE("equalize_cpu works in place and rejects bad views, equalize's rungs", "[equalize]") {
  cv::Mat img = test_image(50, 20, 3, 4, 3);
  const cv::Mat expected = opencv_equalize(img);
  image::equalize_cpu(const_view(img), view(img));
  CHECK(cv::norm(expected, img, cv::NORM_INF) == 0);
  cv::Mat a(4, 8, CV_8UC1), b(4, 8, CV_8UC3), c(4, 7, CV_8UC1);
  CHECK_THROWS_AS(image::equalize_cpu(const_view(a), view(b)), Error);
  CHECK_THROWS_AS(image::equalize_cpu(const_view(a), view(c)), Error);
  test::check_rung_table("equalize", {"naive", "shared_lut", "vectorized"}, {"turbo"});
}
