// The box operation: K x K mean filter. Its argument rule is also the library's (check_box_args).
#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/box.hpp"

namespace wk::image::detail {

namespace {

constexpr OpArg kArgs[] = {
    {"K", ArgKind::integer, "a number from 1 to 31", nullptr, 1, kMaxKernelSize},
};

Operation bind(const OpValues& v, const PipelineOptions& options) {
  const int k = v.integer(0);
  const Border b = options.border;
  return same_shape_operation(
      "box", [=](ConstImageView in, ImageView out) { box_cpu(in, out, k, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { box(in, out, k, b, s); });
}

}  // namespace

const OpDecl kBoxOp{{"box", nullptr, "mean filter KxK (cv::blur)", kArgs, &taps_rung_infos}, &bind};

}  // namespace wk::image::detail
