// wk-bench box: the ladder on the mean filter, 5x5 and 15x15, bit-exact to cv::blur, against NPP's
// nppiFilterBoxBorder (replicate border).
#include <fmt/core.h>

#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/image/box.hpp"

namespace wk::bench {

int bench_box(const Options& o) {
  std::vector<FilterBench> benches;
  const image::Border border{image::BorderMode::replicate, 0};
  for (int k : {5, 15}) {
    FilterBench b;
    b.title = fmt::format("box {}x{}, replicate border", k, k);
    b.cpu = [k, border](const cv::Mat& in, cv::Mat& out) {
      image::box_cpu({in.data, in.cols, in.rows, in.step[0], 1}, {out.data, out.cols, out.rows, out.step[0], 1}, k, border);
    };
    b.gpu = [k, border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
      return image::box(in, {static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1}, k, border, s, rung);
    };
#if defined(WK_HAVE_NPP)
    b.npp = [k](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s) {
      npp_box(in.data, in.pitch_bytes, static_cast<std::uint8_t*>(out), pitch, in.width, in.height, k, s);
    };
#endif
    benches.push_back(std::move(b));
  }
  return run_filter_benches(o, "box", benches);
}

}  // namespace wk::bench
