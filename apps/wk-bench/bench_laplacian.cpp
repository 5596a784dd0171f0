// wk-bench laplacian: |Laplacian| 3x3 u8 -> u8, exact to OpenCV, against NPP's
// nppiFilterLaplaceBorder 3x3 (its own 8-neighbour kernel: same size of work).
#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/image/laplacian.hpp"

namespace wk::bench {

int bench_laplacian(const Options& o) {
  const image::Border border{image::BorderMode::replicate, 0};
  FilterBench b;
  b.title = "laplacian 3x3 u8 -> |.| u8, replicate border";
  b.cpu = [border](const cv::Mat& in, cv::Mat& out) {
    image::laplacian_cpu({in.data, in.cols, in.rows, in.step[0], 1}, {out.data, out.cols, out.rows, out.step[0], 1}, border);
  };
  b.gpu = [border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
    return image::laplacian(in, {static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1}, border, s, rung);
  };
#if defined(WK_HAVE_NPP)
  b.npp = [](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s) {
    npp_laplace(in.data, in.pitch_bytes, static_cast<std::uint8_t*>(out), pitch, in.width, in.height, s);
  };
  b.npp_note = "8-neighbour kernel";
#endif
  return run_filter_benches(o, "laplacian", {b});
}

}  // namespace wk::bench
