// The gray operation: BGR to gray; a gray image passes through.
#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/gray.hpp"

namespace wk::image::detail {

namespace {

Operation bind(const OpValues&, const PipelineOptions&) {
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

}  // namespace

const OpDecl kGrayOp{{"gray", nullptr, "BGR -> gray (cv::cvtColor BGR2GRAY); gray passes through", {}, &gray_rungs}, &bind};

}  // namespace wk::image::detail
