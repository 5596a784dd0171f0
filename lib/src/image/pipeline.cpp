#include "wk/image/pipeline.hpp"

#include <opencv2/imgproc.hpp>

#include <functional>
#include <optional>

#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/image/gray.hpp"

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

std::vector<std::string> known_operations() { return {"gray"}; }

namespace {

// The device-side state of one image while it moves through the operations: two pitched
// buffers used ping-pong, so an operation reads `current` and writes `next`.
struct GpuFrame {
  DeviceImage a, b;
  bool current_is_a = true;
  DeviceImage& current() { return current_is_a ? a : b; }
  DeviceImage& next(int w, int h, int c) {
    DeviceImage& n = current_is_a ? b : a;
    n.reset(w, h, c);
    return n;
  }
  void swap() { current_is_a = !current_is_a; }
};

struct Operation {
  std::string name;
  std::function<void(cv::Mat&)> cpu;
  std::function<void(GpuFrame&, cudaStream_t)> gpu;
};

Operation make_gray(const OpSpec& spec) {
  if (!spec.args.empty()) throw Error(ErrorCategory::usage, "gray takes no arguments ('" + spec.text + "')");
  Operation op;
  op.name = "gray";
  op.cpu = [](cv::Mat& img) {
    if (img.channels() == 1) return;
    cv::Mat out(img.rows, img.cols, CV_8UC1);
    ConstImageView src{img.data, img.cols, img.rows, img.step[0], img.channels()};
    gray_cpu(src, ImageView{out.data, out.cols, out.rows, out.step[0], 1}, ChannelOrder::bgr);
    img = out;
  };
  op.gpu = [](GpuFrame& f, cudaStream_t s) {
    const DeviceImage& in = f.current();
    if (in.channels() == 1) return;
    DeviceImage& out = f.next(in.width(), in.height(), 1);
    gray(in.view(), out.view(), ChannelOrder::bgr, s);
    f.swap();
  };
  return op;
}

Operation make_operation(const OpSpec& spec) {
  if (spec.name == "gray") return make_gray(spec);
  std::string known;
  for (const auto& n : known_operations()) known += (known.empty() ? "" : ", ") + n;
  throw Error(ErrorCategory::usage, "unknown operation '" + spec.name + "' (known: " + known + ")");
}

}  // namespace

struct Pipeline::Impl {
  Backend backend;
  std::vector<OpSpec> specs;
  std::vector<Operation> ops;
  std::optional<Stream> stream;  // created on first GPU use
  GpuFrame frame;
};

Pipeline::Pipeline(std::string_view text, Backend backend) : impl_(std::make_unique<Impl>()) {
  impl_->backend = backend;
  impl_->specs = parse_pipeline(text);
  for (const auto& s : impl_->specs) impl_->ops.push_back(make_operation(s));
}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

Backend Pipeline::backend() const { return impl_->backend; }
const std::vector<OpSpec>& Pipeline::ops() const { return impl_->specs; }

cv::Mat Pipeline::run(const cv::Mat& image, long index) {
  if (image.depth() != CV_8U || (image.channels() != 1 && image.channels() != 3))
    throw Error(ErrorCategory::unsupported, "pipeline input must be 8-bit with 1 or 3 channels");
  Impl& p = *impl_;
  if (p.backend == Backend::cpu) {
    cv::Mat img = image.clone();
    for (auto& op : p.ops) {
      nvtx::Range r(op.name.c_str(), nvtx::Color::compute, index);
      op.cpu(img);
    }
    return img;
  }
  if (!p.stream) p.stream.emplace();
  cudaStream_t s = p.stream->get();
  GpuFrame& f = p.frame;
  f.current_is_a = true;
  {
    nvtx::Range r("h2d", nvtx::Color::transfer, index);
    f.a.reset(image.cols, image.rows, image.channels());
    WK_CUDA_CHECK(cudaMemcpy2DAsync(f.a.view().data, f.a.pitch_bytes(), image.data, image.step[0],
                                    static_cast<std::size_t>(image.cols) * image.channels(), image.rows,
                                    cudaMemcpyHostToDevice, s));
  }
  for (auto& op : p.ops) {
    nvtx::Range r(op.name.c_str(), nvtx::Color::compute, index);
    op.gpu(f, s);
  }
  nvtx::Range r("d2h", nvtx::Color::transfer, index);
  const DeviceImage& out = f.current();
  cv::Mat result(out.height(), out.width(), CV_8UC(out.channels()));
  WK_CUDA_CHECK(cudaMemcpy2DAsync(result.data, result.step[0], out.view().data, out.pitch_bytes(),
                                  static_cast<std::size_t>(out.width()) * out.channels(), out.height(),
                                  cudaMemcpyDeviceToHost, s));
  WK_CUDA_CHECK(cudaStreamSynchronize(s));
  return result;
}

}  // namespace wk::image
