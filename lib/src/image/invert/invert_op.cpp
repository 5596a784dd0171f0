// The invert operation: the photographic negative.
#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/invert.hpp"

namespace wk::image::detail {

namespace {

Operation bind(const OpValues&, const PipelineOptions&) {
  return same_shape_operation(
      "invert", [](ConstImageView in, ImageView out) { invert_cpu(in, out); },
      [](ConstImageView in, ImageView out, cudaStream_t s) { invert(in, out, s); });
}

}  // namespace

const OpDecl kInvertOp{{"invert", "negate", "photographic negative, 255 - v (cv::bitwise_not)", {}, &invert_rungs}, &bind};

}  // namespace wk::image::detail
