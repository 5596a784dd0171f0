// Resize on the host: the GPU kernels' arithmetic (image/resize/resize_math.cuh, compiled here as
// plain C++) run over whole images against cv::resize (resize_cpu) for every interpolation, 1, 3
// and 4 channels, odd sizes, 1-pixel images, extreme ratios, integer shrinks and fill windows;
// then the size syntax and the plan.
#include <catch2/catch.hpp>
#include <opencv2/core.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "image/resize/resize_math.cuh"
#include "resize_test_cases.hpp"
#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/resize.hpp"

using namespace wk;
namespace rm = wk::image::resize_math;

namespace {

using SizeCase = test::ResizeCase;
using test::whole;

std::vector<SizeCase> size_cases() { return test::resize_cases(); }

constexpr const auto& kInterps = test::kResizeInterps;

// The model (resize_math) over the plan's window.
cv::Mat model(const cv::Mat& in, const image::ResizePlan& plan, image::Interp interp) {
  const rm::Params p = rm::make_params(in.cols, in.rows, {plan.scaled_width, plan.scaled_height, plan.x, plan.y},
                                       static_cast<rm::Interpolation>(interp));
  cv::Mat out(plan.height, plan.width, in.type());
  rm::run_host(p, in.channels(), in.data, in.step[0], out.data, out.step[0], plan.width, plan.height);
  return out;
}

}  // namespace

TEST_CASE("resize model: the kernels' arithmetic on the host matches cv::resize", "[resize]") {
  // The contract, per path the call takes (resize_math::Mode):
  // - nearest (and the same-size copy), area shrinking (integer ratios and fractional coverage)
  //   and lanczos: exact. They are OpenCV's own arithmetic step for step (lanczos' vertical pass
  //   has no SIMD variant in OpenCV 4.6).
  // - linear, cubic and area enlarging (2 and 4 taps): at most 1 level. OpenCV's SIMD vertical
  //   pass rounds differently from its scalar pass (linear: the row sums shifted right by 4
  //   before a 16-bit multiply; cubic: a float sum rounded half to even), so even OpenCV's own
  //   output depends on where a pixel falls in a SIMD vector; the model is the scalar pass.
  constexpr int kModes = 6;
  double worst[kModes] = {};
  int runs[kModes] = {};
  for (const SizeCase& sc : size_cases())
    for (int cn : {1, 3, 4}) {
      const cv::Mat in = test::random_image(sc.in_w, sc.in_h, cn, unsigned(sc.in_w * 31 + sc.in_h * 7 + cn));
      for (image::Interp interp : kInterps) {
        const image::ResizePlan& plan = sc.plan;
        CAPTURE(sc.in_w, sc.in_h, plan.scaled_width, plan.scaled_height, plan.x, plan.y, plan.width, plan.height, cn,
                image::interp_name(interp));
        cv::Mat expected(plan.height, plan.width, in.type());
        image::resize_cpu(test::const_view(in), test::view(expected), plan, interp);
        const cv::Mat got = model(in, plan, interp);
        const double diff = cv::norm(got, expected, cv::NORM_INF);
        const rm::Mode mode = rm::make_params(in.cols, in.rows, {plan.scaled_width, plan.scaled_height, plan.x, plan.y},
                                              static_cast<rm::Interpolation>(interp))
                                  .mode;
        CAPTURE(int(mode));
        const bool exact = mode != rm::Mode::taps2 && mode != rm::Mode::taps4;
        CHECK(diff <= (exact ? 0 : 1));
        worst[int(mode)] = std::max(worst[int(mode)], diff);
        ++runs[int(mode)];
      }
    }
  for (int m = 0; m < kModes; ++m) {
    CAPTURE(m);
    CHECK(runs[m] > 0);  // every path was taken
  }
  // The cases do reach OpenCV's rounding differences (else the bound above would prove little).
  CHECK(worst[int(rm::Mode::taps2)] == 1);
  CHECK(worst[int(rm::Mode::taps4)] == 1);
}

