// sobel on the GPU: s16 derivatives, |dx|, |dy| and the magnitude equal the CPU path exactly, on
// every rung, border and channel count; the rolling kernel across strips and row segments; the
// vectorized_3x3 kernel across its chunks, lanes, warps and blocks, on aligned views (its fast
// path), odd pitches (the fallback) and ROIs inside a larger image. Every call reports the rung
// that ran: the one asked for where it applies, else the tuning's choice.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "filter_test_util.hpp"
#include "rung_test_util.hpp"
#include "wk/image/sobel.hpp"

using namespace wk;
using image::SobelDerivative;
using image::SobelOutput;

namespace {
// The rung a sobel call runs: `rung` where it applies, else the first of the sm_90 tuning's order
// (sobel.cpp: vectorized_3x3, rolling, separable) that does. rolling and vectorized_3x3 take 8-bit
// gray whose rows are aligned (test::DeviceMat aligned: 8 bytes in, 16 bytes out for s16);
// tensor_core takes 8-bit images; the generic rungs and separable every call.
std::string expected_sobel_rung(std::string_view rung, bool u8, int cn, bool aligned) {
  const bool gray8 = u8 && cn == 1 && aligned;
  auto applies = [&](std::string_view r) {
    if (r == "rolling" || r == "vectorized_3x3") return gray8;
    if (r == "tensor_core") return u8;
    return true;
  };
  if (!rung.empty() && applies(rung)) return std::string(rung);
  for (const char* r : {"vectorized_3x3", "rolling", "separable"})
    if (applies(r)) return r;
  return {};
}

cv::Mat cpu_s16(const cv::Mat& src, SobelDerivative d, const image::Border& b) {
  cv::Mat out(src.size(), CV_16SC(src.channels()));
  image::sobel_s16_cpu(test::const_view(src), test::view_s16(out), d, b);
  return out;
}
cv::Mat gpu_s16(const cv::Mat& src, SobelDerivative d, const image::Border& b, std::string_view rung, bool aligned) {
  std::string ran;
  const cv::Mat out = test::gpu_run<std::uint8_t, std::int16_t>(
      src, CV_16SC(src.channels()), aligned, [&](auto in, auto o, cudaStream_t s) { ran = image::sobel_s16(in, o, d, b, s, rung); });
  REQUIRE(ran == expected_sobel_rung(rung, true, src.channels(), aligned));
  return out;
}
cv::Mat cpu_u8(const cv::Mat& src, SobelOutput o, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  image::sobel_cpu(test::const_view(src), test::view(out), o, b);
  return out;
}
cv::Mat gpu_u8(const cv::Mat& src, SobelOutput o, const image::Border& b, std::string_view rung, bool aligned) {
  std::string ran;
  const cv::Mat out = test::gpu_run<std::uint8_t, std::uint8_t>(
      src, src.type(), aligned, [&](auto in, auto d, cudaStream_t s) { ran = image::sobel(in, d, o, b, s, rung); });
  REQUIRE(ran == expected_sobel_rung(rung, true, src.channels(), aligned));
  return out;
}
}  // namespace

