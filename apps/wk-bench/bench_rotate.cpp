// wk-bench rotate: the geometry ops' rungs (one table: flip, rotate, transpose and crop share
// it) on a square 8-bit gray image, so every map keeps the size: rotate 90 and transpose swap the
// axes, flip h keeps rows. Exact to OpenCV; no NPP peer.
#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/image/geometry.hpp"

namespace wk::bench {

int bench_rotate(const Options& o) {
  Options square = o;
  square.height = square.width;
  auto view_of = [](const cv::Mat& m) { return ConstImageView{m.data, m.cols, m.rows, m.step[0], 1}; };
  auto out_of = [](cv::Mat& m) { return ImageView{m.data, m.cols, m.rows, m.step[0], 1}; };
  auto dst = [](ConstImageView in, void* out, std::size_t pitch) {
    return ImageView{static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1};
  };
  std::vector<FilterBench> benches(3);
  benches[0].title = "rotate 90 (axes swapped)";
  benches[0].cpu = [=](const cv::Mat& in, cv::Mat& out) { image::rotate_cpu(view_of(in), out_of(out), 90); };
  benches[0].gpu = [=](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
    return image::rotate(in, dst(in, out, pitch), 90, s, rung);
  };
  benches[1].title = "transpose (axes swapped)";
  benches[1].cpu = [=](const cv::Mat& in, cv::Mat& out) { image::transpose_cpu(view_of(in), out_of(out)); };
  benches[1].gpu = [=](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
    return image::transpose(in, dst(in, out, pitch), s, rung);
  };
  benches[2].title = "flip h (rows kept)";
  benches[2].cpu = [=](const cv::Mat& in, cv::Mat& out) { image::flip_cpu(view_of(in), out_of(out), image::FlipAxis::horizontal); };
  benches[2].gpu = [=](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
    return image::flip(in, dst(in, out, pitch), image::FlipAxis::horizontal, s, rung);
  };
  return run_filter_benches(square, "rotate", benches);
}

}  // namespace wk::bench
