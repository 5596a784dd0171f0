#pragma once
// equalize: histogram equalization of 8-bit images, exactly cv::equalizeHist on gray; colour
// (BGR, or BGRA with alpha passed through) equalizes Y of YCrCb and keeps the chroma, exactly
// cvtColor(BGR2YCrCb) -> equalizeHist(Y) -> cvtColor(YCrCb2BGR).
// GPU: histogram -> LUT (one block: CUB block scan of the histogram, OpenCV's float rule) -> apply.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string_view>

#include "wk/core/buffer.hpp"
#include "wk/core/image_view.hpp"
#include "wk/image/histogram.hpp"

namespace wk::image {

// Device scratch for one equalize call in flight: histogram, LUT and the histogram workspace.
// Without one, equalize allocates stream-ordered temporaries (cudaMallocAsync) per call.
struct EqualizeWorkspace {
  EqualizeWorkspace() : histogram(kHistogramBins), lut(kHistogramBins) {}
  DeviceBuffer<std::uint32_t> histogram;
  DeviceBuffer<std::uint8_t> lut;
  HistogramWorkspace histogram_workspace;
};

// GPU: d_src and d_dst are device images of the same size and channel count (1, 3 or 4).
// Asynchronous on `stream`. In-place (d_dst == d_src) is allowed.
// `rung`: a rung of find_operation("equalize")->rungs() by name, empty for the tuned default; one
// that does not apply gives way to the default. Returns the name of the rung that ran ("" for an
// empty image).
const char* equalize(ConstImageView d_src, ImageView d_dst, cudaStream_t stream, EqualizeWorkspace* workspace = nullptr,
                     std::string_view rung = {});

// CPU: OpenCV's cv::equalizeHist (through YCrCb for colour).
void equalize_cpu(ConstImageView src, ImageView dst);

}  // namespace wk::image
