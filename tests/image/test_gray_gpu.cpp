// gray on the GPU: every rung, bit-identical to cv::cvtColor, on edge sizes and odd pitches; every
// call reports the rung that ran (the vectorized rungs give way to naive on unaligned rows).
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include <string>
#include <string_view>

#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/gray.hpp"

using namespace wk;

namespace {

cv::Mat expected_gray(const cv::Mat& src, image::ChannelOrder order) {
  cv::Mat out;
  const bool bgr = order == image::ChannelOrder::bgr;
  if (src.channels() == 1) out = src.clone();
  else if (src.channels() == 3) cv::cvtColor(src, out, bgr ? cv::COLOR_BGR2GRAY : cv::COLOR_RGB2GRAY);
  else cv::cvtColor(src, out, bgr ? cv::COLOR_BGRA2GRAY : cv::COLOR_RGBA2GRAY);
  return out;
}

// The rung a gray call runs: `rung` where it applies, else the tuning's (vectorized, naive). The
// vectorized rungs (vectorized, streaming) need 16-byte aligned rows; naive takes every pitch.
std::string expected_gray_rung(std::string_view rung, bool aligned) {
  if (rung.empty()) return aligned ? "vectorized" : "naive";
  return aligned ? std::string(rung) : "naive";
}

// Runs one rung ("" for the default) with device buffers of the given extra pitch bytes (0:
// cudaMallocPitch rows, 512-byte aligned; otherwise linear memory with pitch = row bytes + extra,
// one byte past an aligned address), and checks the name the call reports.
cv::Mat gpu_gray(const cv::Mat& src, image::ChannelOrder order, std::string_view rung, int extra_pitch) {
  std::string ran;
  const int w = src.cols, h = src.rows, cn = src.channels();
  Stream stream;
  cv::Mat got(h, w, CV_8UC1, cv::Scalar(0));
  if (extra_pitch == 0) {
    DeviceImage d_src(w, h, cn), d_dst(w, h, 1);
    // Stream-ordered upload: a plain cudaMemcpy from pageable memory may return before its DMA
    // ends, and a non-blocking stream does not wait for the legacy default stream.
    WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src.view().data, d_src.pitch_bytes(), src.data, src.step[0], std::size_t(w) * cn, h,
                                    cudaMemcpyHostToDevice, stream));
    ran = image::gray(d_src.view(), d_dst.view(), order, stream, rung);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], d_dst.view().data, d_dst.pitch_bytes(), w, h, cudaMemcpyDeviceToHost, stream));
  } else {
    const std::size_t sp = std::size_t(w) * cn + extra_pitch, dp = std::size_t(w) + extra_pitch;
    // Offset by one byte so rows are not even 2-byte aligned.
    DeviceBuffer<std::uint8_t> s(sp * h + 1), d(dp * h + 1);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(s.get() + 1, sp, src.data, src.step[0], std::size_t(w) * cn, h, cudaMemcpyHostToDevice, stream));
    ran = image::gray(ConstImageView{s.get() + 1, w, h, sp, cn}, ImageView{d.get() + 1, w, h, dp, 1}, order, stream, rung);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], d.get() + 1, dp, w, h, cudaMemcpyDeviceToHost, stream));
  }
  stream.synchronize();
  REQUIRE(ran == expected_gray_rung(rung, extra_pitch == 0));
  return got;
}

}  // namespace

TEST_CASE("GPU gray equals cv::cvtColor for every rung, size, pitch and channel count", "[gpu][gray]") {
  const int widths[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 127, 129, 4097};
  for (const std::string& rung : test::rung_names_of("gray"))
    for (int cn : {1, 3, 4})
      for (int w : widths)
        for (int extra : {0, 3})
          for (auto order : {image::ChannelOrder::bgr, image::ChannelOrder::rgb}) {
            CAPTURE(rung, cn, w, extra, order == image::ChannelOrder::bgr);
            const cv::Mat src = test::random_image(w, 5, cn, unsigned(w * 31 + cn));
            const cv::Mat got = gpu_gray(src, order, rung, extra);
            REQUIRE(cv::norm(expected_gray(src, order), got, cv::NORM_INF) == 0);
          }
}

TEST_CASE("GPU gray handles more rows than one grid dimension holds", "[gpu][gray]") {
  const cv::Mat src = test::random_image(20, 70000, 3, 5);
  for (const std::string& rung : test::rung_names_of("gray")) {
    CAPTURE(rung);
    REQUIRE(cv::norm(expected_gray(src, image::ChannelOrder::bgr), gpu_gray(src, image::ChannelOrder::bgr, rung, 0), cv::NORM_INF) == 0);
  }
}

TEST_CASE("GPU gray on a large natural-size image", "[gpu][gray]") {
  const cv::Mat src = test::random_image(3840, 2160, 3, 9);
  REQUIRE(cv::norm(expected_gray(src, image::ChannelOrder::bgr), gpu_gray(src, image::ChannelOrder::bgr, "", 0), cv::NORM_INF) == 0);
}

TEST_CASE("GPU gray: the default rung, an empty image and unknown rung names", "[gpu][gray]") {
  const cv::Mat src = test::random_image(33, 5, 3, 2);
  for (int extra : {0, 3}) {
    CAPTURE(extra);
    REQUIRE(cv::norm(expected_gray(src, image::ChannelOrder::rgb), gpu_gray(src, image::ChannelOrder::rgb, "", extra), cv::NORM_INF) == 0);
  }
  Stream stream;
  CHECK(std::string(image::gray(ConstImageView{nullptr, 0, 0, 0, 3}, ImageView{nullptr, 0, 0, 0, 1}, image::ChannelOrder::bgr, stream)) == "");
  for (const char* bad : {"fastest", "shared_lut", "Naive"})
    test::check_unknown_rung("gray", bad, [&] { gpu_gray(src, image::ChannelOrder::bgr, bad, 0); });
}
