// wk-bench histogram: the histogram APOD ladder on a device-resident 8-bit gray image, a natural
// photo and a constant image (the contention case), against NPP, the copy roofline and (with
// --ladder) a kernel that only reads the image.
#include <fmt/core.h>
#include <opencv2/core.hpp>

#include "bench_images.hpp"
#include "benches.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/image/op.hpp"
#include "wk/image/histogram.hpp"

namespace wk::bench {

namespace {

std::vector<std::uint32_t> download(const DeviceBuffer<std::uint32_t>& d, cudaStream_t stream) {
  std::vector<std::uint32_t> h(d.size());
  WK_CUDA_CHECK(cudaMemcpyAsync(h.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost, stream));
  WK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return h;
}

}  // namespace

int bench_histogram(const Options& o) {
  const std::vector<std::string> asked_rungs = rungs_to_time(o, "histogram", image::find_operation("histogram")->rungs());
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  const double px = double(o.width) * o.height;
  const double bytes = px;  // read once, 1 KB written
  struct Input {
    const char* name;
    cv::Mat host;
    std::vector<std::uint32_t> expected;
  };
  std::vector<Input> inputs;
  inputs.push_back({"natural photo", natural_photo_gray(o.width, o.height), {}});
  inputs.push_back({"constant image", cv::Mat(o.height, o.width, CV_8UC1, cv::Scalar(128)), {}});

  const int cpu_repeats = std::max(1, std::min(o.repeats, 5));
  std::vector<std::vector<Row>> rows(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Input& in = inputs[i];
    in.expected.resize(256);
    const double cpu_ms = time_cpu_ms(cpu_repeats, [&] {
      image::histogram_cpu({in.host.data, in.host.cols, in.host.rows, in.host.step[0], 1}, in.expected);
    });
    rows[i].push_back({fmt::format("cpu OpenCV ({} thr)", cv::getNumThreads()), "", cpu_ms, px, bytes});
  }
  auto title = [&](const Input& in) {
    return fmt::format("wk-bench histogram: {}x{} u8 gray, {}, 256 bins, {}, {}, median of {}", o.width, o.height, in.name,
                       describe_device(sel.gpu), today(), o.repeats);
  };
  if (sel.backend != Backend::gpu) {
    if (!sel.notice.empty()) fmt::print(stderr, "wk-bench: {}\n", sel.notice);
    for (std::size_t i = 0; i < inputs.size(); ++i) print_table(title(inputs[i]), rows[i], 0, "");
    return 0;
  }

  Stream stream;
  DeviceImage d_src(o.width, o.height, 1);
  DeviceBuffer<std::uint32_t> d_hist(256);
  DeviceBuffer<unsigned> d_sink(1);
  image::HistogramWorkspace workspace;
  const double copy_gbps = copy_bandwidth_gbps(std::size_t(px), stream, o.repeats);
#if defined(WK_HAVE_NPP)
  NppHistogram npp(o.width, o.height, stream);
#endif
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src.view().data, d_src.pitch_bytes(), in.host.data, in.host.step[0], o.width, o.height,
                                    cudaMemcpyHostToDevice, stream));
    const std::string default_ran = image::histogram(d_src.view(), d_hist.get(), stream, &workspace);
    for (const std::string& asked : asked_rungs) {
      std::string ran;
      const double ms = time_gpu_ms(stream, o.repeats, [&] { ran = image::histogram(d_src.view(), d_hist.get(), stream, &workspace, asked); });
      if (download(d_hist, stream) != in.expected)
        throw Error(ErrorCategory::internal, "histogram rung '" + ran + "' differs from OpenCV: not timing a wrong kernel");
      rows[i].push_back(rung_row(asked, ran, default_ran, ms, px, bytes));
    }
    if (o.ladder) {
      // No histogram can beat a pass that only reads the image: the bound for the ratios below.
      const double ms = time_gpu_ms(stream, o.repeats, [&] {
        read_only_pass(d_src.view().data, d_src.pitch_bytes() * std::size_t(o.height), d_sink.get(), stream);
      });
      rows[i].push_back({"read only", "roofline", ms, px, bytes});
    }
    std::string peer;
#if defined(WK_HAVE_NPP)
    const double ms = time_gpu_ms(stream, o.repeats, [&] { npp.run(d_src.view().data, d_src.pitch_bytes(), stream); });
    rows[i].push_back({"npp", "peer", ms, px, bytes});
    peer = "npp";
#else
    if (i == 0) fmt::print("(NPP was not found when this build was configured: no NPP peer)\n");
#endif
    print_table(title(in), rows[i], copy_gbps, peer);
    print_roofline_share(rows[i], "read-only pass", 95);
    if (i + 1 < inputs.size()) fmt::print("\n");
  }
  return 0;
}

}  // namespace wk::bench
