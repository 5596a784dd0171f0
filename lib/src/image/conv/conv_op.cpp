// The conv operation: correlation with a kernel given inline or in a file.
#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/conv.hpp"

namespace wk::image::detail {

namespace {

constexpr OpArg kArgs[] = {
    {"KERNEL", ArgKind::kernel, "[a b; c d] (rows separated by ';') or a file, a row per line, '#' comments"},
};

Operation bind(const OpValues& v, const PipelineOptions& options) {
  const FilterKernel k = v.kernel;
  const Border b = options.border;
  return same_shape_operation(
      "conv", [k, b](ConstImageView in, ImageView out) { conv_cpu(in, out, k, b); },
      [k, b](ConstImageView in, ImageView out, cudaStream_t s) { conv(in, out, k, b, s); });
}

}  // namespace

const OpDecl kConvOp{{"conv", nullptr, "correlation with a kernel up to 31x31 (cv::filter2D; rank 1: cv::sepFilter2D)", kArgs,
                      &taps_rung_infos},
                     &bind};

}  // namespace wk::image::detail
