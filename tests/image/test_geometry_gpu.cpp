// Geometry on the GPU: every rung equals the CPU path for flip, rotate, transpose and crop, on
// 1, 3 and 4 channels and sizes around the 32 x 32 tile.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/geometry.hpp"
#include "wk/image/op.hpp"
#include "wk/image/pipeline.hpp"

using namespace wk;

namespace {

using GpuOp = std::function<const char*(ConstImageView, ImageView, cudaStream_t)>;

cv::Mat run_gpu(const cv::Mat& in, int out_w, int out_h, const GpuOp& op, std::string& ran) {
  Stream stream;
  const int cn = in.channels();
  DeviceImage d_in(in.cols, in.rows, cn), d_out(out_w, out_h, cn);
  const std::size_t row = std::size_t(in.cols) * cn;
  WK_CUDA_CHECK(cudaMemcpy2DAsync(d_in.view().data, d_in.pitch_bytes(), in.data, in.step[0], row, in.rows, cudaMemcpyHostToDevice, stream));
  ran = op(d_in.view(), d_out.view(), stream);
  cv::Mat out(out_h, out_w, in.type());
  WK_CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.step[0], d_out.view().data, d_out.pitch_bytes(), std::size_t(out_w) * cn, out_h,
                                  cudaMemcpyDeviceToHost, stream));
  stream.synchronize();
  return out;
}

ConstImageView cv_of(const cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }
ImageView v_of(cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }

}  // namespace

TEST_CASE("geometry GPU: every rung equals the CPU path", "[geometry][gpu]") {
  for (const RungInfo& r : image::find_operation("rotate")->rungs())
    for (int cn : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{1, 1}, std::pair{31, 33}, std::pair{64, 32}, std::pair{97, 45}}) {
        CAPTURE(r.name, cn, w, h);
        const cv::Mat in = test::random_image(w, h, cn, unsigned(w + h * 5 + cn));
        const std::string rung = r.name;
        std::string ran;
        auto same_as_cpu = [&](int ow, int oh, const GpuOp& gpu, const std::function<void(cv::Mat&)>& cpu) {
          cv::Mat expected(oh, ow, in.type());
          cpu(expected);
          REQUIRE(cv::norm(run_gpu(in, ow, oh, gpu, ran), expected, cv::NORM_INF) == 0);
          CHECK(ran == rung);  // both rungs take every image of these sizes
        };
        for (auto axis : {image::FlipAxis::horizontal, image::FlipAxis::vertical})
          same_as_cpu(w, h, [&](ConstImageView a, ImageView b, cudaStream_t s) { return image::flip(a, b, axis, s, rung); },
                      [&](cv::Mat& e) { image::flip_cpu(cv_of(in), v_of(e), axis); });
        for (int deg : {90, 180, 270}) {
          const bool swap = deg != 180;
          same_as_cpu(swap ? h : w, swap ? w : h, [&](ConstImageView a, ImageView b, cudaStream_t s) { return image::rotate(a, b, deg, s, rung); },
                      [&](cv::Mat& e) { image::rotate_cpu(cv_of(in), v_of(e), deg); });
        }
        same_as_cpu(h, w, [&](ConstImageView a, ImageView b, cudaStream_t s) { return image::transpose(a, b, s, rung); },
                    [&](cv::Mat& e) { image::transpose_cpu(cv_of(in), v_of(e)); });
        const int cw = (w + 1) / 2, ch = (h + 1) / 2, cx = w / 3, cy = h / 4;
        same_as_cpu(cw, ch, [&](ConstImageView a, ImageView b, cudaStream_t s) { return image::crop(a, b, cx, cy, s, rung); },
                    [&](cv::Mat& e) { image::crop_cpu(cv_of(in), v_of(e), cx, cy); });
      }
}

TEST_CASE("geometry GPU: the default rungs, and a chain equal to the CPU pipeline", "[geometry][gpu]") {
  const cv::Mat in = test::random_image(301, 77, 3, 4);
  std::string ran;
  cv::Mat expected(in.cols, in.rows, in.type());
  image::rotate_cpu(cv_of(in), v_of(expected), 90);
  run_gpu(in, in.rows, in.cols, [](ConstImageView a, ImageView b, cudaStream_t s) { return image::rotate(a, b, 90, s); }, ran);
  CHECK(ran == std::string("tiled"));  // the sm_90 tuning: tiled for every map
  run_gpu(in, in.cols, in.rows, [](ConstImageView a, ImageView b, cudaStream_t s) { return image::flip(a, b, image::FlipAxis::vertical, s); }, ran);
  CHECK(ran == std::string("tiled"));
  const char* chain = "rotate:270,crop:center:50x200,flip:v,transpose,rotate:180";
  const cv::Mat cpu = image::Pipeline(chain, Backend::cpu).run(in);
  const cv::Mat gpu = image::Pipeline(chain, Backend::gpu).run(in);
  REQUIRE(cpu.size() == gpu.size());
  CHECK(cv::norm(cpu, gpu, cv::NORM_INF) == 0);
}
