// wk-bench sobel: 3x3 dx u8 -> s16 (cv::Sobel CV_16S, exact) against NPP's
// nppiFilterSobelVertBorder_8u16s (the x derivative), and the 8-bit gradient magnitude.
#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/image/sobel.hpp"

namespace wk::bench {

int bench_sobel(const Options& o) {
  const image::Border border{image::BorderMode::replicate, 0};
  std::vector<FilterBench> benches;
  {
    FilterBench b;
    b.title = "sobel dx 3x3 u8 -> s16, replicate border";
    b.out_type = CV_16SC1;
    b.bytes_per_px = 3;
    b.cpu = [border](const cv::Mat& in, cv::Mat& out) {
      image::sobel_s16_cpu({in.data, in.cols, in.rows, in.step[0], 1},
                           {reinterpret_cast<std::int16_t*>(out.data), out.cols, out.rows, out.step[0], 1}, image::SobelDerivative::dx, border);
    };
    b.gpu = [border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
      return image::sobel_s16(in, {static_cast<std::int16_t*>(out), in.width, in.height, pitch, 1}, image::SobelDerivative::dx, border, s, rung);
    };
    // The same bytes moved with no arithmetic: no u8 -> s16 filter can beat this row.
    b.roofline = [](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s) {
      widen_pass(in, static_cast<std::int16_t*>(out), pitch, s);
    };
    b.roofline_name = "widen u8 -> s16";
    b.roofline_target_pct = 98;  // the target of docs/apod/sobel.md
#if defined(WK_HAVE_NPP)
    b.npp = [](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s) {
      npp_sobel_dx_s16(in.data, in.pitch_bytes, static_cast<std::int16_t*>(out), pitch, in.width, in.height, s);
    };
#endif
    benches.push_back(std::move(b));
  }
  {
    FilterBench b;
    b.title = "sobel gradient magnitude u8 -> u8, replicate border";
    b.cpu = [border](const cv::Mat& in, cv::Mat& out) {
      image::sobel_cpu({in.data, in.cols, in.rows, in.step[0], 1}, {out.data, out.cols, out.rows, out.step[0], 1}, image::SobelOutput::magnitude,
                       border);
    };
    b.gpu = [border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
      return image::sobel(in, {static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1}, image::SobelOutput::magnitude, border, s, rung);
    };
    benches.push_back(std::move(b));
  }
  return run_filter_benches(o, "sobel", benches);
}

}  // namespace wk::bench
