// Resize on the GPU: every rung against the CPU path (cv::resize) for every interpolation, 1, 3
// and 4 channels, odd sizes, 1-pixel images, extreme ratios, integer shrinks and fill windows:
// nearest equal, the others within 1 level; the tuned default; the 2:1 and gather rungs' fallback
// on unaligned rows; the separable rung's fallback on vertical shrinks past its buffer; several
// host threads on their own streams.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "image/resize/resize_math.cuh"
#include "resize_test_cases.hpp"
#include "image/rungs.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/resize.hpp"

using namespace wk;

namespace {

using SizeCase = test::ResizeCase;
using test::whole;

// test::resize_cases(), and a 2:1 fill window.
std::vector<SizeCase> size_cases() {
  std::vector<SizeCase> cases = test::resize_cases();
  cases.push_back({256, 128, {128, 64, 32, 0, 64, 64}});  // 2:1 window, 16-byte aligned input corner
  return cases;
}

constexpr const auto& kInterps = test::kResizeInterps;

// Runs the GPU resize of `in` (optionally through a view starting `skip` pixels into each row, to
// misalign it) and returns the output; `ran`: the rung that ran.
cv::Mat run_gpu(const cv::Mat& in, const image::ResizePlan& plan, image::Interp interp, const std::string& rung, std::string& ran,
                int skip = 0) {
  Stream stream;
  const int cn = in.channels();
  DeviceImage d_in(in.cols + skip, in.rows, cn), d_out(plan.width, plan.height, cn);
  const std::size_t row = std::size_t(in.cols) * cn;
  ImageView src = d_in.view();
  src.data += std::size_t(skip) * cn;
  src.width = in.cols;
  WK_CUDA_CHECK(cudaMemcpy2DAsync(src.data, src.pitch_bytes, in.data, in.step[0], row, in.rows, cudaMemcpyHostToDevice, stream));
  ran = image::resize(src, d_out.view(), plan, interp, stream, rung);
  cv::Mat out(plan.height, plan.width, in.type());
  WK_CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.step[0], d_out.view().data, d_out.pitch_bytes(), std::size_t(plan.width) * cn,
                                  plan.height, cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  return out;
}

cv::Mat run_cpu(const cv::Mat& in, const image::ResizePlan& plan, image::Interp interp) {
  cv::Mat out(plan.height, plan.width, in.type());
  image::resize_cpu(test::const_view(in), test::view(out), plan, interp);
  return out;
}

// The 2:1 rung applies: area, or linear (which OpenCV computes as area at 2:1), 2:1 both ways.
bool is_2x2(const SizeCase& sc, image::Interp interp) {
  return (interp == image::Interp::area || interp == image::Interp::linear) && sc.in_w == 2 * sc.plan.scaled_width &&
         sc.in_h == 2 * sc.plan.scaled_height;
}

// The separable rung applies: the fixed-point taps (linear, cubic, lanczos, area enlarging; not
// linear at 2:1, which is area). The size cases shrink at most 3:1 vertically, well inside its
// buffer.
bool is_taps(const SizeCase& sc, image::Interp interp) {
  const image::ResizePlan& plan = sc.plan;
  const auto p = image::resize_math::make_params(sc.in_w, sc.in_h, {plan.scaled_width, plan.scaled_height, plan.x, plan.y},
                                                 static_cast<image::resize_math::Interpolation>(interp));
  return image::resize_math::taps_of(p.mode) > 0;
}

// The gather rung applies: linear and cubic where they are the fixed-point taps (not linear at
// 2:1, which is area, nor a same-size copy), on aligned rows (run_gpu's device images without a
// skip are: their rows start 4-byte aligned and their pitch holds whole words).
bool is_gather(const SizeCase& sc, image::Interp interp) {
  return (interp == image::Interp::linear || interp == image::Interp::cubic) && is_taps(sc, interp);
}

// The rung the tuned order runs: area_2x2 where it applies; for lanczos separable; for linear and
// cubic gather; else tables (naive takes the rest, never reached).
std::string tuned_rung(const SizeCase& sc, image::Interp interp) {
  return is_2x2(sc, interp)                                        ? "area_2x2"
         : interp == image::Interp::lanczos && is_taps(sc, interp) ? "separable"
         : is_gather(sc, interp)                                   ? "gather"
                                                                   : "tables";
}

}  // namespace

TEST_CASE("resize GPU: every rung matches cv::resize (nearest equal, others within 1)", "[resize][gpu]") {
  for (const RungInfo& r : image::detail::resize_rungs())
    for (const SizeCase& sc : size_cases())
      for (int cn : {1, 3, 4}) {
        const cv::Mat in = test::random_image(sc.in_w, sc.in_h, cn, unsigned(sc.in_w * 31 + sc.in_h * 7 + cn));
        for (image::Interp interp : kInterps) {
          const image::ResizePlan& plan = sc.plan;
          const std::string rung = r.name;
          CAPTURE(rung, sc.in_w, sc.in_h, plan.scaled_width, plan.scaled_height, plan.x, plan.y, plan.width, plan.height, cn,
                  image::interp_name(interp));
          std::string ran;
          const cv::Mat got = run_gpu(in, plan, interp, rung, ran);
          const double diff = cv::norm(got, run_cpu(in, plan, interp), cv::NORM_INF);
          CHECK(diff <= (interp == image::Interp::nearest ? 0 : 1));
          // naive and tables take every call; area_2x2 only 2:1, separable only the taps, gather only
          // linear and cubic taps (else the tuned order runs).
          const bool applies = rung == "area_2x2"    ? is_2x2(sc, interp)
                               : rung == "separable" ? is_taps(sc, interp)
                               : rung == "gather"    ? is_gather(sc, interp)
                                                     : true;
          CHECK(ran == (applies ? rung : tuned_rung(sc, interp)));
        }
      }
}

