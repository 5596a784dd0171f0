// sharpen on the host: the model the GPU implements (bit-exact 5x5 Gaussian, then
// fma(src, 1 + A, fma(blur, -A, 0)) rounded half to even) against cv::addWeighted.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>

#include "filter_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gauss.hpp"
#include "wk/image/sharpen.hpp"

using namespace wk;
using test::const_view;
using test::view;

TEST_CASE("sharpen_cpu is within 1 LSB of the GPU's model (exact for A = 1), on every border", "[sharpen]") {
  for (double amount : {1.0, 0.0, 0.5, 0.3, 2.7})
    for (const auto& b : test::all_borders()) {
      CAPTURE(amount, test::name_of(b));
      const cv::Mat src = test::random_image(47, 19, amount == 0.5 ? 3 : 1, unsigned(amount * 10));
      cv::Mat got(src.size(), src.type());
      image::sharpen_cpu(const_view(src), view(got), amount, b);
      const cv::Mat blur = test::gauss_fixed_reference(src, image::gauss_fixed_point_kernel(5, 0), b);
      cv::Mat model(src.size(), src.type());
      const float alpha = float(1 + amount), beta = float(-amount);
      for (int y = 0; y < src.rows; ++y)
        for (int x = 0; x < src.cols * src.channels(); ++x)
          model.ptr<std::uint8_t>(y)[x] = cv::saturate_cast<std::uint8_t>(std::lrintf(
              std::fmaf(float(src.ptr<std::uint8_t>(y)[x]), alpha, std::fmaf(float(blur.ptr<std::uint8_t>(y)[x]), beta, 0.f))));
      REQUIRE(test::max_abs_diff(got, model) <= (amount == 1.0 || amount == 0.0 || amount == 0.5 ? 0 : 1));
    }
  CHECK_THROWS_WITH(image::check_sharpen_amount(-0.1), Catch::Contains("sharpen"));
  CHECK_THROWS_WITH(image::check_sharpen_amount(NAN), Catch::Contains("sharpen"));
}