namespace {

// The separable GPU rung's structure on the host: per tile of 16 output rows, the horizontal step
// of each source row its vertical taps read (once per tile), then the vertical steps from those
// sums. Checks that the tile's rows stay within taps_row_span_bound.
template <int CN, int K>
void separable_host(const rm::Params& p, const cv::Mat& in, cv::Mat& out) {
  constexpr int kRows = 16;
  const int bound = rm::taps_row_span_bound(p, std::min(kRows, out.rows));
  for (int y0 = 0; y0 < out.rows; y0 += kRows) {
    const int rows = std::min(kRows, out.rows - y0);
    std::vector<rm::Coord> ys;
    for (int r = 0; r < rows; ++r) ys.push_back(rm::make_coord(p, false, y0 + r));
    const int base = ys.front().first, span = ys.back().first + K - base;
    CHECK(span <= bound);
    for (int x = 0; x < out.cols; ++x) {
      const rm::Coord cx = rm::make_coord(p, true, x);
      std::vector<int> h(std::size_t(span) * CN);
      for (int i = 0; i < span; ++i)
        rm::taps_horizontal<CN, K>(cx, in.ptr<std::uint8_t>(rm::clamp_int(base + i, 0, in.rows - 1)), in.cols - 1, &h[std::size_t(i) * CN]);
      for (int r = 0; r < rows; ++r) {
        int acc[CN] = {};
        for (int j = 0; j < K; ++j) rm::taps_vertical_add<CN>(ys[r].c[j], &h[std::size_t(ys[r].first - base + j) * CN], acc);
        rm::taps_store<CN>(acc, out.ptr<std::uint8_t>(y0 + r) + std::size_t(x) * CN);
      }
    }
  }
}

template <int CN>
void separable_host_cn(const rm::Params& p, const cv::Mat& in, cv::Mat& out) {
  switch (p.mode) {
    case rm::Mode::taps2: separable_host<CN, 2>(p, in, out); break;
    case rm::Mode::taps4: separable_host<CN, 4>(p, in, out); break;
    default: separable_host<CN, 8>(p, in, out); break;
  }
}

}  // namespace

TEST_CASE("resize model: the separable structure (horizontal sums per tile row, then vertical) gives the model's pixels",
          "[resize]") {
  int runs = 0;
  for (const SizeCase& sc : size_cases())
    for (int cn : {1, 3, 4}) {
      const cv::Mat in = test::random_image(sc.in_w, sc.in_h, cn, unsigned(sc.in_w * 31 + sc.in_h * 7 + cn));
      for (image::Interp interp : kInterps) {
        const image::ResizePlan& plan = sc.plan;
        const rm::Params p = rm::make_params(in.cols, in.rows, {plan.scaled_width, plan.scaled_height, plan.x, plan.y},
                                             static_cast<rm::Interpolation>(interp));
        if (rm::taps_of(p.mode) == 0) continue;
        CAPTURE(sc.in_w, sc.in_h, plan.scaled_width, plan.scaled_height, plan.x, plan.y, plan.width, plan.height, cn,
                image::interp_name(interp));
        cv::Mat got(plan.height, plan.width, in.type());
        switch (cn) {
          case 1: separable_host_cn<1>(p, in, got); break;
          case 3: separable_host_cn<3>(p, in, got); break;
          default: separable_host_cn<4>(p, in, got); break;
        }
        CHECK(cv::norm(got, model(in, plan, interp), cv::NORM_INF) == 0);
        ++runs;
      }
    }
  CHECK(runs > 0);
  // The span bound over every tile of large shrinks and enlargements (coordinates only).
  for (const auto& [in_h, out_h] : {std::pair{8192, 2000}, std::pair{8192, 1080}, std::pair{8191, 2341}, std::pair{4000, 4001},
                                    std::pair{1000, 7919}, std::pair{65535, 9000}})
    for (image::Interp interp : {image::Interp::linear, image::Interp::cubic, image::Interp::lanczos, image::Interp::area}) {
      const rm::Params p = rm::make_params(16, in_h, {16, out_h, 0, 0}, static_cast<rm::Interpolation>(interp));
      if (rm::taps_of(p.mode) == 0) continue;
      CAPTURE(in_h, out_h, image::interp_name(interp));
      const int bound = rm::taps_row_span_bound(p, 16);
      int worst = 0;
      for (int y0 = 0; y0 < out_h; y0 += 16) {
        const int last = std::min(out_h, y0 + 16) - 1;
        worst = std::max(worst, rm::make_coord(p, false, last).first + rm::taps_of(p.mode) - rm::make_coord(p, false, y0).first);
      }
      CHECK(worst <= bound);
      CHECK(worst >= bound - 2);  // and it is tight
    }
}

