// Resize on the GPU: every rung against the CPU path (cv::resize) for every interpolation, 1, 3
// and 4 channels, odd sizes, 1-pixel images, extreme ratios, integer shrinks and fill windows:
// nearest equal, the others within 1 level; the tuned default; the 2:1 rung's fallback on
// unaligned rows; several host threads on their own streams.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "image/rungs.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/resize.hpp"

using namespace wk;

namespace {

struct SizeCase {
  int in_w, in_h;
  image::ResizePlan plan;
};

image::ResizePlan whole(int w, int h) { return {w, h, 0, 0, w, h}; }

// The sizes of tests/image/test_resize.cpp, and a 2:1 fill window.
std::vector<SizeCase> size_cases() {
  std::vector<SizeCase> cases = {
      {37, 23, whole(11, 7)},  {37, 23, whole(101, 67)}, {1, 1, whole(5, 3)},    {7, 1, whole(1, 1)},
      {1000, 3, whole(2, 1)},  {2, 2, whole(500, 400)},  {64, 48, whole(32, 24)}, {50, 30, whole(25, 15)},
      {99, 60, whole(33, 20)}, {96, 64, whole(32, 32)},  {40, 30, whole(20, 45)}, {30, 40, whole(45, 20)},
      {17, 9, whole(17, 9)},   {53, 41, whole(24, 19)},
  };
  const image::ResizeSize box = image::parse_resize_size("30x30");
  for (const auto& [w, h] : {std::pair{61, 37}, std::pair{37, 61}, std::pair{100, 20}})
    cases.push_back({w, h, image::plan_resize(box, image::FitMode::fill, w, h)});
  cases.push_back({256, 128, {128, 64, 32, 0, 64, 64}});  // 2:1 window, 16-byte aligned input corner
  return cases;
}

constexpr image::Interp kInterps[] = {image::Interp::nearest, image::Interp::linear, image::Interp::cubic, image::Interp::area,
                                      image::Interp::lanczos};

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
          // naive and tables take every call; area_2x2 only 2:1 (else the tuned order runs).
          if (rung != "area_2x2" || is_2x2(sc, interp)) CHECK(ran == rung);
          else CHECK(ran == std::string("tables"));
        }
      }
}

TEST_CASE("resize GPU: the tuned default, and the 2:1 rung's fallback on unaligned rows", "[resize][gpu]") {
  const cv::Mat in = test::random_image(202, 100, 3, 5);
  std::string ran;
  const image::ResizePlan half = whole(101, 50), third = whole(67, 33);
  CHECK(cv::norm(run_gpu(in, half, image::Interp::area, "", ran), run_cpu(in, half, image::Interp::area), cv::NORM_INF) <= 1);
  CHECK(ran == std::string("area_2x2"));
  CHECK(cv::norm(run_gpu(in, third, image::Interp::cubic, "", ran), run_cpu(in, third, image::Interp::cubic), cv::NORM_INF) <= 1);
  CHECK(ran == std::string("tables"));
  // One pixel into the rows: the window's first input pixel is no longer 16-byte aligned.
  const cv::Mat got = run_gpu(in, half, image::Interp::area, "area_2x2", ran, 1);
  CHECK(ran == std::string("tables"));
  CHECK(cv::norm(got, run_cpu(in, half, image::Interp::area), cv::NORM_INF) <= 1);
}

TEST_CASE("resize GPU: host threads on their own streams", "[resize][gpu]") {
  const cv::Mat in = test::random_image(333, 211, 4, 9);
  const image::ResizePlan plan = whole(120, 77);
  std::vector<cv::Mat> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::string ran;
      got[t] = run_gpu(in, plan, t % 2 ? image::Interp::lanczos : image::Interp::area, t < 2 ? "tables" : "naive", ran);
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) {
    const image::Interp interp = t % 2 ? image::Interp::lanczos : image::Interp::area;
    CAPTURE(t);
    CHECK(cv::norm(got[t], run_cpu(in, plan, interp), cv::NORM_INF) <= 1);
  }
}
