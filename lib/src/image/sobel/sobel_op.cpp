// The sobel operation: gradient magnitude, or |dx| or |dy|.
#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/sobel.hpp"

namespace wk::image::detail {

namespace {

constexpr OpArg kArgs[] = {
    {"DERIVATIVE", ArgKind::choice, "dx or dy (none: the magnitude)", "", 0, 0, false, "dx|dy"},
};

Operation bind(const OpValues& v, const PipelineOptions& options) {
  const SobelOutput what = v.choice == "dx" ? SobelOutput::dx : v.choice == "dy" ? SobelOutput::dy : SobelOutput::magnitude;
  const Border b = options.border;
  return same_shape_operation(
      "sobel", [=](ConstImageView in, ImageView out) { sobel_cpu(in, out, what, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { sobel(in, out, what, b, s); });
}

}  // namespace

const OpDecl kSobelOp{{"sobel", nullptr, "gradient magnitude, or |dx| / |dy| (3x3 cv::Sobel in 16 bits)", kArgs, &sobel_rungs},
                      &bind};

}  // namespace wk::image::detail
