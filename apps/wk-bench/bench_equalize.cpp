// wk-bench equalize: the equalize ladder (histogram + LUT + apply) on a device-resident 8-bit gray
// natural photo, against the copy roofline. NPP has no single equalization call: no peer.
#include <fmt/core.h>
#include <opencv2/core.hpp>

#include "bench_images.hpp"
#include "benches.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/image/op.hpp"
#include "wk/image/equalize.hpp"

namespace wk::bench {

int bench_equalize(const Options& o) {
  const std::vector<std::string> asked_rungs = rungs_to_time(o, "equalize", image::find_operation("equalize")->rungs());
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  const double px = double(o.width) * o.height;
  const double bytes = 3 * px;  // histogram pass reads, LUT pass reads and writes
  const cv::Mat h_src = natural_photo_gray(o.width, o.height);
  cv::Mat h_ref(o.height, o.width, CV_8UC1);
  std::vector<Row> rows;
  const int cpu_repeats = std::max(1, std::min(o.repeats, 5));
  const double cpu_ms = time_cpu_ms(cpu_repeats, [&] {
    image::equalize_cpu({h_src.data, h_src.cols, h_src.rows, h_src.step[0], 1}, {h_ref.data, h_ref.cols, h_ref.rows, h_ref.step[0], 1});
  });
  rows.push_back({fmt::format("cpu OpenCV ({} thr)", cv::getNumThreads()), "", cpu_ms, px, bytes});
  const std::string title = fmt::format("wk-bench equalize: {}x{} u8 gray natural photo, {}, {}, median of {}", o.width, o.height,
                                        describe_device(sel.gpu), today(), o.repeats);
  if (sel.backend != Backend::gpu) {
    if (!sel.notice.empty()) fmt::print(stderr, "wk-bench: {}\n", sel.notice);
    print_table(title, rows, 0, "");
    return 0;
  }
  Stream stream;
  DeviceImage d_src(o.width, o.height, 1), d_dst(o.width, o.height, 1);
  image::EqualizeWorkspace workspace;
  WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src.view().data, d_src.pitch_bytes(), h_src.data, h_src.step[0], o.width, o.height,
                                  cudaMemcpyHostToDevice, stream));
  const double copy_gbps = copy_bandwidth_gbps(std::size_t(px), stream, o.repeats);
  cv::Mat got(o.height, o.width, CV_8UC1);
  const std::string default_ran = image::equalize(d_src.view(), d_dst.view(), stream, &workspace);
  for (const std::string& asked : asked_rungs) {
    std::string ran;
    WK_CUDA_CHECK(cudaMemset2DAsync(d_dst.view().data, d_dst.pitch_bytes(), 0, o.width, o.height, stream));
    const double ms = time_gpu_ms(stream, o.repeats, [&] { ran = image::equalize(d_src.view(), d_dst.view(), stream, &workspace, asked); });
    WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], d_dst.view().data, d_dst.pitch_bytes(), o.width, o.height,
                                    cudaMemcpyDeviceToHost, stream));
    stream.synchronize();
    if (cv::norm(h_ref, got, cv::NORM_INF) != 0)
      throw Error(ErrorCategory::internal, "equalize rung '" + ran + "' differs from OpenCV: not timing a wrong kernel");
    rows.push_back(rung_row(asked, ran, default_ran, ms, px, bytes));
  }
  print_table(title, rows, copy_gbps, "");
  return 0;
}

}  // namespace wk::bench
