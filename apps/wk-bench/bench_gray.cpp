// wk-bench gray: the gray APOD ladder on a device-resident image, against NPP and the copy roofline.
#include <fmt/core.h>
#include <opencv2/core.hpp>

#include "benches.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/image/op.hpp"
#include "wk/image/gray.hpp"

namespace wk::bench {

namespace {

// The GPU result of every rung must equal the CPU (OpenCV) result before its time is printed.
void check_equal(const cv::Mat& expected, const DeviceImage& d_out, const std::string& rung) {
  cv::Mat got(d_out.height(), d_out.width(), CV_8UC1);
  WK_CUDA_CHECK(cudaDeviceSynchronize());
  WK_CUDA_CHECK(cudaMemcpy2D(got.data, got.step[0], d_out.view().data, d_out.pitch_bytes(), d_out.width(),
                             d_out.height(), cudaMemcpyDeviceToHost));
  if (cv::norm(expected, got, cv::NORM_INF) != 0)
    throw Error(ErrorCategory::internal, "gray rung '" + rung + "' differs from OpenCV: not timing a wrong kernel");
}

}  // namespace

int bench_gray(const Options& o) {
  const std::vector<std::string> asked_rungs = rungs_to_time(o, "gray", image::find_operation("gray")->rungs());
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  cv::Mat h_src(o.height, o.width, CV_8UC3);
  cv::randu(h_src, cv::Scalar::all(0), cv::Scalar::all(256));
  cv::Mat h_ref(o.height, o.width, CV_8UC1);
  const double px = double(o.width) * o.height;
  const double bytes = px * 4;  // 3 read + 1 written
  std::vector<Row> rows;

  const int cpu_repeats = std::max(1, std::min(o.repeats, 5));
  const double cpu_ms = time_cpu_ms(cpu_repeats, [&] {
    image::gray_cpu({h_src.data, h_src.cols, h_src.rows, h_src.step[0], 3},
                    {h_ref.data, h_ref.cols, h_ref.rows, h_ref.step[0], 1}, image::ChannelOrder::bgr);
  });
  rows.push_back({fmt::format("cpu OpenCV ({} thr)", cv::getNumThreads()), "", cpu_ms, px, bytes});

  const std::string title = fmt::format("wk-bench gray: {}x{} BGR u8 -> gray u8, {}, {}, median of {}", o.width, o.height,
                                        describe_device(sel.gpu), today(), o.repeats);
  if (sel.backend != Backend::gpu) {
    if (!sel.notice.empty()) fmt::print(stderr, "wk-bench: {}\n", sel.notice);
    print_table(title, rows, 0, "");
    return 0;
  }

  Stream stream;
  DeviceImage d_src(o.width, o.height, 3), d_dst(o.width, o.height, 1);
  WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src.view().data, d_src.pitch_bytes(), h_src.data, h_src.step[0],
                                  std::size_t(o.width) * 3, o.height, cudaMemcpyHostToDevice, stream));
  stream.synchronize();
  const double copy_gbps = copy_bandwidth_gbps(std::size_t(bytes / 2), stream, o.repeats);

  const std::string default_ran = image::gray(d_src.view(), d_dst.view(), image::ChannelOrder::bgr, stream);
  for (const std::string& asked : asked_rungs) {
    std::string ran;
    WK_CUDA_CHECK(cudaMemset2DAsync(d_dst.view().data, d_dst.pitch_bytes(), 0, o.width, o.height, stream));
    const double ms = time_gpu_ms(stream, o.repeats, [&] { ran = image::gray(d_src.view(), d_dst.view(), image::ChannelOrder::bgr, stream, asked); });
    check_equal(h_ref, d_dst, ran);
    rows.push_back(rung_row(asked, ran, default_ran, ms, px, bytes));
  }
  std::string peer;
#if defined(WK_HAVE_NPP)
  {
    const double ms = time_gpu_ms(stream, o.repeats, [&] {
      npp_rgb_to_gray(d_src.view().data, d_src.pitch_bytes(), d_dst.view().data, d_dst.pitch_bytes(), o.width, o.height, stream);
    });
    rows.push_back({"npp", "peer", ms, px, bytes});
    peer = "npp";
  }
#else
  fmt::print("(NPP was not found when this build was configured: no NPP peer)\n");
#endif
  print_table(title, rows, copy_gbps, peer);
  return 0;
}

}  // namespace wk::bench
