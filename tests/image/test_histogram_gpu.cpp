// histogram on the GPU: every rung equals the CPU path (cv::calcHist) exactly, on edge sizes,
// odd pitches, flat and natural-looking images, with and without a workspace; every call reports
// the rung that ran (the vectorized rungs give way on unaligned rows).
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include <numeric>
#include <string>
#include <string_view>

#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/histogram.hpp"

using namespace wk;

namespace {

// A smooth gradient with shapes and mild noise: long runs of near-equal values, like a photo.
cv::Mat natural_image(int w, int h, int cn, unsigned seed) {
  cv::Mat img(h, w, CV_8UC(cn));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w * cn; ++x) img.ptr<std::uint8_t>(y)[x] = std::uint8_t((x / cn) * 200 / std::max(1, w) + y * 50 / std::max(1, h) + (x % cn) * 10);
  cv::circle(img, {w / 3, h / 2}, std::max(1, std::min(w, h) / 4), cv::Scalar::all(230), cv::FILLED);
  cv::Mat noise(h, w, CV_8UC(cn));
  cv::RNG(seed).fill(noise, cv::RNG::UNIFORM, cv::Scalar::all(0), cv::Scalar::all(3));
  return img + noise;
}

// The rung a histogram call runs: `rung` where it applies, else the tuning's (pipelined, then
// shared_privatized). The vectorized rungs (all but global_atomics and shared_privatized) need
// 16-byte aligned rows.
std::string expected_histogram_rung(std::string_view rung, bool aligned) {
  if (rung.empty()) return aligned ? "pipelined" : "shared_privatized";
  if (aligned || rung == "global_atomics" || rung == "shared_privatized") return std::string(rung);
  return "shared_privatized";
}

// Runs one rung ("" for the default) `calls` times and checks the name each call reports.
// extra_pitch 0: cudaMallocPitch rows (aligned); otherwise linear memory with pitch = row bytes +
// extra_pitch, offset by one byte (unaligned rows).
std::vector<std::uint32_t> gpu_histogram(const cv::Mat& src, std::string_view rung, int extra_pitch,
                                         image::HistogramWorkspace* ws, int calls = 1) {
  const int w = src.cols, h = src.rows, cn = src.channels();
  Stream stream;
  DeviceBuffer<std::uint32_t> d_hist(std::size_t(cn) * 256);
  std::vector<std::uint32_t> got(std::size_t(cn) * 256, 0);
  DeviceImage d_img;
  DeviceBuffer<std::uint8_t> d_lin;
  ConstImageView v;
  if (extra_pitch == 0) {
    d_img.reset(w, h, cn);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(d_img.view().data, d_img.pitch_bytes(), src.data, src.step[0], std::size_t(w) * cn, h,
                                    cudaMemcpyHostToDevice, stream));
    v = d_img.view();
  } else {
    const std::size_t pitch = std::size_t(w) * cn + extra_pitch;
    d_lin = DeviceBuffer<std::uint8_t>(pitch * h + 1);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(d_lin.get() + 1, pitch, src.data, src.step[0], std::size_t(w) * cn, h, cudaMemcpyHostToDevice, stream));
    v = ConstImageView{d_lin.get() + 1, w, h, pitch, cn};
  }
  // Garbage in the output first: the call must overwrite every count.
  WK_CUDA_CHECK(cudaMemsetAsync(d_hist.get(), 0xAB, d_hist.bytes(), stream));
  const std::string expected = expected_histogram_rung(rung, extra_pitch == 0);
  for (int i = 0; i < calls; ++i) {
    const std::string ran = image::histogram(v, d_hist.get(), stream, ws, rung);
    REQUIRE(ran == expected);
  }
  WK_CUDA_CHECK(cudaMemcpyAsync(got.data(), d_hist.get(), d_hist.bytes(), cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  return got;
}

std::vector<std::uint32_t> cpu_histogram(const cv::Mat& src) {
  std::vector<std::uint32_t> h(std::size_t(src.channels()) * 256);
  image::histogram_cpu(test::const_view(src), h);
  return h;
}

}  // namespace

TEST_CASE("GPU histogram equals cv::calcHist for every rung, size, pitch and channel count", "[gpu][histogram]") {
  image::HistogramWorkspace ws;
  const int widths[] = {1, 2, 3, 15, 16, 17, 31, 33, 127, 129, 4097};
  for (const std::string& rung : test::rung_names_of("histogram"))
    for (int cn : {1, 3, 4})
      for (int w : widths)
        for (int extra : {0, 3}) {
          const bool with_ws = (w + extra + cn) % 2 == 0;
          {
            CAPTURE(rung, cn, w, extra, with_ws);
            const cv::Mat src = (w % 2) ? test::random_image(w, 5, cn, unsigned(w * 7 + cn)) : natural_image(w, 5, cn, unsigned(w));
            REQUIRE(gpu_histogram(src, rung, extra, with_ws ? &ws : nullptr) == cpu_histogram(src));
          }
        }
}

TEST_CASE("GPU histogram: flat images, natural images and many blocks, workspace reused", "[gpu][histogram]") {
  image::HistogramWorkspace ws;
  const cv::Mat flat(777, 1500, CV_8UC1, cv::Scalar(200));
  const cv::Mat flat_bgra(300, 513, CV_8UC4, cv::Scalar(1, 2, 3, 255));
  const cv::Mat photo = natural_image(1921, 1081, 1, 3);
  const cv::Mat photo_bgr = natural_image(641, 479, 3, 4);
  for (const std::string& rung : test::rung_names_of("histogram"))
    for (const cv::Mat* m : {&flat, &flat_bgra, &photo, &photo_bgr}) {
      CAPTURE(rung, m->cols, m->channels());
      // Three calls in a row through one workspace: each must leave it clean for the next.
      REQUIRE(gpu_histogram(*m, rung, 0, &ws, 3) == cpu_histogram(*m));
    }
}

TEST_CASE("GPU histogram of an empty image is all zeros", "[gpu][histogram]") {
  DeviceBuffer<std::uint32_t> d_hist(256);
  Stream stream;
  WK_CUDA_CHECK(cudaMemsetAsync(d_hist.get(), 0xFF, d_hist.bytes(), stream));
  CHECK(std::string(image::histogram(ConstImageView{nullptr, 0, 0, 0, 1}, d_hist.get(), stream)) == "");
  std::vector<std::uint32_t> got(256, 1);
  WK_CUDA_CHECK(cudaMemcpyAsync(got.data(), d_hist.get(), d_hist.bytes(), cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  CHECK(std::accumulate(got.begin(), got.end(), 0ull) == 0);
}

TEST_CASE("GPU histogram: the default rung, with and without a workspace, unknown rung names", "[gpu][histogram]") {
  image::HistogramWorkspace ws;
  const cv::Mat gray = natural_image(1921, 1081, 1, 5), bgr = test::random_image(129, 33, 3, 6);
  for (const cv::Mat* m : {&gray, &bgr})
    for (int extra : {0, 3})
      for (image::HistogramWorkspace* w : {&ws, static_cast<image::HistogramWorkspace*>(nullptr)}) {
        CAPTURE(m->channels(), extra, w != nullptr);
        REQUIRE(gpu_histogram(*m, "", extra, w, 2) == cpu_histogram(*m));
      }
  for (const char* bad : {"fastest", "vectorized", "Pipelined"})
    test::check_unknown_rung("histogram", bad, [&] { gpu_histogram(bgr, bad, 0, &ws); });
  // The workspace is still clean for the next call after the refused ones.
  REQUIRE(gpu_histogram(bgr, "", 0, &ws) == cpu_histogram(bgr));
}
