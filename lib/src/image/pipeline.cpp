#include "wk/image/pipeline.hpp"

#include <optional>

#include "image/op_decl.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"

namespace wk::image {

std::vector<OpSpec> parse_pipeline(std::string_view text) {
  std::vector<OpSpec> ops;
  auto fail = [&](const std::string& why) {
    throw Error(ErrorCategory::usage, "operation pipeline '" + std::string(text) + "': " + why);
  };
  std::vector<std::string> parts{""};
  int depth = 0;
  OpSpec current;
  auto finish_op = [&] {
    if (parts.size() == 1 && parts[0].empty()) fail("empty operation (two commas in a row, or a comma at an end)");
    if (parts[0].empty()) fail("operation without a name before ':'");
    current.name = parts[0];
    current.args.assign(parts.begin() + 1, parts.end());
    ops.push_back(std::move(current));
    current = {};
    parts.assign(1, "");
  };
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) fail("']' without '['");
    if (depth == 0 && c == ',') { finish_op(); continue; }
    current.text += c;
    if (depth == 0 && c == ':') { parts.emplace_back(); continue; }
    parts.back() += c;
  }
  if (depth != 0) fail("'[' without ']'");
  finish_op();
  return ops;
}

using namespace detail;

struct Pipeline::Impl {
  Backend backend;
  PipelineOptions options;
  std::vector<OpSpec> specs;
  std::vector<Operation> ops;
  std::optional<Stream> stream;  // created on first GPU use
  GpuFrame frame;
  // Pinned staging for uploads and downloads: copies from pageable memory are staged by the
  // driver through one shared buffer and serialize across threads; from pinned memory they are
  // true DMA, so the streams of several workers overlap.
  PinnedBuffer<std::uint8_t> staging;
  std::uint8_t* staging_for(std::size_t bytes) {
    if (staging.size() < bytes) staging = PinnedBuffer<std::uint8_t>(bytes + bytes / 4);
    return staging.get();
  }
  // The operations on frame.a (already on the device, ordered on `s`), then the download or the
  // sink.
  cv::Mat run_frame(cudaStream_t s, long index, RunState& st, const DeviceSink& sink);
};

Pipeline::Pipeline(std::string_view text, Backend backend, PipelineOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->backend = backend;
  impl_->options = options;
  impl_->specs = parse_pipeline(text);
  for (const auto& s : impl_->specs) impl_->ops.push_back(bind_operation(s, options));
}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

Backend Pipeline::backend() const { return impl_->backend; }
const std::vector<OpSpec>& Pipeline::ops() const { return impl_->specs; }
const PipelineOptions& Pipeline::options() const { return impl_->options; }

bool Pipeline::analysis_only() const {
  for (const auto& op : impl_->ops)
    if (!op.analysis) return false;
  return true;
}

bool Pipeline::takes_any_depth() const {
  for (const auto& op : impl_->ops)
    if (!op.any_depth) return false;
  return true;
}

int Pipeline::jpeg_shrink(int width, int height) const {
  const auto& ops = impl_->ops;
  return ops.empty() || !ops.front().jpeg_shrink ? 1 : ops.front().jpeg_shrink(width, height);
}

