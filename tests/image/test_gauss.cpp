// gauss on the host: the fixed-point model the GPU implements is bit-exact to cv::GaussianBlur,
// the CPU path handles every border (wrap and constant V on a padded copy), and the tuning's
// order of the GPU rungs.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <numeric>
#include <string_view>

#include "filter_test_util.hpp"
#include "image/gauss/gauss_gpu.hpp"
#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gauss.hpp"

using namespace wk;
using test::const_view;
using test::view;

TEST_CASE("gauss_fixed_point_kernel: symmetric integers summing to 256", "[gauss]") {
  for (int k = 1; k <= 31; k += 2)
    for (double sigma : {0.0, 0.3, 1.0, 2.5, 9.0}) {
      CAPTURE(k, sigma);
      const auto c = image::gauss_fixed_point_kernel(k, sigma);
      REQUIRE(int(c.size()) == k);
      CHECK(std::accumulate(c.begin(), c.end(), 0) == 256);
      for (int i = 0; i < k; ++i) CHECK(c[i] == c[k - 1 - i]);
      for (int v : c) CHECK(v >= 0);
    }
  CHECK(image::gauss_fixed_point_kernel(5, 0) == std::vector<int>{16, 64, 96, 64, 16});
}

TEST_CASE("gauss_rung_order: 5x5 with taps off the multiples of 16 goes to vectorized_wide", "[gauss]") {
  // The default is the first rung of the sm_90 tuning's order that applies to the call.
  using image::detail::gauss_rung_order;
  const auto fixed = [](int k, double sigma) { return image::gauss_fixed_point_kernel(k, sigma); };
  const auto small = [&](double sigma) {
    const auto c = fixed(5, sigma);
    return std::all_of(c.begin(), c.end(), [](int t) { return t % 16 == 0; });
  };
  REQUIRE(small(0.0));
  REQUIRE_FALSE(small(1.5));
  const auto first = [&](int k, double sigma) { return std::string_view(gauss_rung_order(k, fixed(k, sigma), true, 90).front()); };
  CHECK(first(3, 0.0) == "vectorized_5x5");
  CHECK(first(5, 0.0) == "vectorized_5x5");
  CHECK(first(5, 1.5) == "vectorized_wide");
  CHECK(first(7, 1.5) == "vectorized_wide");
  CHECK(first(15, 0.0) == "vectorized_wide");
  CHECK(first(17, 0.0) == "separable");  // the rolling kernel stops at 15 x 15
  // Float images: register_blocked up to 15 x 15, the separable passes above.
  CHECK(gauss_rung_order(5, {}, false, 90).front() == std::string_view("register_blocked"));
  CHECK(gauss_rung_order(17, {}, false, 90).front() == std::string_view("separable"));
  // Every order names gauss rungs only, and ends with a rung that takes every call (any channel
  // count and alignment): register_blocked or separable.
  for (int k = 3; k <= 31; k += 2)
    for (double sigma : {0.0, 0.3, 1.5, 9.0})
      for (bool u8 : {true, false}) {
        CAPTURE(k, sigma, u8);
        const auto order = gauss_rung_order(k, u8 ? fixed(k, sigma) : std::vector<int>{}, u8, 90);
        REQUIRE_FALSE(order.empty());
        for (const char* r : order) CHECK(test::is_rung_of("gauss", r));
        const std::string_view last = order.back();
        CHECK((last == "register_blocked" || last == "separable"));
      }
}

TEST_CASE("the fixed-point model is bit-exact to cv::GaussianBlur, and so is gauss_cpu on every border", "[gauss]") {
  for (int k = 1; k <= 31; k += 2)
    for (double sigma : {0.0, 0.8, 3.3})
      for (const auto& b : test::all_borders()) {
        CAPTURE(k, sigma, test::name_of(b));
        const int cn = (k / 2) % 3 == 0 ? 1 : ((k / 2) % 3 == 1 ? 3 : 4);
        const cv::Mat src = test::random_image(k + 20, k + 9, cn, unsigned(k * 7 + int(sigma * 10)));
        const cv::Mat model = test::gauss_fixed_reference(src, image::gauss_fixed_point_kernel(k, sigma), b);
        cv::Mat got(src.size(), src.type());
        image::gauss_cpu(const_view(src), view(got), k, sigma, b);
        REQUIRE(test::max_abs_diff(got, model) == 0);
        if (b.mode != image::BorderMode::wrap && b.value == 0) {
          const int cvb[] = {cv::BORDER_REPLICATE, cv::BORDER_REFLECT, cv::BORDER_REFLECT_101, cv::BORDER_CONSTANT};
          cv::Mat direct;
          cv::GaussianBlur(src, direct, cv::Size(k, k), sigma, sigma, cvb[int(b.mode)]);
          REQUIRE(test::max_abs_diff(direct, model) == 0);
        }
      }
}

TEST_CASE("gauss_cpu on edge sizes and ROIs, float images", "[gauss]") {
  for (int w : {1, 3, 17, 127, 129})
    for (int cn : {1, 3, 4}) {
      CAPTURE(w, cn);
      const int k = std::min(w, 5) | 1;
      const cv::Mat big = test::random_image(w + 4, 9, cn, unsigned(w + cn));
      const cv::Mat src = big(cv::Rect(1, 1, w, 7));
      cv::Mat got(src.size(), src.type());
      image::gauss_cpu(const_view(src), view(got), k, 0, {});
      CHECK(test::max_abs_diff(got, test::gauss_fixed_reference(src, image::gauss_fixed_point_kernel(k, 0), {})) == 0);
    }
  const cv::Mat f = test::random_mat(40, 30, CV_32FC1, 2);
  cv::Mat gf(f.size(), f.type()), expected;
  image::gauss_cpu(test::cview_f32(f), test::view_f32(gf),
                   7, 1.5, {});
  cv::GaussianBlur(f, expected, cv::Size(7, 7), 1.5);
  CHECK(test::max_abs_diff(gf, expected) == 0);
}

TEST_CASE("gauss refuses even or out-of-range K, negative sigma and kernels larger than the image", "[gauss]") {
  for (int k : {0, -1, 2, 4, 33})
    CHECK_THROWS_WITH(image::check_gauss_args(k, 0), Catch::Contains("gauss") && Catch::Contains("odd"));
  CHECK_THROWS_WITH(image::check_gauss_args(5, -1), Catch::Contains("sigma"));
  const cv::Mat src = test::random_image(4, 4, 1, 1);
  cv::Mat out(4, 4, CV_8UC1);
  CHECK_THROWS_WITH(image::gauss_cpu(const_view(src), view(out), 5, 0, {}), Catch::Contains("larger than the 4x4 image"));
}
