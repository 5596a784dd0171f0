// invert on the GPU: every rung equals the CPU path; unaligned rows give way to naive; in place.
#include <catch2/catch.hpp>

#include <string>

#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/invert.hpp"
#include "wk/image/op.hpp"

using namespace wk;

namespace {

cv::Mat cpu_invert(const cv::Mat& src) {
  cv::Mat out(src.size(), src.type());
  image::invert_cpu({src.data, src.cols, src.rows, src.step[0], src.channels()}, {out.data, out.cols, out.rows, out.step[0], out.channels()});
  return out;
}

}  // namespace

TEST_CASE("invert GPU: every rung equals the CPU path on pitched images", "[invert][gpu]") {
  for (const RungInfo& r : image::find_operation("invert")->rungs())
    for (int cn : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{1, 1}, std::pair{17, 5}, std::pair{333, 77}}) {
        CAPTURE(r.name, cn, w, h);
        const cv::Mat src = test::random_image(w, h, cn, unsigned(w * 7 + cn));
        Stream stream;
        DeviceImage d_src(w, h, cn), d_dst(w, h, cn);
        const std::size_t row = std::size_t(w) * cn;
        WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src.view().data, d_src.pitch_bytes(), src.data, src.step[0], row, h, cudaMemcpyHostToDevice, stream));
        const std::string ran = image::invert(d_src.view(), d_dst.view(), stream, r.name);
        CHECK(ran == r.name);  // pitched rows are 16-byte aligned: every rung applies
        cv::Mat got(h, w, src.type());
        WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], d_dst.view().data, d_dst.pitch_bytes(), row, h, cudaMemcpyDeviceToHost, stream));
        stream.synchronize();
        REQUIRE(cv::norm(got, cpu_invert(src), cv::NORM_INF) == 0);
      }
}

TEST_CASE("invert GPU: unaligned rows give way to naive, in place works", "[invert][gpu]") {
  const int w = 45, h = 13, cn = 3;
  const std::size_t row = std::size_t(w) * cn, pitch = row + 3;
  const cv::Mat src = test::random_image(w, h, cn, 5);
  Stream stream;
  DeviceBuffer<std::uint8_t> buf(pitch * h + 1);
  std::uint8_t* base = buf.get() + 1;  // rows not even 2-byte aligned
  WK_CUDA_CHECK(cudaMemcpy2DAsync(base, pitch, src.data, src.step[0], row, h, cudaMemcpyHostToDevice, stream));
  const ImageView v{base, w, h, pitch, cn};
  const std::string ran = image::invert(ConstImageView{base, w, h, pitch, cn}, v, stream, "vectorized");
  CHECK(ran == "naive");
  cv::Mat got(h, w, src.type());
  WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], base, pitch, row, h, cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  CHECK(cv::norm(got, cpu_invert(src), cv::NORM_INF) == 0);
}
