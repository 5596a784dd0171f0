// The sharpen operation: unsharp mask with a 5 x 5 Gaussian. Its argument rule is also the
// library's (check_sharpen_amount).
#include <cmath>

#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/sharpen.hpp"

namespace wk::image::detail {

namespace {

constexpr OpArg kArgs[] = {
    {"AMOUNT", ArgKind::number, "a finite number >= 0", "1", 0, HUGE_VAL},
};

Operation bind(const OpValues& v, const PipelineOptions& options) {
  const double amount = v.number(0);
  const Border b = options.border;
  return same_shape_operation(
      "sharpen", [=](ConstImageView in, ImageView out) { sharpen_cpu(in, out, amount, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { sharpen(in, out, amount, b, s); });
}

}  // namespace

const OpDecl kSharpenOp{{"sharpen", nullptr, "unsharp mask with a 5x5 Gaussian (cv::addWeighted)", kArgs, &sharpen_rungs}, &bind};

}  // namespace wk::image::detail
