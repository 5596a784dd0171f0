// The gauss operation: K x K Gaussian blur. Its argument rules are also the library's
// (check_gauss_args).
#include <cmath>

#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/gauss.hpp"

namespace wk::image::detail {

namespace {

constexpr OpArg kArgs[] = {
    {"K", ArgKind::integer, "an odd number from 1 to 31", nullptr, 1, kMaxKernelSize, true},
    {"SIGMA", ArgKind::number, "a finite standard deviation sigma >= 0 (0: from K)", "0", 0, HUGE_VAL},
};

Operation bind(const OpValues& v, const PipelineOptions& options) {
  const int k = v.integer(0);
  const double sigma = v.number(1);
  const Border b = options.border;
  return same_shape_operation(
      "gauss", [=](ConstImageView in, ImageView out) { gauss_cpu(in, out, k, sigma, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { gauss(in, out, k, sigma, b, s); });
}

}  // namespace

const OpDecl kGaussOp{{"gauss", nullptr, "Gaussian blur KxK (cv::GaussianBlur)", kArgs, &gauss_rungs}, &bind};

}  // namespace wk::image::detail
