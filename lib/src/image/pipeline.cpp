#include "wk/image/pipeline.hpp"

#include <opencv2/imgproc.hpp>

#include <charconv>
#include <cmath>
#include <functional>
#include <optional>

#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/image/box.hpp"
#include "wk/image/conv.hpp"
#include "wk/image/equalize.hpp"
#include "wk/image/gauss.hpp"
#include "wk/image/gray.hpp"
#include "wk/image/histogram.hpp"
#include "wk/image/laplacian.hpp"
#include "wk/image/sharpen.hpp"
#include "wk/image/sobel.hpp"

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

// What one run() call collects besides the image.
struct RunState {
  std::vector<SideOutput>* side_outputs = nullptr;
  // GPU: work that needs the stream finished (formatting side outputs from pinned copies).
  std::vector<std::function<void()>> after_sync;
  int histograms = 0;  // numbers the histogram side outputs: .hist, .hist2, ...
};

struct Operation {
  std::string name;
  std::function<void(cv::Mat&, RunState&)> cpu;
  std::function<void(GpuFrame&, cudaStream_t, RunState&)> gpu;
};

[[noreturn]] void bad_args(const OpSpec& spec, const std::string& why) {
  throw Error(ErrorCategory::usage, spec.name + ": " + why + " ('" + spec.text + "')");
}

void expect_args(const OpSpec& spec, std::size_t min, std::size_t max, const char* syntax) {
  if (spec.args.size() < min || spec.args.size() > max)
    bad_args(spec, std::string(spec.args.size() < min ? "missing argument" : "too many arguments") + ", expected " + syntax);
}

ConstImageView const_view(const cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }
ImageView view(cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }

// ---- gray
Operation make_gray(const OpSpec& spec, const PipelineOptions&) {
  expect_args(spec, 0, 0, "no arguments");
  Operation op;
  op.name = "gray";
  op.cpu = [](cv::Mat& img, RunState&) {
    if (img.channels() == 1) return;
    cv::Mat out(img.rows, img.cols, CV_8UC1);
    gray_cpu(const_view(img), view(out), ChannelOrder::bgr);
    img = out;
  };
  op.gpu = [](GpuFrame& f, cudaStream_t s, RunState&) {
    const DeviceImage& in = f.current();
    if (in.channels() == 1) return;
    DeviceImage& out = f.next(in.width(), in.height(), 1);
    gray(in.view(), out.view(), ChannelOrder::bgr, s);
    f.swap();
  };
  return op;
}

// ---- histogram / hist: side outputs only, the image passes through unchanged.
void add_histogram_outputs(RunState& st, std::span<const std::uint32_t> hist, int channels, bool plot) {
  const int n = ++st.histograms;
  if (!st.side_outputs) return;
  const std::string stem = n == 1 ? ".hist" : ".hist" + std::to_string(n);
  const std::string csv = histogram_csv(hist, channels);
  st.side_outputs->push_back({stem + ".csv", std::vector<std::uint8_t>(csv.begin(), csv.end())});
  if (plot) st.side_outputs->push_back({stem + ".png", histogram_plot_png(hist, channels)});
}

Operation make_histogram(const OpSpec& spec, const PipelineOptions& options) {
  expect_args(spec, 0, 0, "no arguments");
  struct GpuState {
    HistogramWorkspace workspace;
    DeviceBuffer<std::uint32_t> d_hist{4 * kHistogramBins};
    PinnedBuffer<std::uint32_t> h_hist{4 * kHistogramBins};
  };
  auto state = std::make_shared<std::optional<GpuState>>();
  const bool plot = options.plot;
  Operation op;
  op.name = "histogram";
  op.cpu = [plot](cv::Mat& img, RunState& st) {
    std::vector<std::uint32_t> hist(std::size_t(img.channels()) * kHistogramBins);
    histogram_cpu(const_view(img), hist);
    add_histogram_outputs(st, hist, img.channels(), plot);
  };
  op.gpu = [state, plot](GpuFrame& f, cudaStream_t s, RunState& st) {
    if (!*state) state->emplace();
    GpuState& g = **state;
    const DeviceImage& in = f.current();
    const int cn = in.channels();
    histogram(in.view(), g.d_hist.get(), s, histogram_default_variant(), &g.workspace);
    WK_CUDA_CHECK(cudaMemcpyAsync(g.h_hist.get(), g.d_hist.get(), std::size_t(cn) * kHistogramBins * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToHost, s));
    // Numbered now, in pipeline order; formatted once the stream has finished.
    const int number = ++st.histograms;
    st.after_sync.push_back([&st, state, cn, plot, number] {
      RunState one;
      one.side_outputs = st.side_outputs;
      one.histograms = number - 1;
      add_histogram_outputs(one, std::span<const std::uint32_t>((*state)->h_hist.get(), std::size_t(cn) * kHistogramBins), cn, plot);
    });
  };
  return op;
}

