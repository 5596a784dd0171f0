#include "bench_filter.hpp"

#include <fmt/core.h>

#include <chrono>

#include "bench_images.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/image/op.hpp"

namespace wk::bench {

namespace {

// A pitched device image of any element type.
class DevicePitched {
 public:
  DevicePitched(int width, int height, std::size_t elem_bytes) {
    WK_CUDA_CHECK(cudaMallocPitch(&ptr_, &pitch_, std::size_t(width) * elem_bytes, height));
  }
  ~DevicePitched() { cudaFree(ptr_); }
  DevicePitched(const DevicePitched&) = delete;
  DevicePitched& operator=(const DevicePitched&) = delete;
  void* get() const { return ptr_; }
  std::size_t pitch() const { return pitch_; }

 private:
  void* ptr_ = nullptr;
  std::size_t pitch_ = 0;
};

// The CPU reference takes seconds for large kernels at 8192 x 8192: one run, timed once.
double time_once_ms(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void check_rung_output(const cv::Mat& got, const cv::Mat& reference, double tolerance, const std::string& what,
                       const std::string& ran) {
  cv::Mat diff;
  cv::absdiff(got, reference, diff);
  double worst = 0;
  cv::minMaxLoc(diff.reshape(1), nullptr, &worst);
  if (worst > tolerance)
    throw Error(ErrorCategory::internal,
                fmt::format("{}: rung '{}' differs from OpenCV by {} > {}: not timing a wrong kernel", what, ran, worst, tolerance));
}

int run_filter_benches(const Options& o, const char* op, const std::vector<FilterBench>& benches) {
  const image::OpInfo* info = image::find_operation(op);
  if (!info) throw Error(ErrorCategory::internal, std::string("wk-bench: no operation '") + op + "'");
  const std::vector<std::string> asked_rungs = rungs_to_time(o, op, info->rungs());  // unknown names: usage error
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  const double px = double(o.width) * o.height;
  const cv::Mat h_src = natural_photo_gray(o.width, o.height);
  std::optional<Stream> stream;
  std::optional<DeviceImage> d_src;
  double copy_gbps = 0;
  if (sel.backend == Backend::gpu) {
    stream.emplace();
    d_src.emplace(o.width, o.height, 1);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src->view().data, d_src->pitch_bytes(), h_src.data, h_src.step[0], o.width, o.height,
                                    cudaMemcpyHostToDevice, *stream));
    copy_gbps = copy_bandwidth_gbps(std::size_t(px), *stream, o.repeats);
  } else if (!sel.notice.empty()) {
    fmt::print(stderr, "wk-bench: {}\n", sel.notice);
  }
  for (std::size_t bi = 0; bi < benches.size(); ++bi) {
    const FilterBench& b = benches[bi];
    const double bytes = px * b.bytes_per_px;
    std::vector<Row> rows;
    cv::Mat h_ref(o.height, o.width, b.out_type);
    const double cpu_ms = time_once_ms([&] { b.cpu(h_src, h_ref); });
    rows.push_back({fmt::format("cpu OpenCV ({} thr)", cv::getNumThreads()), "1 run", cpu_ms, px, bytes});
    const std::string title = fmt::format("wk-bench {}: {}, {}x{} u8 gray natural photo, {}, {}, median of {}", op, b.title, o.width,
                                          o.height, describe_device(sel.gpu), today(), o.repeats);
    if (sel.backend != Backend::gpu) {
      print_table(title, rows, 0, "");
      continue;
    }
    const std::size_t elem = CV_ELEM_SIZE(b.out_type);
    DevicePitched d_dst(o.width, o.height, elem);
    cv::Mat got(o.height, o.width, b.out_type);
    const std::string default_ran = b.gpu(d_src->view(), d_dst.get(), d_dst.pitch(), *stream, "");
    for (const std::string& asked : asked_rungs) {
      std::string ran;
      WK_CUDA_CHECK(cudaMemset2DAsync(d_dst.get(), d_dst.pitch(), 0, std::size_t(o.width) * elem, o.height, *stream));
      const double ms = time_gpu_ms(*stream, o.repeats, [&] { ran = b.gpu(d_src->view(), d_dst.get(), d_dst.pitch(), *stream, asked); });
      WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], d_dst.get(), d_dst.pitch(), std::size_t(o.width) * elem, o.height,
                                      cudaMemcpyDeviceToHost, *stream));
      stream->synchronize();
      check_rung_output(got, h_ref, b.tolerance, fmt::format("{} ({})", op, b.title), ran);
      rows.push_back(rung_row(asked, ran, default_ran, ms, px, bytes));
    }
    if (b.roofline && o.ladder) {
      const double ms = time_gpu_ms(*stream, o.repeats, [&] { b.roofline(d_src->view(), d_dst.get(), d_dst.pitch(), *stream); });
      rows.push_back({b.roofline_name, "roofline", ms, px, bytes});
    }
    std::string peer;
#if defined(WK_HAVE_NPP)
    if (b.npp) {
      const double ms = time_gpu_ms(*stream, o.repeats, [&] { b.npp(d_src->view(), d_dst.get(), d_dst.pitch(), *stream); });
      rows.push_back({"npp", b.npp_note.empty() ? "peer" : "peer, " + b.npp_note, ms, px, bytes});
      peer = "npp";
    }
#else
    if (bi == 0) fmt::print("(NPP was not found when this build was configured: no NPP peer)\n");
#endif
    print_table(title, rows, copy_gbps, peer);
    if (b.roofline_target_pct > 0) print_roofline_share(rows, b.roofline_name + " pass", b.roofline_target_pct);
    if (bi + 1 < benches.size()) fmt::print("\n");
  }
  return 0;
}

}  // namespace wk::bench
