// equalize on the GPU: every rung equals the CPU path (cv::equalizeHist, through YCrCb for colour)
// exactly, on edge sizes, odd pitches, degenerate histograms and in place; every call reports the
// rung that ran (vectorized gives way on unaligned gray rows).
#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include <string>
#include <string_view>

#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/equalize.hpp"

using namespace wk;

namespace {

cv::Mat test_image(int w, int h, int cn, int kind, unsigned seed) {
  cv::Mat m = test::random_image(w, h, cn, seed);
  switch (kind) {
    case 1: m = m / 64 * 64 + cv::Scalar::all(3); break;
    case 2: m.setTo(cv::Scalar::all(77)); m.at<std::uint8_t>(0, 0) = 200; break;
    case 3: m.setTo(cv::Scalar::all(123)); break;
    case 4:
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w * cn; ++x) m.ptr<std::uint8_t>(y)[x] = std::uint8_t(100 + (x / cn + y) % 40);
      break;
    default: break;
  }
  return m;
}

cv::Mat cpu_equalize(const cv::Mat& src) {
  cv::Mat out(src.rows, src.cols, src.type());
  image::equalize_cpu(test::const_view(src), test::view(out));
  return out;
}

// The rung an equalize call runs: `rung` where it applies, else the tuning's (vectorized, then
// shared_lut). vectorized needs 16-byte aligned rows on gray images; colour takes every rung.
std::string expected_equalize_rung(std::string_view rung, int cn, bool aligned) {
  const bool vectorized_applies = cn != 1 || aligned;
  if (rung.empty()) return vectorized_applies ? "vectorized" : "shared_lut";
  if (rung == "vectorized" && !vectorized_applies) return "shared_lut";
  return std::string(rung);
}

// Runs one rung ("" for the default) and checks the name the call reports. extra_pitch 0:
// cudaMallocPitch buffers; otherwise unaligned linear buffers with padded rows.
cv::Mat gpu_equalize(const cv::Mat& src, std::string_view rung, int extra_pitch, image::EqualizeWorkspace* ws,
                     bool in_place = false) {
  const int w = src.cols, h = src.rows, cn = src.channels();
  const std::size_t row = std::size_t(w) * cn;
  Stream stream;
  cv::Mat got(h, w, src.type(), cv::Scalar::all(0));
  DeviceImage a, b;
  DeviceBuffer<std::uint8_t> la, lb;
  ImageView in, out;
  if (extra_pitch == 0) {
    a.reset(w, h, cn);
    b.reset(w, h, cn);
    in = a.view();
    out = in_place ? in : b.view();
  } else {
    const std::size_t pitch = row + extra_pitch;
    la = DeviceBuffer<std::uint8_t>(pitch * h + 1);
    lb = DeviceBuffer<std::uint8_t>(pitch * h + 1);
    in = ImageView{la.get() + 1, w, h, pitch, cn};
    out = in_place ? in : ImageView{lb.get() + 1, w, h, pitch, cn};
  }
  WK_CUDA_CHECK(cudaMemcpy2DAsync(in.data, in.pitch_bytes, src.data, src.step[0], row, h, cudaMemcpyHostToDevice, stream));
  const std::string ran = image::equalize(in, out, stream, ws, rung);
  REQUIRE(ran == expected_equalize_rung(rung, cn, extra_pitch == 0));
  WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], out.data, out.pitch_bytes, row, h, cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  return got;
}

}  // namespace

TEST_CASE("GPU equalize equals the CPU path for every rung, size, pitch and channel count", "[gpu][equalize]") {
  image::EqualizeWorkspace ws;
  for (const std::string& rung : test::rung_names_of("equalize"))
    for (int cn : {1, 3, 4})
      for (int w : {1, 2, 3, 16, 17, 127, 129, 4097})
        for (int kind : {0, 1, 2, 3, 4}) {
          const int extra = (w + kind + cn) % 2 ? 3 : 0;
          {
            CAPTURE(rung, cn, w, extra, kind);
            const cv::Mat src = test_image(w, 6, cn, kind, unsigned(w * 5 + cn + kind * 1000));
            const bool with_ws = (w + kind) % 2 == 0;
            REQUIRE(cv::norm(cpu_equalize(src), gpu_equalize(src, rung, extra, with_ws ? &ws : nullptr), cv::NORM_INF) == 0);
          }
        }
}

TEST_CASE("GPU equalize in place and on a photo-sized image", "[gpu][equalize]") {
  image::EqualizeWorkspace ws;
  for (int cn : {1, 3}) {
    CAPTURE(cn);
    const cv::Mat src = test_image(1921, 1081, cn, 4, 7);
    CHECK(cv::norm(cpu_equalize(src), gpu_equalize(src, "", 0, &ws, true), cv::NORM_INF) == 0);
    CHECK(cv::norm(cpu_equalize(src), gpu_equalize(src, "", 0, nullptr), cv::NORM_INF) == 0);
  }
}

TEST_CASE("GPU equalize: the default rung on unaligned gray rows, unknown rung names", "[gpu][equalize]") {
  image::EqualizeWorkspace ws;
  for (int cn : {1, 3}) {
    CAPTURE(cn);
    const cv::Mat src = test_image(129, 17, cn, 0, 3);
    CHECK(cv::norm(cpu_equalize(src), gpu_equalize(src, "", 3, &ws), cv::NORM_INF) == 0);
    CHECK(cv::norm(cpu_equalize(src), gpu_equalize(src, "", 3, nullptr, true), cv::NORM_INF) == 0);
  }
  const cv::Mat src = test_image(64, 8, 1, 0, 4);
  for (const char* bad : {"turbo", "pipelined", "Vectorized"})
    test::check_unknown_rung("equalize", bad, [&] { gpu_equalize(src, bad, 0, &ws); });
}