// ---- equalize
Operation make_equalize(const OpSpec& spec, const PipelineOptions&) {
  expect_args(spec, 0, 0, "no arguments");
  auto workspace = std::make_shared<std::optional<EqualizeWorkspace>>();
  Operation op;
  op.name = "equalize";
  op.cpu = [](cv::Mat& img, RunState&) {
    cv::Mat out(img.rows, img.cols, img.type());
    equalize_cpu(const_view(img), view(out));
    img = out;
  };
  op.gpu = [workspace](GpuFrame& f, cudaStream_t s, RunState&) {
    if (!*workspace) workspace->emplace();
    const DeviceImage& in = f.current();
    DeviceImage& out = f.next(in.width(), in.height(), in.channels());
    equalize(in.view(), out.view(), s, equalize_default_variant(), &**workspace);
    f.swap();
  };
  return op;
}

// ---- The convolution family: same size and channels out; the border from the options.
int parse_int(const OpSpec& spec, const std::string& text, const char* what) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    bad_args(spec, std::string(what) + " must be an integer, not '" + text + "'");
  return v;
}

double parse_number(const OpSpec& spec, const std::string& text, const char* what) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    bad_args(spec, std::string(what) + " must be a number, not '" + text + "'");
  return v;
}

// Wraps a library filter (CPU and GPU entry points, views in, views out) as an operation.
template <class Cpu, class Gpu>
Operation filter_operation(const char* name, Cpu cpu, Gpu gpu) {
  Operation op;
  op.name = name;
  op.cpu = [cpu](cv::Mat& img, RunState&) {
    cv::Mat out(img.rows, img.cols, img.type());
    cpu(const_view(img), view(out));
    img = out;
  };
  op.gpu = [gpu](GpuFrame& f, cudaStream_t s, RunState&) {
    const DeviceImage& in = f.current();
    DeviceImage& out = f.next(in.width(), in.height(), in.channels());
    gpu(in.view(), out.view(), s);
    f.swap();
  };
  return op;
}

Operation make_conv(const OpSpec& spec, const PipelineOptions& options) {
  if (spec.args.empty()) bad_args(spec, "missing kernel, expected conv:FILE or conv:[a b; c d]");
  // A file name may itself contain ':'.
  std::string arg = spec.args[0];
  for (std::size_t i = 1; i < spec.args.size(); ++i) arg += ":" + spec.args[i];
  const auto first = arg.find_first_not_of(" \t");
  FilterKernel k;
  try {
    k = first != std::string::npos && arg[first] == '[' ? parse_kernel_text(arg, "conv:" + arg) : load_kernel_file(arg);
  } catch (const Error& e) {
    const std::string what = e.what();
    // An unreadable kernel file is a bad argument: usage, as a malformed one.
    throw Error(ErrorCategory::usage, what.rfind("conv", 0) == 0 ? what : "conv: " + what);
  }
  const Border b = options.border;
  return filter_operation(
      "conv", [k, b](ConstImageView in, ImageView out) { conv_cpu(in, out, k, b); },
      [k, b](ConstImageView in, ImageView out, cudaStream_t s) { conv(in, out, k, b, s); });
}