TEST_CASE("resize model: the paths OpenCV takes", "[resize]") {
  auto mode = [](int iw, int ih, int ow, int oh, image::Interp i) {
    return rm::make_params(iw, ih, {ow, oh, 0, 0}, static_cast<rm::Interpolation>(i)).mode;
  };
  CHECK(mode(64, 48, 32, 24, image::Interp::linear) == rm::Mode::area_fast);  // linear at exactly 2:1 is area
  CHECK(mode(99, 60, 33, 20, image::Interp::linear) == rm::Mode::taps2);      // but not at 3:1
  CHECK(mode(99, 60, 33, 20, image::Interp::area) == rm::Mode::area_fast);
  CHECK(mode(53, 41, 24, 19, image::Interp::area) == rm::Mode::area);
  CHECK(mode(40, 30, 20, 45, image::Interp::area) == rm::Mode::taps2);  // one side grows: OpenCV's area-linear
  CHECK(mode(64, 48, 32, 24, image::Interp::cubic) == rm::Mode::taps4);
  CHECK(mode(64, 48, 32, 24, image::Interp::lanczos) == rm::Mode::taps8);
  CHECK(mode(17, 9, 17, 9, image::Interp::lanczos) == rm::Mode::nearest);  // same size: a copy
}

TEST_CASE("parse_resize_size: WxH, W, xH and N%, anything else is a usage error", "[resize]") {
  const image::ResizeSize a = image::parse_resize_size("640x480");
  CHECK((a.width == 640 && a.height == 480 && a.percent == 0));
  const image::ResizeSize b = image::parse_resize_size("640");
  CHECK((b.width == 640 && b.height == 0));
  const image::ResizeSize c = image::parse_resize_size("x480");
  CHECK((c.width == 0 && c.height == 480));
  CHECK(image::parse_resize_size("50%").percent == 50);
  for (const char* bad : {"", "x", "640x", "0x480", "640x0", "-1x5", "640X480", "abc", "%", "0%", "-5%", "640x480x2", "1.5x2",
                          "65537x10", "20000%"}) {
    CAPTURE(bad);
    try {
      image::parse_resize_size(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::usage);
      CHECK_THAT(std::string(e.what()), Catch::Contains("resize: '" + std::string(bad) + "' is not a size"));
    }
  }
  try {
    image::parse_resize_size("abc", "thumbnail");
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("thumbnail: "));
  }
}

