#pragma once
// equalize: histogram equalization of 8-bit images, exactly cv::equalizeHist on gray; colour
// (BGR, or BGRA with alpha passed through) equalizes Y of YCrCb and keeps the chroma, exactly
// cvtColor(BGR2YCrCb) -> equalizeHist(Y) -> cvtColor(YCrCb2BGR).
// GPU: histogram -> LUT (one block: CUB block scan of the histogram, OpenCV's float rule) -> apply.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "wk/core/buffer.hpp"
#include "wk/core/image_view.hpp"
#include "wk/image/histogram.hpp"

namespace wk::image {

// The APOD ladder of equalize (histogram rung + LUT application), slowest to fastest.
enum class EqualizeVariant {
  naive,       // global-atomics histogram, 1 px/thread LUT lookups in global memory
  shared_lut,  // shared-privatized histogram, LUT in shared memory
  vectorized,  // fastest histogram rung, LUT in shared memory, 16 px/thread with 128-bit loads/stores
};

struct EqualizeVariantInfo {
  EqualizeVariant variant;
  const char* name;
  const char* description;
};

std::span<const EqualizeVariantInfo> equalize_variants();
EqualizeVariant equalize_default_variant();
EqualizeVariant parse_equalize_variant(std::string_view name);

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
void equalize(ConstImageView d_src, ImageView d_dst, cudaStream_t stream,
              EqualizeVariant variant = equalize_default_variant(), EqualizeWorkspace* workspace = nullptr);

// CPU: OpenCV's cv::equalizeHist (through YCrCb for colour).
void equalize_cpu(ConstImageView src, ImageView dst);

}  // namespace wk::image
