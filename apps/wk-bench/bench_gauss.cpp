// wk-bench gauss: the convolution ladder on the Gaussian, 5x5, 7x7 and 15x15, bit-exact to
// cv::GaussianBlur, against NPP's nppiFilterGaussBorder (replicate border).
#include <fmt/core.h>
#include <opencv2/imgproc.hpp>

#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/image/gauss.hpp"

namespace wk::bench {

int bench_gauss(const Options& o) {
  std::vector<FilterBench> benches;
  for (int k : {5, 7, 15}) {
    FilterBench b;
    b.title = fmt::format("gauss {}x{}, sigma from K, replicate border", k, k);
    const image::Border border{image::BorderMode::replicate, 0};
    b.cpu = [k, border](const cv::Mat& in, cv::Mat& out) {
      image::gauss_cpu({in.data, in.cols, in.rows, in.step[0], 1}, {out.data, out.cols, out.rows, out.step[0], 1}, k, 0, border);
    };
    b.gpu = [k, border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, image::ConvVariant rung) {
      image::gauss(in, {static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1}, k, 0, border, s, rung);
    };
    b.rungs = all_rungs();
    if (k <= 5) b.rungs.push_back(image::ConvVariant::vectorized_5x5);
    b.rungs.push_back(image::ConvVariant::vectorized_wide);
    b.default_rung = image::gauss_default_variant(k);
#if defined(WK_HAVE_NPP)
    b.npp = [k](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s) {
      npp_gauss(in.data, in.pitch_bytes, static_cast<std::uint8_t*>(out), pitch, in.width, in.height, k, s);
    };
#endif
    benches.push_back(std::move(b));
  }
  return run_filter_benches(o, "gauss", benches);
}

}  // namespace wk::bench
