// The equalize operation: cv::equalizeHist; colour equalizes Y of YCrCb.
#include <memory>
#include <optional>

#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/equalize.hpp"

namespace wk::image::detail {

namespace {

Operation bind(const OpValues&, const PipelineOptions&) {
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
    equalize(in.view(), out.view(), s, &**workspace);
    f.swap();
  };
  return op;
}

}  // namespace

const OpDecl kEqualizeOp{{"equalize", nullptr, "cv::equalizeHist; colour: equalize Y of YCrCb, keep chroma", {}, &equalize_rungs},
                         &bind};

}  // namespace wk::image::detail
