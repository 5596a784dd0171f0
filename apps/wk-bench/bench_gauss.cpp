// wk-bench gauss: the convolution ladder on the Gaussian, 5x5, 7x7 and 15x15, bit-exact to
// cv::GaussianBlur, against NPP's nppiFilterGaussBorder (replicate border).
#include <fmt/core.h>
#include <opencv2/imgproc.hpp>

#include <utility>

#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/image/gauss.hpp"

namespace wk::bench {

int bench_gauss(const Options& o) {
  std::vector<FilterBench> benches;
  // Sigma 0 (from K) is the usual call; 5x5 with sigma 1.5 shows general taps (sigma 0's 5x5 taps
  // are multiples of 16, which vectorized_5x5 runs in 16-bit lanes).
  const std::pair<int, double> cases[] = {{5, 0.0}, {5, 1.5}, {7, 0.0}, {15, 0.0}};
  for (const auto& [k, sigma] : cases) {
    FilterBench b;
    b.title = sigma == 0 ? fmt::format("gauss {}x{}, sigma from K, replicate border", k, k)
                         : fmt::format("gauss {}x{}, sigma {} (general taps), replicate border", k, k, sigma);
    const image::Border border{image::BorderMode::replicate, 0};
    b.cpu = [k, sigma, border](const cv::Mat& in, cv::Mat& out) {
      image::gauss_cpu({in.data, in.cols, in.rows, in.step[0], 1}, {out.data, out.cols, out.rows, out.step[0], 1}, k, sigma,
                       border);
    };
    b.gpu = [k, sigma, border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
      return image::gauss(in, {static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1}, k, sigma, border, s, rung);
    };
#if defined(WK_HAVE_NPP)
    if (sigma != 0) b.npp_note = "NPP's fixed 5x5 mask: NPP has no sigma";
    b.npp = [k](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s) {
      npp_gauss(in.data, in.pitch_bytes, static_cast<std::uint8_t*>(out), pitch, in.width, in.height, k, s);
    };
#endif
    benches.push_back(std::move(b));
  }
  return run_filter_benches(o, "gauss", benches);
}

}  // namespace wk::bench
