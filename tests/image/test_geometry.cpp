// Geometry on the host: flip, rotate, transpose and crop against a pixel-by-pixel model, crop's
// region syntax, and the ops in a pipeline.
#include <catch2/catch.hpp>
#include <opencv2/core.hpp>

#include <functional>
#include <string>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/geometry.hpp"
#include "wk/image/op.hpp"
#include "wk/image/pipeline.hpp"

using namespace wk;

namespace {

ConstImageView cv_of(const cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }
ImageView v_of(cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }

// Every output pixel equals the input pixel `from(x, y)` names.
void check_model(const cv::Mat& in, const cv::Mat& out, const std::function<cv::Point(int, int)>& from) {
  const int cn = in.channels();
  for (int y = 0; y < out.rows; ++y)
    for (int x = 0; x < out.cols; ++x) {
      const cv::Point p = from(x, y);
      for (int c = 0; c < cn; ++c) REQUIRE(out.ptr<std::uint8_t>(y)[x * cn + c] == in.ptr<std::uint8_t>(p.y)[p.x * cn + c]);
    }
}

}  // namespace

TEST_CASE("flip, rotate, transpose, crop on the CPU: each output pixel is the mapped input pixel", "[geometry]") {
  for (int cn : {1, 3, 4})
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{40, 17}}) {
      CAPTURE(cn, w, h);
      const cv::Mat in = test::random_image(w, h, cn, unsigned(w * 3 + cn));
      cv::Mat same(h, w, in.type()), swapped(w, h, in.type());
      image::flip_cpu(cv_of(in), v_of(same), image::FlipAxis::horizontal);
      check_model(in, same, [&](int x, int y) { return cv::Point(w - 1 - x, y); });
      image::flip_cpu(cv_of(in), v_of(same), image::FlipAxis::vertical);
      check_model(in, same, [&](int x, int y) { return cv::Point(x, h - 1 - y); });
      image::rotate_cpu(cv_of(in), v_of(swapped), 90);  // the top-left output pixel is the bottom-left input one
      check_model(in, swapped, [&](int x, int y) { return cv::Point(y, h - 1 - x); });
      image::rotate_cpu(cv_of(in), v_of(same), 180);
      check_model(in, same, [&](int x, int y) { return cv::Point(w - 1 - x, h - 1 - y); });
      image::rotate_cpu(cv_of(in), v_of(swapped), 270);
      check_model(in, swapped, [&](int x, int y) { return cv::Point(w - 1 - y, x); });
      image::transpose_cpu(cv_of(in), v_of(swapped));
      check_model(in, swapped, [&](int x, int y) { return cv::Point(y, x); });
      if (w > 2 && h > 2) {
        cv::Mat part(h - 2, w - 2, in.type());
        image::crop_cpu(cv_of(in), v_of(part), 1, 2);
        check_model(in, part, [&](int x, int y) { return cv::Point(x + 1, y + 2); });
      }
    }
}

TEST_CASE("parse_crop and place_crop: the two forms, and regions that do not fit", "[geometry]") {
  const image::CropRegion r = image::parse_crop("640x480+10+20");
  CHECK((r.width == 640 && r.height == 480 && r.x == 10 && r.y == 20 && !r.centred));
  const image::CropRegion c = image::place_crop(image::parse_crop("center:100x50"), 301, 200);
  CHECK((c.width == 100 && c.height == 50 && c.x == 100 && c.y == 75));
  CHECK(image::parse_crop("centre:3x4").centred);
  for (const char* bad : {"", "640", "640x", "x480", "640x480", "640x480+1", "640x480+1+", "0x4+0+0", "-3x4+0+0", "4x4+-1+0",
                          "4x4+0+0+0", "center:4x4+1+1", "4X4+0+0"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(image::parse_crop(bad), Error);
  }
  try {
    image::place_crop(image::parse_crop("10x10+95+0"), 100, 100);
    FAIL("a region past the right edge was placed");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
    CHECK_THAT(std::string(e.what()), Catch::Contains("10x10+95+0") && Catch::Contains("100x100"));
  }
  CHECK_THROWS_AS(image::place_crop(image::parse_crop("center:101x10"), 100, 100), Error);
}

TEST_CASE("geometry ops in a pipeline: declared, chained, sizes follow, a bad argument is a usage error", "[geometry]") {
  for (const char* name : {"flip", "rotate", "transpose", "crop"}) {
    const image::OpInfo* op = image::find_operation(name);
    REQUIRE(op);
    CHECK(op->rungs().size() == 2);
  }
  const cv::Mat in = test::random_image(30, 20, 3, 9);
  const cv::Mat out = image::Pipeline("rotate:90,crop:10x12+2+3,flip:h", Backend::cpu).run(in);
  REQUIRE((out.cols == 10 && out.rows == 12));
  cv::Mat rotated, expected;
  cv::rotate(in, rotated, cv::ROTATE_90_CLOCKWISE);
  cv::flip(rotated(cv::Rect(2, 3, 10, 12)), expected, 1);
  CHECK(cv::norm(out, expected, cv::NORM_INF) == 0);
  for (const char* bad : {"rotate:45", "rotate", "rotate:", "flip:", "flip:x", "crop", "crop:", "crop:abc", "transpose:1"}) {
    CAPTURE(bad);
    try {
      image::Pipeline p(bad, Backend::cpu);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::usage);
    }
  }
  // A region that does not fit this image fails the image, not the pipeline.
  image::Pipeline p("crop:40x10+0+0", Backend::cpu);
  CHECK_THROWS_AS(p.run(in), Error);
}
