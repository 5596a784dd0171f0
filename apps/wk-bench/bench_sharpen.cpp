// wk-bench sharpen: unsharp mask (5x5 Gaussian, AMOUNT 1), exact to OpenCV; the separable and
// vectorized_5x5 rungs are one fused pass. NPP has no single unsharp-mask call: no peer.
#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/image/sharpen.hpp"

namespace wk::bench {

int bench_sharpen(const Options& o) {
  const image::Border border{image::BorderMode::replicate, 0};
  FilterBench b;
  b.title = "sharpen 5x5 Gaussian, AMOUNT 1, replicate border";
  b.cpu = [border](const cv::Mat& in, cv::Mat& out) {
    image::sharpen_cpu({in.data, in.cols, in.rows, in.step[0], 1}, {out.data, out.cols, out.rows, out.step[0], 1}, 1.0, border);
  };
  b.gpu = [border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
    return image::sharpen(in, {static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1}, 1.0, border, s, rung);
  };
  return run_filter_benches(o, "sharpen", {b});
}

}  // namespace wk::bench
