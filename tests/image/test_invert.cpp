// invert on the host: 255 - v in every channel, and the declaration wk-image reads.
#include <catch2/catch.hpp>
#include <opencv2/core.hpp>

#include <string>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/invert.hpp"
#include "wk/image/op.hpp"
#include "wk/image/pipeline.hpp"

using namespace wk;

TEST_CASE("invert_cpu: 255 - v in every channel", "[invert]") {
  for (int cn : {1, 3, 4}) {
    CAPTURE(cn);
    const cv::Mat src = test::random_image(37, 11, cn, unsigned(cn));
    cv::Mat got(src.size(), src.type());
    image::invert_cpu({src.data, src.cols, src.rows, src.step[0], cn}, {got.data, got.cols, got.rows, got.step[0], cn});
    for (int y = 0; y < src.rows; ++y)
      for (int x = 0; x < src.cols * cn; ++x) REQUIRE(int(got.ptr<std::uint8_t>(y)[x]) == 255 - src.ptr<std::uint8_t>(y)[x]);
  }
}

TEST_CASE("invert: declared once, found by its name and its alias, with its rungs", "[invert]") {
  const image::OpInfo* op = image::find_operation("invert");
  REQUIRE(op);
  CHECK(image::find_operation("negate") == op);
  CHECK(op->args.empty());
  REQUIRE(op->rungs().size() == 2);
  CHECK(std::string(op->rungs()[0].name) == "naive");
  CHECK(std::string(op->rungs()[1].name) == "vectorized");
  CHECK(image::op_syntax(*op) == "invert, negate");
  CHECK_THAT(image::operations_help(), Catch::Contains("invert, negate"));
}

TEST_CASE("invert: the pipeline runs it on the CPU, and it takes no argument", "[invert]") {
  const cv::Mat src = test::random_image(16, 9, 3, 7);
  image::Pipeline p("invert", Backend::cpu);
  cv::Mat expected;
  cv::bitwise_not(src, expected);
  CHECK(cv::norm(p.run(src), expected, cv::NORM_INF) == 0);
  try {
    image::Pipeline bad("invert:3", Backend::cpu);
    FAIL("an argument was accepted");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
    CHECK_THAT(std::string(e.what()), Catch::Contains("too many arguments"));
  }
}
