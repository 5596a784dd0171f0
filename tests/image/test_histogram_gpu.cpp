// histogram on the GPU: every rung equals the CPU path (cv::calcHist) exactly, on edge sizes,
// odd pitches, flat and natural-looking images, with and without a workspace.
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include <numeric>

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

// Runs one rung. extra_pitch 0: cudaMallocPitch rows (aligned); otherwise linear memory with
// pitch = row bytes + extra_pitch, offset by one byte (unaligned rows).
std::vector<std::uint32_t> gpu_histogram(const cv::Mat& src, image::HistogramVariant variant, int extra_pitch,
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
  for (int i = 0; i < calls; ++i) image::histogram(v, d_hist.get(), stream, variant, ws);
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
  for (const auto& v : image::histogram_variants())
    for (int cn : {1, 3, 4})
      for (int w : widths)
        for (int extra : {0, 3}) {
          const bool with_ws = (w + extra + cn) % 2 == 0;
          {
            CAPTURE(v.name, cn, w, extra, with_ws);
            const cv::Mat src = (w % 2) ? test::random_image(w, 5, cn, unsigned(w * 7 + cn)) : natural_image(w, 5, cn, unsigned(w));
            REQUIRE(gpu_histogram(src, v.variant, extra, with_ws ? &ws : nullptr) == cpu_histogram(src));
          }
        }
}

TEST_CASE("GPU histogram: flat images, natural images and many blocks, workspace reused", "[gpu][histogram]") {
  image::HistogramWorkspace ws;
  const cv::Mat flat(777, 1500, CV_8UC1, cv::Scalar(200));
  const cv::Mat flat_bgra(300, 513, CV_8UC4, cv::Scalar(1, 2, 3, 255));
  const cv::Mat photo = natural_image(1921, 1081, 1, 3);
  const cv::Mat photo_bgr = natural_image(641, 479, 3, 4);
  for (const auto& v : image::histogram_variants())
    for (const cv::Mat* m : {&flat, &flat_bgra, &photo, &photo_bgr}) {
      CAPTURE(v.name, m->cols, m->channels());
      // Three calls in a row through one workspace: each must leave it clean for the next.
      REQUIRE(gpu_histogram(*m, v.variant, 0, &ws, 3) == cpu_histogram(*m));
    }
}

TEST_CASE("GPU histogram of an empty image is all zeros", "[gpu][histogram]") {
  DeviceBuffer<std::uint32_t> d_hist(256);
  Stream stream;
  WK_CUDA_CHECK(cudaMemsetAsync(d_hist.get(), 0xFF, d_hist.bytes(), stream));
  image::histogram(ConstImageView{nullptr, 0, 0, 0, 1}, d_hist.get(), stream);
  std::vector<std::uint32_t> got(256, 1);
  WK_CUDA_CHECK(cudaMemcpyAsync(got.data(), d_hist.get(), d_hist.bytes(), cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  CHECK(std::accumulate(got.begin(), got.end(), 0ull) == 0);
}