TEST_CASE("plan_resize: fit, fill and exact on landscape and portrait images", "[resize]") {
  const image::ResizeSize box = image::parse_resize_size("640x480");
  auto same = [](const image::ResizePlan& p, image::ResizePlan e) {
    CAPTURE(p.scaled_width, p.scaled_height, p.x, p.y, p.width, p.height);
    CHECK((p.scaled_width == e.scaled_width && p.scaled_height == e.scaled_height && p.x == e.x && p.y == e.y &&
           p.width == e.width && p.height == e.height));
  };
  // 4000x3000 has the box's aspect: every mode gives 640x480.
  for (auto mode : {image::FitMode::fit, image::FitMode::fill, image::FitMode::exact})
    same(image::plan_resize(box, mode, 4000, 3000), {640, 480, 0, 0, 640, 480});
  // 3000x4000 (portrait): fit inside the box, fill covers it and cuts the centre, exact stretches.
  same(image::plan_resize(box, image::FitMode::fit, 3000, 4000), {360, 480, 0, 0, 360, 480});
  same(image::plan_resize(box, image::FitMode::fill, 3000, 4000), {640, 853, 0, 186, 640, 480});
  same(image::plan_resize(box, image::FitMode::exact, 3000, 4000), {640, 480, 0, 0, 640, 480});
  // One side given: the other follows the aspect.
  same(image::plan_resize(image::parse_resize_size("640"), image::FitMode::fit, 4000, 3000), {640, 480, 0, 0, 640, 480});
  same(image::plan_resize(image::parse_resize_size("x480"), image::FitMode::fit, 3000, 4000), {360, 480, 0, 0, 360, 480});
  same(image::plan_resize(image::parse_resize_size("x480"), image::FitMode::fill, 3000, 4000), {360, 480, 0, 0, 360, 480});
  // Percent: both sides, at least 1 pixel.
  same(image::plan_resize(image::parse_resize_size("50%"), image::FitMode::fit, 4000, 3000), {2000, 1500, 0, 0, 2000, 1500});
  same(image::plan_resize(image::parse_resize_size("1%"), image::FitMode::fit, 30, 20), {1, 1, 0, 0, 1, 1});
  // no_enlarge keeps an image already inside the box.
  same(image::plan_resize(box, image::FitMode::fit, 300, 200, true), {300, 200, 0, 0, 300, 200});
  CHECK(image::default_interp(image::plan_resize(box, image::FitMode::fit, 4000, 3000), 4000, 3000) == image::Interp::area);
  CHECK(image::default_interp(image::plan_resize(box, image::FitMode::fit, 300, 200), 300, 200) == image::Interp::cubic);
}

TEST_CASE("resize_cpu: a destination that does not match the plan is a usage error", "[resize]") {
  const cv::Mat in = test::random_image(20, 10, 3, 1);
  cv::Mat wrong(5, 9, in.type());
  try {
    image::resize_cpu(test::const_view(in), test::view(wrong), whole(10, 5), image::Interp::linear);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
    CHECK_THAT(std::string(e.what()), Catch::Contains("resize: the destination must be 10x5 with 3 channels"));
  }
}

TEST_CASE("resize GPU entry: its rung table, and views that do not match the plan (checked before any device work)", "[resize]") {
  test::check_rung_table("resize", {"naive", "tables", "gather", "separable", "area_2x2"}, {"tiled"});
  std::uint8_t byte = 0;
  const ConstImageView src{&byte, 20, 10, 64, 3};
  auto usage = [&](ImageView dst, const image::ResizePlan& plan, const char* text) {
    CAPTURE(text);
    try {
      image::resize(src, dst, plan, image::Interp::area, nullptr);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::usage);
      CHECK_THAT(std::string(e.what()), Catch::Contains(text));
    }
  };
  usage({&byte, 9, 5, 64, 3}, whole(10, 5), "resize: the destination must be 10x5 with 3 channels");
  usage({&byte, 10, 5, 64, 1}, whole(10, 5), "resize: the destination must be 10x5 with 3 channels");
  usage({&byte, 10, 5, 64, 3}, {10, 5, 1, 0, 10, 5}, "resize: the window 10x5+1+0 is not inside the scaled size 10x5");
  const ConstImageView two{&byte, 20, 10, 64, 2};
  try {
    image::resize(two, {&byte, 10, 5, 64, 2}, whole(10, 5), image::Interp::area, nullptr);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
  }
  // An empty image runs nothing, yet a rung name must still be one of the table's.
  CHECK(std::string(image::resize({&byte, 0, 0, 64, 3}, {&byte, 0, 0, 64, 3}, {1, 1, 0, 0, 0, 0}, image::Interp::area, nullptr)).empty());
  test::check_unknown_rung("resize", "fastest", [&] {
    image::resize({&byte, 0, 0, 64, 3}, {&byte, 0, 0, 64, 3}, {1, 1, 0, 0, 0, 0}, image::Interp::area, nullptr, "fastest");
  });
}
