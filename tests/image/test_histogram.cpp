// histogram on the host: the CPU path against cv::calcHist and a direct count, the side outputs.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <numeric>
#include <sstream>

#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/histogram.hpp"

using namespace wk;
using wk::test::const_view;

namespace {

std::vector<std::uint32_t> direct_count(const cv::Mat& m) {
  const int cn = m.channels();
  std::vector<std::uint32_t> h(std::size_t(cn) * 256, 0);
  for (int y = 0; y < m.rows; ++y)
    for (int x = 0; x < m.cols * cn; ++x) ++h[std::size_t(x % cn) * 256 + m.ptr<std::uint8_t>(y)[x]];
  return h;
}

std::vector<std::uint32_t> opencv_count(const cv::Mat& m) {
  std::vector<std::uint32_t> h(std::size_t(m.channels()) * 256, 0);
  const int size = 256;
  const float range[] = {0, 256};
  const float* ranges[] = {range};
  for (int c = 0; c < m.channels(); ++c) {
    cv::Mat hc;
    cv::calcHist(&m, 1, &c, cv::Mat(), hc, 1, &size, ranges);
    for (int b = 0; b < 256; ++b) h[std::size_t(c) * 256 + b] = static_cast<std::uint32_t>(hc.at<float>(b));
  }
  return h;
}

}  // namespace

TEST_CASE("histogram_cpu equals cv::calcHist on edge sizes, ROIs and channel counts", "[histogram]") {
  for (int cn : {1, 3, 4})
    for (int w : {1, 2, 3, 17, 127, 129, 4097})
      for (int h : {1, 2, 7}) {
        CAPTURE(cn, w, h);
        const cv::Mat big = test::random_image(w + 5, h + 2, cn, unsigned(w * 13 + h * 7 + cn));
        const cv::Mat src = big(cv::Rect(3, 1, w, h));  // pitch is no multiple of 16
        std::vector<std::uint32_t> got(std::size_t(cn) * 256, 7);
        image::histogram_cpu(const_view(src), got);
        CHECK(got == opencv_count(src));
        CHECK(got == direct_count(src));
        CHECK(std::accumulate(got.begin(), got.end(), std::uint64_t{0}) == std::uint64_t(w) * h * cn);
      }
}

TEST_CASE("histogram_cpu counts exactly beyond 2^24 pixels in one bin", "[histogram]") {
  // 4097 x 4097 = 16785409 pixels, one more than float's 2^24 can count exactly.
  const cv::Mat flat(4097, 4097, CV_8UC1, cv::Scalar(42));
  std::vector<std::uint32_t> got(256);
  image::histogram_cpu(const_view(flat), got);
  CHECK(got[42] == 16785409u);
  CHECK(std::accumulate(got.begin(), got.end(), std::uint64_t{0}) == 16785409u);
}

TEST_CASE("histogram_csv: a header line, then 256 rows bin,count or bin,b,g,r", "[histogram]") {
  const cv::Mat gray = test::random_image(31, 9, 1, 5), colour = test::random_image(31, 9, 3, 6);
  std::vector<std::uint32_t> hg(256), hc(768);
  image::histogram_cpu(const_view(gray), hg);
  image::histogram_cpu(const_view(colour), hc);
  const std::string g = image::histogram_csv(hg, 1), c = image::histogram_csv(hc, 3);
  std::istringstream gs(g), cs(c);
  std::string line;
  std::getline(gs, line);
  CHECK(line == "bin,count");
  std::getline(cs, line);
  CHECK(line == "bin,b,g,r");
  for (int b = 0; b < 256; ++b) {
    REQUIRE(std::getline(gs, line));
    CHECK(line == std::to_string(b) + "," + std::to_string(hg[b]));
    REQUIRE(std::getline(cs, line));
    CHECK(line == std::to_string(b) + "," + std::to_string(hc[b]) + "," + std::to_string(hc[256 + b]) + "," + std::to_string(hc[512 + b]));
  }
  CHECK_FALSE(std::getline(gs, line));
  CHECK(g.back() == '\n');
}

TEST_CASE("histogram_plot_png is a PNG bar chart with one panel per channel", "[histogram]") {
  std::vector<std::uint32_t> h(768, 0);
  h[10] = 100;
  h[256 + 200] = 50;
  h[512 + 255] = 1;
  const auto png = image::histogram_plot_png(h, 3);
  const cv::Mat img = cv::imdecode(png, cv::IMREAD_COLOR);
  REQUIRE_FALSE(img.empty());
  const auto png1 = image::histogram_plot_png(std::span<const std::uint32_t>(h.data(), 256), 1);
  const cv::Mat img1 = cv::imdecode(png1, cv::IMREAD_COLOR);
  REQUIRE_FALSE(img1.empty());
  CHECK(img.cols == img1.cols);
  CHECK(img.rows > 2 * img1.rows);
  // The tallest bar of panel 1 reaches near the panel's top: some non-white pixel in bin 10's column.
  const int x = 10 + 10 * 2;
  bool found = false;
  for (int y = 0; y < img1.rows / 3; ++y) found |= img1.at<cv::Vec3b>(y, x) != cv::Vec3b(255, 255, 255);
  CHECK(found);
}

TEST_CASE("histogram rejects bad views and names its rungs", "[histogram]") {
  cv::Mat two(4, 8, CV_8UC2);
  std::vector<std::uint32_t> h(1024);
  CHECK_THROWS_AS(image::histogram_cpu(const_view(two), h), Error);
  cv::Mat three(4, 8, CV_8UC3);
  std::vector<std::uint32_t> small(256);
  CHECK_THROWS_AS(image::histogram_cpu(const_view(three), small), Error);
  test::check_rung_table("histogram",
                         {"global_atomics", "shared_privatized", "warp_vectorized", "lane_privatized", "run_aggregated", "pipelined"});
}