TEST_CASE("GPU sobel: every rung, border, channel count and output exact", "[gpu][sobel]") {
  int n = 0;
  for (const std::string& rung : test::rung_names_of("sobel"))
    for (const auto& b : test::all_borders()) {
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      ++n;
      CAPTURE(rung, test::name_of(b), cn);
      const cv::Mat src = test::random_image(77, 21, cn, unsigned(cn + int(b.mode)));
      for (SobelDerivative d : {SobelDerivative::dx, SobelDerivative::dy})
        REQUIRE(test::max_abs_diff(gpu_s16(src, d, b, rung, true), cpu_s16(src, d, b)) == 0);
      for (SobelOutput o : {SobelOutput::magnitude, SobelOutput::dx, SobelOutput::dy})
        REQUIRE(test::max_abs_diff(gpu_u8(src, o, b, rung, cn != 4), cpu_u8(src, o, b)) == 0);
    }
  // The gray rungs stand aside for colour and unaligned rows: the separable passes run.
  const cv::Mat colour = test::random_image(77, 21, 3, 1), gray = test::random_image(77, 21, 1, 1);
  for (const char* rung : {"rolling", "vectorized_3x3"}) {
    CAPTURE(rung);
    std::string ran;
    test::gpu_run<std::uint8_t, std::int16_t>(colour, CV_16SC3, true, [&](auto in, auto o, cudaStream_t s) {
      ran = image::sobel_s16(in, o, SobelDerivative::dx, {}, s, rung);
    });
    CHECK(ran == "separable");
    test::gpu_run<std::uint8_t, std::uint8_t>(gray, CV_8UC1, false, [&](auto in, auto o, cudaStream_t s) {
      ran = image::sobel(in, o, SobelOutput::magnitude, {}, s, rung);
    });
    CHECK(ran == "separable");
    test::gpu_run<std::uint8_t, std::uint8_t>(gray, CV_8UC1, true, [&](auto in, auto o, cudaStream_t s) {
      ran = image::sobel(in, o, SobelOutput::magnitude, {}, s, rung);
    });
    CHECK(ran == rung);
  }
  for (const char* bad : {"vectorized_5x5", "vectorized_wide", "fastest"}) {
    test::check_unknown_rung("sobel", bad, [&] { gpu_s16(gray, SobelDerivative::dx, {}, bad, true); });
    test::check_unknown_rung("sobel", bad, [&] { gpu_u8(gray, SobelOutput::dx, {}, bad, true); });
  }
}

TEST_CASE("GPU sobel fast kernel: edge widths, strips and segments, odd pitches", "[gpu][sobel]") {
  // rolling (8-bit gray, aligned rows; other calls give way to the tuning's choice) and the
  // generic separable passes, which take every call.
  for (const char* rung : {"rolling", "separable"}) {
    for (int w : {3, 4, 7, 8, 9, 17, 127, 129, 255, 257, 1023, 1025, 4097})
      for (bool aligned : {true, false}) {
        CAPTURE(rung, w, aligned);
        const cv::Mat src = test::random_image(w, 6, 1, unsigned(w));
        REQUIRE(test::max_abs_diff(gpu_s16(src, SobelDerivative::dx, {}, rung, aligned), cpu_s16(src, SobelDerivative::dx, {})) == 0);
        REQUIRE(test::max_abs_diff(gpu_u8(src, SobelOutput::magnitude, {image::BorderMode::wrap, 0}, rung, aligned),
                                   cpu_u8(src, SobelOutput::magnitude, {image::BorderMode::wrap, 0})) == 0);
      }
    const cv::Mat big = test::random_image(2100, 700, 1, 4);
    for (const auto& b : test::all_borders()) {
      CAPTURE(rung, test::name_of(b));
      REQUIRE(test::max_abs_diff(gpu_s16(big, SobelDerivative::dy, b, rung, true), cpu_s16(big, SobelDerivative::dy, b)) == 0);
      REQUIRE(test::max_abs_diff(gpu_u8(big, SobelOutput::magnitude, b, rung, true), cpu_u8(big, SobelOutput::magnitude, b)) == 0);
    }
  }
}

TEST_CASE("GPU sobel on float images", "[gpu][sobel]") {
  const cv::Mat f = test::random_mat(40, 25, CV_32FC3, 5);
  for (SobelDerivative d : {SobelDerivative::dx, SobelDerivative::dy}) {
    cv::Mat expected(f.size(), f.type());
    image::sobel_cpu(test::cview_f32(f), test::view_f32(expected), d, {});
    std::string ran;
    const cv::Mat got = test::gpu_run<float, float>(f, f.type(), false, [&](auto in, auto out, cudaStream_t s) {
      ran = image::sobel(in, out, d, {}, s);
    });
    CHECK(test::max_abs_diff(got, expected) < 1e-3);
    CHECK(ran == "separable");
    // Every rung: the 8-bit ones (tensor_core, rolling, vectorized_3x3) give way to separable.
    for (const std::string& rung : test::rung_names_of("sobel")) {
      CAPTURE(rung);
      const cv::Mat each = test::gpu_run<float, float>(f, f.type(), true, [&](auto in, auto out, cudaStream_t s) {
        ran = image::sobel(in, out, d, {}, s, rung);
      });
      CHECK(test::max_abs_diff(each, expected) < 1e-3);
      CHECK(ran == expected_sobel_rung(rung, false, f.channels(), true));
    }
  }
}