cv::Mat Pipeline::run(const cv::Mat& image, long index, std::vector<SideOutput>* side_outputs, const DeviceSink& sink) {
  Impl& p = *impl_;
  if (image.depth() != CV_8U || (image.channels() != 1 && image.channels() != 3)) {
    // 16-bit, float or BGRA: on the host, through the ops' any-depth paths.
    const std::string kind = image.depth() == CV_16U ? "16-bit" : image.depth() == CV_32F ? "floating-point" : image.depth() == CV_8U ? "" : "deep";
    for (const auto& op : p.ops)
      if (!op.any_depth)
        throw Error(ErrorCategory::unsupported,
                    op.name + " takes 8-bit images of 1 or 3 channels, not " +
                        (kind.empty() ? std::to_string(image.channels()) + "-channel ones" : kind + " ones") +
                        (image.channels() == 4 ? " with alpha" : "") + " (--depth 8 and --alpha drop convert them)");
    cv::Mat img = image.clone();
    for (auto& op : p.ops) {
      nvtx::Range r(op.name.c_str(), nvtx::Color::compute, index);
      op.any_depth(img);
    }
    return img;
  }
  RunState st;
  st.side_outputs = side_outputs;
  if (p.backend == Backend::cpu) {
    // Every CPU operation writes a new image (or passes its input through), so the input is
    // never written: it is copied only when no operation replaced it (a 4K BGR copy was ~3 % of
    // a gray,gauss:5,hist file's CPU time, with its page faults).
    cv::Mat img = image;
    for (auto& op : p.ops) {
      nvtx::Range r(op.name.c_str(), nvtx::Color::compute, index);
      op.cpu(img, st);
    }
    return img.data == image.data ? img.clone() : img;
  }
  cudaStream_t s = stream();
  GpuFrame& f = p.frame;
  f.current_is_a = true;
  const std::size_t in_row = static_cast<std::size_t>(image.cols) * image.channels();
  {
    nvtx::Range r("h2d", nvtx::Color::transfer, index);
    f.a.reset(image.cols, image.rows, image.channels());
    std::uint8_t* h_in = p.staging_for(in_row * image.rows);
    image.copyTo(cv::Mat(image.rows, image.cols, image.type(), h_in, in_row));
    WK_CUDA_CHECK(cudaMemcpy2DAsync(f.a.view().data, f.a.pitch_bytes(), h_in, in_row, in_row, image.rows,
                                    cudaMemcpyHostToDevice, s));
  }
  return p.run_frame(s, index, st, sink);
}

cudaStream_t Pipeline::stream() {
  if (impl_->backend != Backend::gpu) throw Error(ErrorCategory::internal, "Pipeline::stream() on a CPU pipeline");
  if (impl_->options.stream) return impl_->options.stream;
  if (!impl_->stream) impl_->stream.emplace();
  return impl_->stream->get();
}

cv::Mat Pipeline::run_device(DeviceImage& image, long index, std::vector<SideOutput>* side_outputs,
                             const DeviceSink& sink) {
  if (impl_->backend != Backend::gpu) throw Error(ErrorCategory::internal, "Pipeline::run_device on a CPU pipeline");
  if (image.channels() != 1 && image.channels() != 3)
    throw Error(ErrorCategory::unsupported, "pipeline input must be 8-bit with 1 or 3 channels");
  Impl& p = *impl_;
  RunState st;
  st.side_outputs = side_outputs;
  cudaStream_t s = stream();
  GpuFrame& f = p.frame;
  f.current_is_a = true;
  // Borrow the caller's buffer as `a`; whatever the operations leave in `a` goes back (also
  // when an operation throws, so neither side loses an allocation).
  std::swap(f.a, image);
  struct SwapBack {
    DeviceImage& x; DeviceImage& y;
    ~SwapBack() { std::swap(x, y); }
  } swap_back{f.a, image};
  return p.run_frame(s, index, st, sink);
}

cv::Mat Pipeline::Impl::run_frame(cudaStream_t s, long index, RunState& st, const DeviceSink& sink) {
  GpuFrame& f = frame;
  for (auto& op : ops) {
    nvtx::Range r(op.name.c_str(), nvtx::Color::compute, index);
    op.gpu(f, s, st);
  }
  cv::Mat result;
  if (sink) {
    sink(f.current(), s);
    wait_sleeping(s);
  } else {
    nvtx::Range r("d2h", nvtx::Color::transfer, index);
    const DeviceImage& out = f.current();
    const std::size_t out_row = static_cast<std::size_t>(out.width()) * out.channels();
    // The upload that last used the staging buffer is ordered before this download on `s`; a
    // larger result needs a new buffer, and the old one must not be freed under the upload.
    if (out_row * out.height() > staging.size()) WK_CUDA_CHECK(cudaStreamSynchronize(s));
    std::uint8_t* h_out = staging_for(out_row * out.height());
    WK_CUDA_CHECK(cudaMemcpy2DAsync(h_out, out_row, out.view().data, out.pitch_bytes(), out_row, out.height(),
                                    cudaMemcpyDeviceToHost, s));
    wait_sleeping(s);  // many workers wait here at once: sleeping leaves their cores to others
    cv::Mat(out.height(), out.width(), CV_8UC(out.channels()), h_out, out_row).copyTo(result);
  }
  for (auto& fn : st.after_sync) fn();
  return result;
}

}  // namespace wk::image