Operation make_gauss(const OpSpec& spec, const PipelineOptions& options) {
  expect_args(spec, 1, 2, "gauss:K[:SIGMA]");
  const int k = parse_int(spec, spec.args[0], "K");
  const double sigma = spec.args.size() > 1 ? parse_number(spec, spec.args[1], "SIGMA") : 0.0;
  try {
    check_gauss_args(k, sigma);
  } catch (const Error& e) {
    bad_args(spec, std::string(e.what()).substr(7));  // "gauss: " is added back
  }
  const Border b = options.border;
  return filter_operation(
      "gauss", [=](ConstImageView in, ImageView out) { gauss_cpu(in, out, k, sigma, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { gauss(in, out, k, sigma, b, s); });
}

Operation make_box(const OpSpec& spec, const PipelineOptions& options) {
  expect_args(spec, 1, 1, "box:K");
  const int k = parse_int(spec, spec.args[0], "K");
  try {
    check_box_args(k);
  } catch (const Error& e) {
    bad_args(spec, std::string(e.what()).substr(5));  // "box: "
  }
  const Border b = options.border;
  return filter_operation(
      "box", [=](ConstImageView in, ImageView out) { box_cpu(in, out, k, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { box(in, out, k, b, s); });
}

Operation make_sobel(const OpSpec& spec, const PipelineOptions& options) {
  expect_args(spec, 0, 1, "sobel, sobel:dx or sobel:dy");
  SobelOutput what = SobelOutput::magnitude;
  if (!spec.args.empty()) {
    if (spec.args[0] == "dx") what = SobelOutput::dx;
    else if (spec.args[0] == "dy") what = SobelOutput::dy;
    else bad_args(spec, "unknown derivative '" + spec.args[0] + "', expected dx or dy");
  }
  const Border b = options.border;
  return filter_operation(
      "sobel", [=](ConstImageView in, ImageView out) { sobel_cpu(in, out, what, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { sobel(in, out, what, b, s); });
}

Operation make_laplacian(const OpSpec& spec, const PipelineOptions& options) {
  expect_args(spec, 0, 0, "no arguments");
  const Border b = options.border;
  return filter_operation(
      "laplacian", [=](ConstImageView in, ImageView out) { laplacian_cpu(in, out, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { laplacian(in, out, b, s); });
}

Operation make_sharpen(const OpSpec& spec, const PipelineOptions& options) {
  expect_args(spec, 0, 1, "sharpen[:AMOUNT]");
  const double amount = spec.args.empty() ? 1.0 : parse_number(spec, spec.args[0], "AMOUNT");
  try {
    check_sharpen_amount(amount);
  } catch (const Error& e) {
    bad_args(spec, std::string(e.what()).substr(9));  // "sharpen: "
  }
  const Border b = options.border;
  return filter_operation(
      "sharpen", [=](ConstImageView in, ImageView out) { sharpen_cpu(in, out, amount, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { sharpen(in, out, amount, b, s); });
}

struct OpDef {
  const char* name;
  const char* alias;  // nullptr: none
  const char* syntax;
  const char* help;
  Operation (*make)(const OpSpec&, const PipelineOptions&);
};

const OpDef kOps[] = {
    {"gray", nullptr, "gray", "BGR -> gray (cv::cvtColor BGR2GRAY); gray passes through", make_gray},
    {"histogram", "hist", "histogram, hist", "256-bin counts to NAME.hist.csv (and NAME.hist.png with --plot); image unchanged", make_histogram},
    {"equalize", nullptr, "equalize", "cv::equalizeHist; colour: equalize Y of YCrCb, keep chroma", make_equalize},
    {"conv", nullptr, "conv:FILE, conv:[a b; c d]",
     "correlation with a kernel up to 31x31 (cv::filter2D; rank 1: cv::sepFilter2D). FILE: a row per line, '#' comments",
     make_conv},
    {"gauss", nullptr, "gauss:K[:SIGMA]", "Gaussian blur KxK, K odd 1..31, SIGMA 0 = from K (cv::GaussianBlur)", make_gauss},
    {"box", nullptr, "box:K", "mean filter KxK, K 1..31 (cv::blur)", make_box},
    {"sobel", nullptr, "sobel[:dx|:dy]", "gradient magnitude, or |dx| / |dy| (3x3 cv::Sobel in 16 bits)", make_sobel},
    {"laplacian", nullptr, "laplacian", "|Laplacian| (cv::Laplacian ksize 1, cv::convertScaleAbs)", make_laplacian},
    {"sharpen", nullptr, "sharpen[:AMOUNT]", "unsharp mask with a 5x5 Gaussian, AMOUNT >= 0, default 1 (cv::addWeighted)",
     make_sharpen},
};

Operation make_operation(const OpSpec& spec, const PipelineOptions& options) {
  for (const OpDef& d : kOps)
    if (spec.name == d.name || (d.alias && spec.name == d.alias)) return d.make(spec, options);
  std::string known;
  for (const auto& n : known_operations()) known += (known.empty() ? "" : ", ") + n;
  throw Error(ErrorCategory::usage, "unknown operation '" + spec.name + "' (known: " + known + ")");
}

}  // namespace

std::vector<std::string> known_operations() {
  std::vector<std::string> names;
  for (const OpDef& d : kOps) names.emplace_back(d.name);
  return names;
}

std::string operations_help() {
  std::string out;
  for (const OpDef& d : kOps) {
    std::string syntax = d.syntax;
    if (syntax.size() < 26) syntax.resize(26, ' ');
    out += "  " + syntax + " " + d.help + "\n";
  }
  return out;
}

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
  for (const auto& s : impl_->specs) impl_->ops.push_back(make_operation(s, options));
}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

Backend Pipeline::backend() const { return impl_->backend; }
const std::vector<OpSpec>& Pipeline::ops() const { return impl_->specs; }
const PipelineOptions& Pipeline::options() const { return impl_->options; }

cv::Mat Pipeline::run(const cv::Mat& image, long index, std::vector<SideOutput>* side_outputs, const DeviceSink& sink) {
  if (image.depth() != CV_8U || (image.channels() != 1 && image.channels() != 3))
    throw Error(ErrorCategory::unsupported, "pipeline input must be 8-bit with 1 or 3 channels");
  Impl& p = *impl_;
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