namespace {
// Every 8-bit output of the vectorized_3x3 rung against the CPU path on one image.
void check_vectorized_3x3(const cv::Mat& src, const image::Border& b, bool aligned) {
  for (SobelDerivative d : {SobelDerivative::dx, SobelDerivative::dy})
    REQUIRE(test::max_abs_diff(gpu_s16(src, d, b, "vectorized_3x3", aligned), cpu_s16(src, d, b)) == 0);
  for (SobelOutput o : {SobelOutput::magnitude, SobelOutput::dx, SobelOutput::dy})
    REQUIRE(test::max_abs_diff(gpu_u8(src, o, b, "vectorized_3x3", aligned), cpu_u8(src, o, b)) == 0);
}
}  // namespace

TEST_CASE("GPU sobel vectorized_3x3: edge widths and heights, every border, odd pitches", "[gpu][sobel]") {
  test::for_each_stencil3x3_case(7, 11, check_vectorized_3x3);
  // Saturated extremes: |dx|, |dy| up to 1020, magnitude clamped at 255.
  cv::Mat stripes(40, 600, CV_8UC1);
  for (int y = 0; y < stripes.rows; ++y)
    for (int x = 0; x < stripes.cols; ++x) stripes.at<std::uint8_t>(y, x) = ((x / 3 + y / 2) % 2) ? 255 : 0;
  check_vectorized_3x3(stripes, {image::BorderMode::constant, 255}, true);
  check_vectorized_3x3(stripes, {image::BorderMode::wrap, 0}, true);
}

TEST_CASE("GPU sobel vectorized_3x3 on ROIs: borders at the view's edges, nothing written outside", "[gpu][sobel]") {
  // A view inside a larger aligned image: offset 8 bytes (8-byte aligned input rows, 16-byte
  // aligned s16 output rows: the fast path) or 4 (unaligned: the fallback). The border applies at
  // the view's edges, never the parent's pixels, and the output's parent keeps its fill outside.
  const cv::Mat parent = test::random_image(700, 50, 1, 21);
  for (int x_off : {8, 4})
    for (const auto& b : test::all_borders()) {
      CAPTURE(x_off, test::name_of(b));
      const cv::Rect roi(x_off, 3, 661, 41);
      const cv::Mat expected = cpu_s16(parent(roi).clone(), SobelDerivative::dx, b);
      Stream stream;
      test::DeviceMat in(parent, true, stream.get());
      in.upload(parent);
      test::DeviceMat out(cv::Mat(parent.rows, parent.cols, CV_16SC1), true, stream.get());
      const auto iv = in.view<const std::uint8_t>();
      const auto ov = out.view<std::int16_t>();
      const ConstImageView in_roi{iv.data + roi.y * iv.pitch_bytes + roi.x, roi.width, roi.height, iv.pitch_bytes, 1};
      const image::ImageViewS16 out_roi{reinterpret_cast<std::int16_t*>(reinterpret_cast<std::uint8_t*>(ov.data) + roi.y * ov.pitch_bytes) + roi.x,
                                        roi.width, roi.height, ov.pitch_bytes, 1};
      const std::string ran = image::sobel_s16(in_roi, out_roi, SobelDerivative::dx, b, stream.get(), "vectorized_3x3");
      CHECK(ran == (x_off == 8 ? "vectorized_3x3" : "separable"));
      const cv::Mat got = out.download();
      REQUIRE(test::max_abs_diff(got(roi), expected) == 0);
      cv::Mat untouched = got.clone();
      untouched(roi).setTo(cv::Scalar::all(static_cast<std::int16_t>(0xCDCD)));
      REQUIRE(cv::countNonZero(untouched != static_cast<std::int16_t>(0xCDCD)) == 0);
    }
}
