// The laplacian operation: |Laplacian| of the 3 x 3 kernel.
#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/laplacian.hpp"

namespace wk::image::detail {

namespace {

Operation bind(const OpValues&, const PipelineOptions& options) {
  const Border b = options.border;
  return same_shape_operation(
      "laplacian", [=](ConstImageView in, ImageView out) { laplacian_cpu(in, out, b); },
      [=](ConstImageView in, ImageView out, cudaStream_t s) { laplacian(in, out, b, s); });
}

}  // namespace

const OpDecl kLaplacianOp{
    {"laplacian", nullptr, "|Laplacian| (cv::Laplacian ksize 1, cv::convertScaleAbs)", {}, &laplacian_rungs}, &bind};

}  // namespace wk::image::detail
