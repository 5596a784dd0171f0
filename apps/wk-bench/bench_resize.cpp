// wk-bench resize: the resize ladder on a device-resident 8-bit RGB natural photo (three gray
// photos as channels), one table per case: 2:1 area (the integer-ratio fast rung), linear, cubic
// and lanczos to 3000x2000, and area to 1920x1080. Each rung is checked against cv::resize
// (nearest equal, the others within 1 level) before it is timed. Rates count output pixels; the
// bytes are the least a one-pass resize moves (the input read once, the output written once),
// as a share of the device-to-device copy measured in the same run. The NPP peer is
// nppiResize_8u_C3R_Ctx with the same interpolation (NPPI_INTER_SUPER for area) where the build
// links NPP's geometry library.
#include <fmt/core.h>
#include <opencv2/core.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "bench_filter.hpp"
#include "bench_images.hpp"
#include "benches.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/image/op.hpp"
#include "wk/image/resize.hpp"

namespace wk::bench {

namespace {

struct ResizeCase {
  int width, height;  // output; 0: half the input
  image::Interp interp;
};

double time_once_ms(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int bench_resize(const Options& o) {
  const image::OpInfo* info = image::find_operation("resize");
  if (!info) throw Error(ErrorCategory::internal, "wk-bench: no operation 'resize'");
  const std::vector<std::string> asked_rungs = rungs_to_time(o, "resize", info->rungs());  // unknown names: usage error
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  constexpr int cn = 3;
  cv::Mat h_src;
  cv::merge(std::vector<cv::Mat>{natural_photo_gray(o.width, o.height, 1), natural_photo_gray(o.width, o.height, 2),
                                 natural_photo_gray(o.width, o.height, 3)},
            h_src);
  const double in_bytes = double(o.width) * o.height * cn;
  std::optional<Stream> stream;
  std::optional<DeviceImage> d_src;
  double copy_gbps = 0;
  if (sel.backend == Backend::gpu) {
    stream.emplace();
    d_src.emplace(o.width, o.height, cn);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src->view().data, d_src->pitch_bytes(), h_src.data, h_src.step[0], std::size_t(o.width) * cn,
                                    o.height, cudaMemcpyHostToDevice, *stream));
    copy_gbps = copy_bandwidth_gbps(std::size_t(in_bytes), *stream, o.repeats);
  } else if (!sel.notice.empty()) {
    fmt::print(stderr, "wk-bench: {}\n", sel.notice);
  }
  const ResizeCase cases[] = {
      {0, 0, image::Interp::area},          {3000, 2000, image::Interp::linear}, {3000, 2000, image::Interp::cubic},
      {3000, 2000, image::Interp::lanczos}, {1920, 1080, image::Interp::area},
  };
  bool first = true;
  for (const ResizeCase& rc : cases) {
    const int ow = rc.width ? rc.width : std::max(1, o.width / 2), oh = rc.height ? rc.height : std::max(1, o.height / 2);
    const image::ResizePlan plan{ow, oh, 0, 0, ow, oh};
    const double px = double(ow) * oh;
    const double bytes = in_bytes + px * cn;  // input read once + output written once
    const double tolerance = rc.interp == image::Interp::nearest ? 0 : 1;
    if (!first) fmt::print("\n");
    first = false;
    std::vector<Row> rows;
    cv::Mat h_ref(oh, ow, h_src.type());
    const ConstImageView h_in{h_src.data, h_src.cols, h_src.rows, h_src.step[0], cn};
    const ImageView h_out{h_ref.data, h_ref.cols, h_ref.rows, h_ref.step[0], cn};
    const double cpu_ms = time_once_ms([&] { image::resize_cpu(h_in, h_out, plan, rc.interp); });
    rows.push_back({fmt::format("cpu OpenCV ({} thr)", cv::getNumThreads()), "1 run", cpu_ms, px, bytes});
    const std::string title = fmt::format("wk-bench resize: {}x{} -> {}x{} {}, u8 RGB natural photo, {}, {}, median of {}", o.width,
                                          o.height, ow, oh, image::interp_name(rc.interp), describe_device(sel.gpu), today(), o.repeats);
    if (sel.backend != Backend::gpu) {
      print_table(title, rows, 0, "");
      continue;
    }
    DeviceImage d_dst(ow, oh, cn);
    cv::Mat got(oh, ow, h_src.type());
    const std::string default_ran = image::resize(d_src->view(), d_dst.view(), plan, rc.interp, *stream);
    for (const std::string& asked : asked_rungs) {
      std::string ran;
      WK_CUDA_CHECK(cudaMemset2DAsync(d_dst.view().data, d_dst.pitch_bytes(), 0, std::size_t(ow) * cn, oh, *stream));
      const double ms =
          time_gpu_ms(*stream, o.repeats, [&] { ran = image::resize(d_src->view(), d_dst.view(), plan, rc.interp, *stream, asked); });
      WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], d_dst.view().data, d_dst.pitch_bytes(), std::size_t(ow) * cn, oh,
                                      cudaMemcpyDeviceToHost, *stream));
      stream->synchronize();
      check_rung_output(got, h_ref, tolerance, fmt::format("resize ({})", image::interp_name(rc.interp)), ran);
      rows.push_back(rung_row(asked, ran, default_ran, ms, px, bytes));
    }
    std::string peer;
#if defined(WK_HAVE_NPP_RESIZE)
    {
      const double ms = time_gpu_ms(*stream, o.repeats, [&] {
        npp_resize_8u_c3(d_src->view().data, d_src->pitch_bytes(), o.width, o.height, d_dst.view().data, d_dst.pitch_bytes(), ow, oh,
                         static_cast<int>(rc.interp), *stream);
      });
      const char* npp_interp = rc.interp == image::Interp::area ? "peer, NPPI_INTER_SUPER" : "peer";
      rows.push_back({"npp", npp_interp, ms, px, bytes});
      peer = "npp";
    }
#else
    if (&rc == &cases[0])
      fmt::print("(this build has no NPP resize peer: NPP's geometry library, nppig, was not linked)\n");
#endif
    print_table(title, rows, copy_gbps, peer);
  }
  return 0;
}

}  // namespace wk::bench
