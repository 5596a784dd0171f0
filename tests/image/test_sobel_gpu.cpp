// sobel on the GPU: s16 derivatives, |dx|, |dy| and the magnitude equal the CPU path exactly, on
// every rung, border and channel count; the rolling kernel across strips and row segments; the
// vectorized_3x3 kernel across its chunks, lanes, warps and blocks, on aligned views (its fast
// path), odd pitches (the fallback) and ROIs inside a larger image.
#include <catch2/catch.hpp>

#include "filter_test_util.hpp"
#include "wk/image/sobel.hpp"

using namespace wk;
using image::SobelDerivative;
using image::SobelOutput;

namespace {
cv::Mat cpu_s16(const cv::Mat& src, SobelDerivative d, const image::Border& b) {
  cv::Mat out(src.size(), CV_16SC(src.channels()));
  image::sobel_s16_cpu(test::const_view(src), test::view_s16(out), d, b);
  return out;
}
cv::Mat gpu_s16(const cv::Mat& src, SobelDerivative d, const image::Border& b, image::ConvVariant v, bool aligned) {
  return test::gpu_run<std::uint8_t, std::int16_t>(src, CV_16SC(src.channels()), aligned,
                                                   [&](auto in, auto out, cudaStream_t s) { image::sobel_s16(in, out, d, b, s, v); });
}
cv::Mat cpu_u8(const cv::Mat& src, SobelOutput o, const image::Border& b) {
  cv::Mat out(src.size(), src.type());
  image::sobel_cpu(test::const_view(src), test::view(out), o, b);
  return out;
}
cv::Mat gpu_u8(const cv::Mat& src, SobelOutput o, const image::Border& b, image::ConvVariant v, bool aligned) {
  return test::gpu_run<std::uint8_t, std::uint8_t>(src, src.type(), aligned,
                                                   [&](auto in, auto out, cudaStream_t s) { image::sobel(in, out, o, b, s, v); });
}
}  // namespace

TEST_CASE("GPU sobel: every rung, border, channel count and output exact", "[gpu][sobel]") {
  int n = 0;
  for (const auto& v : image::conv_variants())
    for (const auto& b : test::all_borders()) {
      const int cn = (n % 3 == 0) ? 1 : (n % 3 == 1 ? 3 : 4);
      ++n;
      CAPTURE(v.name, test::name_of(b), cn);
      const cv::Mat src = test::random_image(77, 21, cn, unsigned(cn + int(b.mode)));
      for (SobelDerivative d : {SobelDerivative::dx, SobelDerivative::dy})
        REQUIRE(test::max_abs_diff(gpu_s16(src, d, b, v.variant, true), cpu_s16(src, d, b)) == 0);
      for (SobelOutput o : {SobelOutput::magnitude, SobelOutput::dx, SobelOutput::dy})
        REQUIRE(test::max_abs_diff(gpu_u8(src, o, b, v.variant, cn != 4), cpu_u8(src, o, b)) == 0);
    }
}

TEST_CASE("GPU sobel fast kernel: edge widths, strips and segments, odd pitches", "[gpu][sobel]") {
  for (int w : {3, 4, 7, 8, 9, 17, 127, 129, 255, 257, 1023, 1025, 4097})
    for (bool aligned : {true, false}) {
      CAPTURE(w, aligned);
      const cv::Mat src = test::random_image(w, 6, 1, unsigned(w));
      REQUIRE(test::max_abs_diff(gpu_s16(src, SobelDerivative::dx, {}, image::ConvVariant::separable, aligned),
                                 cpu_s16(src, SobelDerivative::dx, {})) == 0);
      REQUIRE(test::max_abs_diff(gpu_u8(src, SobelOutput::magnitude, {image::BorderMode::wrap, 0}, image::ConvVariant::separable, aligned),
                                 cpu_u8(src, SobelOutput::magnitude, {image::BorderMode::wrap, 0})) == 0);
    }
  const cv::Mat big = test::random_image(2100, 700, 1, 4);
  for (const auto& b : test::all_borders()) {
    CAPTURE(test::name_of(b));
    REQUIRE(test::max_abs_diff(gpu_s16(big, SobelDerivative::dy, b, image::ConvVariant::separable, true), cpu_s16(big, SobelDerivative::dy, b)) == 0);
    REQUIRE(test::max_abs_diff(gpu_u8(big, SobelOutput::magnitude, b, image::ConvVariant::separable, true),
                               cpu_u8(big, SobelOutput::magnitude, b)) == 0);
  }
}

TEST_CASE("GPU sobel on float images", "[gpu][sobel]") {
  const cv::Mat f = test::random_mat(40, 25, CV_32FC3, 5);
  for (SobelDerivative d : {SobelDerivative::dx, SobelDerivative::dy}) {
    cv::Mat expected(f.size(), f.type());
    image::sobel_cpu(test::cview_f32(f), test::view_f32(expected), d, {});
    const cv::Mat got = test::gpu_run<float, float>(f, f.type(), false, [&](auto in, auto out, cudaStream_t s) {
      image::sobel(in, out, d, {}, s);
    });
    CHECK(test::max_abs_diff(got, expected) < 1e-3);
  }
}

namespace {
// Every 8-bit output of the vectorized_3x3 rung against the CPU path on one image.
void check_vectorized_3x3(const cv::Mat& src, const image::Border& b, bool aligned) {
  for (SobelDerivative d : {SobelDerivative::dx, SobelDerivative::dy})
    REQUIRE(test::max_abs_diff(gpu_s16(src, d, b, image::ConvVariant::vectorized_3x3, aligned), cpu_s16(src, d, b)) == 0);
  for (SobelOutput o : {SobelOutput::magnitude, SobelOutput::dx, SobelOutput::dy})
    REQUIRE(test::max_abs_diff(gpu_u8(src, o, b, image::ConvVariant::vectorized_3x3, aligned), cpu_u8(src, o, b)) == 0);
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
      image::sobel_s16(in_roi, out_roi, SobelDerivative::dx, b, stream.get(), image::ConvVariant::vectorized_3x3);
      const cv::Mat got = out.download();
      REQUIRE(test::max_abs_diff(got(roi), expected) == 0);
      cv::Mat untouched = got.clone();
      untouched(roi).setTo(cv::Scalar::all(static_cast<std::int16_t>(0xCDCD)));
      REQUIRE(cv::countNonZero(untouched != static_cast<std::int16_t>(0xCDCD)) == 0);
    }
}