TEST_CASE("resize GPU: the tuned default, and the 2:1 and gather rungs' fallback on unaligned rows", "[resize][gpu]") {
  const cv::Mat in = test::random_image(202, 100, 3, 5);
  std::string ran;
  const image::ResizePlan half = whole(101, 50), third = whole(67, 33);
  CHECK(cv::norm(run_gpu(in, half, image::Interp::area, "", ran), run_cpu(in, half, image::Interp::area), cv::NORM_INF) <= 1);
  CHECK(ran == std::string("area_2x2"));
  CHECK(cv::norm(run_gpu(in, third, image::Interp::cubic, "", ran), run_cpu(in, third, image::Interp::cubic), cv::NORM_INF) <= 1);
  CHECK(ran == std::string("gather"));
  CHECK(cv::norm(run_gpu(in, third, image::Interp::linear, "", ran), run_cpu(in, third, image::Interp::linear), cv::NORM_INF) <= 1);
  CHECK(ran == std::string("gather"));
  CHECK(cv::norm(run_gpu(in, third, image::Interp::lanczos, "", ran), run_cpu(in, third, image::Interp::lanczos), cv::NORM_INF) <= 1);
  CHECK(ran == std::string("separable"));
  const image::ResizePlan fractional = whole(91, 45);
  CHECK(cv::norm(run_gpu(in, fractional, image::Interp::area, "", ran), run_cpu(in, fractional, image::Interp::area), cv::NORM_INF) <=
        1);
  CHECK(ran == std::string("tables"));
  // One pixel into the rows: the window's first input pixel is no longer 16-byte aligned.
  const cv::Mat got = run_gpu(in, half, image::Interp::area, "area_2x2", ran, 1);
  CHECK(ran == std::string("tables"));
  CHECK(cv::norm(got, run_cpu(in, half, image::Interp::area), cv::NORM_INF) <= 1);
  // One RGB pixel (3 bytes) into the rows: their starts are no longer 4-byte aligned, so gather
  // declines and the tuned order after it runs (tables), for the default and by name.
  for (const char* rung : {"", "gather"})
    for (image::Interp interp : {image::Interp::linear, image::Interp::cubic}) {
      CAPTURE(rung, image::interp_name(interp));
      const cv::Mat view_out = run_gpu(in, third, interp, rung, ran, 1);
      CHECK(ran == std::string("tables"));
      CHECK(cv::norm(view_out, run_cpu(in, third, interp), cv::NORM_INF) <= 1);
    }
  // Two RGBA pixels in (8 bytes): still aligned, gather runs on the view.
  const cv::Mat rgba = test::random_image(202, 100, 4, 6);
  const cv::Mat view_out = run_gpu(rgba, third, image::Interp::cubic, "gather", ran, 2);
  CHECK(ran == std::string("gather"));
  CHECK(cv::norm(view_out, run_cpu(rgba, third, image::Interp::cubic), cv::NORM_INF) <= 1);
}

TEST_CASE("resize GPU: the separable rung declines vertical shrinks past its buffer, the tuned order takes them", "[resize][gpu]") {
  // 16 output rows of a 1000 -> 20 shrink span about 750 source rows; 200 -> 40 (5:1) fits linear
  // and cubic (at most 128 rows a tile) but not lanczos' 8 taps at 16 rows (at most 80 staged);
  // 200 -> 49 (4.08:1, as 8192 -> 2000) fits lanczos.
  const cv::Mat tall = test::random_image(45, 1000, 3, 11), mid = test::random_image(45, 200, 4, 12);
  struct Case {
    const cv::Mat* in;
    image::ResizePlan plan;
    image::Interp interp;
    const char* expected;
  };
  const Case cases[] = {
      {&tall, whole(30, 20), image::Interp::linear, "gather"},  {&tall, whole(30, 20), image::Interp::cubic, "gather"},
      {&tall, whole(30, 20), image::Interp::lanczos, "tables"}, {&mid, whole(30, 40), image::Interp::linear, "separable"},
      {&mid, whole(30, 40), image::Interp::cubic, "separable"}, {&mid, whole(30, 40), image::Interp::lanczos, "tables"},
      {&mid, whole(30, 49), image::Interp::lanczos, "separable"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.in->rows, c.plan.height, image::interp_name(c.interp));
    std::string ran;
    const cv::Mat got = run_gpu(*c.in, c.plan, c.interp, "separable", ran);
    CHECK(ran == std::string(c.expected));
    CHECK(cv::norm(got, run_cpu(*c.in, c.plan, c.interp), cv::NORM_INF) <= 1);
  }
}

TEST_CASE("resize GPU: host threads on their own streams", "[resize][gpu]") {
  const cv::Mat in = test::random_image(333, 211, 4, 9);
  const image::ResizePlan plan = whole(120, 77);
  std::vector<cv::Mat> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::string ran;
      got[t] = run_gpu(in, plan, t % 2 ? image::Interp::lanczos : image::Interp::area, t < 2 ? "tables" : t == 2 ? "naive" : "separable", ran);
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) {
    const image::Interp interp = t % 2 ? image::Interp::lanczos : image::Interp::area;
    CAPTURE(t);
    CHECK(cv::norm(got[t], run_cpu(in, plan, interp), cv::NORM_INF) <= 1);
  }
}
