// conv on the host: the CPU path (cv::filter2D / cv::sepFilter2D, padded copies for constant V and
// wrap) against an exact double-precision correlation, on every border, channel count and kernel
// size 1x1 to 31x31.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "filter_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/conv.hpp"

using namespace wk;
using test::const_view;
using test::view;

namespace {
cv::Mat cpu_conv(const cv::Mat& src, const image::FilterKernel& k, const image::Border& b) {
  cv::Mat out(src.size(), src.type(), cv::Scalar::all(3));
  if (src.depth() == CV_8U) image::conv_cpu(const_view(src), view(out), k, b);
  else
    image::conv_cpu(test::cview_f32(src),
                    test::view_f32(out), k, b);
  return out;
}
}  // namespace

TEST_CASE("conv_cpu is within 1 LSB of the exact correlation for every border, channels and sizes", "[conv]") {
  struct Case {
    int w, h, kw, kh;
  };
  const Case cases[] = {{1, 1, 1, 1}, {2, 9, 2, 2}, {2, 9, 1, 3}, {1, 7, 1, 5}, {3, 3, 3, 3}, {17, 5, 5, 5},
                        {127, 8, 7, 7}, {129, 6, 4, 6}, {40, 33, 31, 31}, {33, 17, 15, 3}, {4097, 3, 9, 3}};
  for (const auto& c : cases)
    for (int cn : {1, 3, 4})
      for (const auto& b : test::all_borders())
        for (bool rank1 : {false, true}) {
          CAPTURE(c.w, c.h, c.kw, c.kh, cn, test::name_of(b), rank1);
          image::FilterKernel k = test::random_kernel(c.kw, c.kh, unsigned(c.kw * 31 + c.kh + cn), -0.3f, 0.6f);
          if (rank1) {  // an outer product: runs through cv::sepFilter2D
            const auto col = test::random_kernel(1, c.kh, 7), row = test::random_kernel(c.kw, 1, 8);
            for (int y = 0; y < c.kh; ++y)
              for (int x = 0; x < c.kw; ++x) k.weights[y * c.kw + x] = col.weights[y] * row.weights[x];
          }
          const cv::Mat big = test::random_image(c.w + 3, c.h + 2, cn, unsigned(c.w + c.h * 3 + cn));
          const cv::Mat src = big(cv::Rect(2, 1, c.w, c.h));  // ROI: odd pitch, and OpenCV must not read outside it
          const cv::Mat got = cpu_conv(src, k, b);
          const cv::Mat expected = test::round_to_u8(test::reference_correlation(src, k, b));
          REQUIRE(test::max_abs_diff(got, expected) <= 1);
        }
}

TEST_CASE("conv_cpu equals OpenCV called directly where OpenCV has the border", "[conv]") {
  const cv::Mat src = test::random_image(61, 47, 3, 1);
  const auto k = test::random_kernel(6, 5, 2);
  cv::Mat expected;
  cv::filter2D(src, expected, -1, cv::Mat(5, 6, CV_32F, const_cast<float*>(k.weights.data())), cv::Point(3, 2), 0,
               cv::BORDER_REFLECT);
  CHECK(test::max_abs_diff(cpu_conv(src, k, {image::BorderMode::reflect, 0}), expected) == 0);
}

TEST_CASE("conv_cpu on float images", "[conv]") {
  for (const auto& b : test::all_borders()) {
    CAPTURE(test::name_of(b));
    const cv::Mat src = test::random_mat(37, 23, CV_32FC3, 4);
    const auto k = test::random_kernel(7, 5, 5);
    const cv::Mat expected = test::reference_correlation(src, k, b);
    CHECK(test::max_abs_diff(cpu_conv(src, k, b), expected) < 1e-3);
  }
}

TEST_CASE("conv_cpu refuses a kernel larger than the image and bad views", "[conv]") {
  const cv::Mat src = test::random_image(4, 9, 1, 1);
  cv::Mat out(9, 4, CV_8UC1);
  try {
    image::conv_cpu(const_view(src), view(out), test::random_kernel(5, 3, 1), {});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
    CHECK_THAT(std::string(e.what()), Catch::Contains("conv") && Catch::Contains("5x3") && Catch::Contains("4x9"));
  }
  cv::Mat wrong(9, 4, CV_8UC3);
  CHECK_THROWS_AS(image::conv_cpu(const_view(src), view(wrong), test::random_kernel(3, 3, 1), {}), Error);
}
