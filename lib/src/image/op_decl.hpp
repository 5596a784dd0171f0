#pragma once
// Internal: what an operation's declaration holds besides its public OpInfo, and the pieces the
// pipeline runs. An op is one OpDecl (lib/src/image/<op>/<op>_op.cpp) listed in kOps
// (lib/src/image/ops.cpp); docs/architecture.md walks through adding one.
#include <opencv2/core.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "wk/core/buffer.hpp"
#include "wk/image/filter.hpp"
#include "wk/image/op.hpp"
#include "wk/image/pipeline.hpp"

namespace wk::image::detail {

// The arguments of one use of an op, checked against its OpArgs, defaults filled in.
struct OpValues {
  std::vector<double> numbers;  // per argument: integer and number values (0 for the others)
  std::string choice;           // the choice argument ("" when omitted without a default)
  FilterKernel kernel;          // the kernel argument
  std::string text;             // the text argument
  int integer(std::size_t i) const { return static_cast<int>(numbers.at(i)); }
  double number(std::size_t i) const { return numbers.at(i); }
};

// Checks numeric values against the op's rules; throws wk::Error{usage} "OP: NAME must be RULE,
// not V". The library's own argument checks (check_gauss_args, ...) call it, so the rules live in
// the declaration only.
void check_numbers(const OpInfo& op, std::span<const double> numbers);

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

// What one Pipeline::run collects besides the image.
struct RunState {
  std::vector<SideOutput>* side_outputs = nullptr;
  // GPU: work that needs the stream finished (formatting side outputs from pinned copies).
  std::vector<std::function<void()>> after_sync;
  int histograms = 0;  // numbers the histogram side outputs: .hist, .hist2, ...
};

// One op bound to its values: the CPU reference and the GPU path, as the pipeline runs them.
struct Operation {
  std::string name;
  std::function<void(cv::Mat&, RunState&)> cpu;
  std::function<void(GpuFrame&, cudaStream_t, RunState&)> gpu;
  bool analysis = false;  // reads the image and leaves it unchanged (histogram): side outputs only
  // As the first op: the largest JPEG DCT scale denominator (1, 2, 4 or 8) at which a width x
  // height input (EXIF orientation applied) still holds every pixel the op keeps (thumbnail);
  // empty: 1, the op needs the image at full size.
  std::function<int(int width, int height)> jpeg_shrink;
  // The op on an image of any depth and channel count (16-bit, float, BGRA), through OpenCV on
  // the host: geometry and resize, which are defined on every pixel type. Empty: the op takes
  // 8-bit 1- and 3-channel images only.
  std::function<void(cv::Mat&)> any_depth;
};

struct OpDecl {
  OpInfo info;
  Operation (*bind)(const OpValues& values, const PipelineOptions& options);
};

inline ConstImageView const_view(const cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }
inline ImageView view(cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }

// An op whose output has the input's size and channels, from its CPU reference and GPU entry
// (views in, views out).
Operation same_shape_operation(const char* name, std::function<void(ConstImageView, ImageView)> cpu,
                               std::function<void(ConstImageView, ImageView, cudaStream_t)> gpu);

// An op whose output is `size(width, height)` of the input's, with the input's channels
// (geometry, resize).
using SizeOf = std::function<std::pair<int, int>(int width, int height)>;
Operation sized_operation(const char* name, SizeOf size, std::function<void(ConstImageView, ImageView)> cpu,
                          std::function<void(ConstImageView, ImageView, cudaStream_t)> gpu);

// The declarations, one per file; kOps in ops.cpp lists them in --help order.
extern const OpDecl kGrayOp, kHistogramOp, kEqualizeOp, kConvOp, kGaussOp, kBoxOp, kSobelOp, kLaplacianOp, kSharpenOp,
    kInvertOp, kFlipOp, kRotateOp, kTransposeOp, kCropOp, kResizeOp, kThumbnailOp;

}  // namespace wk::image::detail

namespace wk::image::detail {

// The op that `spec` names, its arguments parsed and checked, bound to `options`. Throws
// wk::Error{usage} "OP: what is wrong ('as written')" for an unknown op or a bad argument, with
// the known names or the expected syntax.
Operation bind_operation(const OpSpec& spec, const PipelineOptions& options);

}  // namespace wk::image::detail
