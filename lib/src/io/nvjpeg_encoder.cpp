#include "io/nvjpeg_encoder.hpp"

#include <string>

#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

#if WK_HAVE_NVJPEG
#include "io/nvjpeg_internal.hpp"
#endif

namespace wk::io {

#if WK_HAVE_NVJPEG

using nvjpeg_status::check;

struct NvjpegEncoder::Impl {
  std::shared_ptr<NvjpegLibrary> library;
  nvjpegHandle_t handle = nullptr;
  nvjpegEncoderState_t state = nullptr;
  // One parameter set per sampling: nvJPEG takes the sampling from the parameters, and gray and
  // colour results may alternate within one job.
  nvjpegEncoderParams_t color = nullptr, gray = nullptr;

  ~Impl() {
    if (color) nvjpegEncoderParamsDestroy(color);
    if (gray) nvjpegEncoderParamsDestroy(gray);
    if (state) nvjpegEncoderStateDestroy(state);
  }
};

NvjpegEncoder::NvjpegEncoder(std::shared_ptr<NvjpegLibrary> library, int quality, cudaStream_t stream)
    : impl_(std::make_unique<Impl>()) {
  if (quality < 1 || quality > 100)
    throw Error(ErrorCategory::usage, "JPEG quality must be 1-100, not " + std::to_string(quality));
  Impl& e = *impl_;
  e.library = std::move(library);
  e.handle = e.library->impl().handle;
  const auto setup = ErrorCategory::unsupported;
  check(nvjpegEncoderStateCreate(e.handle, &e.state, stream), "nvjpegEncoderStateCreate", setup);
  for (auto [params, sampling] : {std::pair{&e.color, NVJPEG_CSS_420}, std::pair{&e.gray, NVJPEG_CSS_GRAY}}) {
    check(nvjpegEncoderParamsCreate(e.handle, params, stream), "nvjpegEncoderParamsCreate", setup);
    check(nvjpegEncoderParamsSetQuality(*params, quality, stream), "nvjpegEncoderParamsSetQuality", setup);
    check(nvjpegEncoderParamsSetSamplingFactors(*params, sampling, stream), "nvjpegEncoderParamsSetSamplingFactors",
          setup);
    check(nvjpegEncoderParamsSetOptimizedHuffman(*params, 0, stream), "nvjpegEncoderParamsSetOptimizedHuffman", setup);
    check(nvjpegEncoderParamsSetEncoding(*params, NVJPEG_ENCODING_BASELINE_DCT, stream),
          "nvjpegEncoderParamsSetEncoding", setup);
  }
}

NvjpegEncoder::~NvjpegEncoder() = default;

std::vector<std::uint8_t> NvjpegEncoder::encode(const DeviceImage& image, cudaStream_t stream) {
  Impl& e = *impl_;
  if (image.channels() != 1 && image.channels() != 3)
    throw Error(ErrorCategory::unsupported, "nvJPEG encodes 1- or 3-channel images, not " +
                                                std::to_string(image.channels()) + "-channel ones");
  nvjpegImage_t source{};
  source.channel[0] = image.view().data;
  source.pitch[0] = image.pitch_bytes();
  const auto refused = ErrorCategory::unsupported;
  if (image.channels() == 1) {
    // A gray image is the Y plane of a one-component JPEG.
    check(nvjpegEncodeYUV(e.handle, e.state, e.gray, &source, NVJPEG_CSS_GRAY, image.width(), image.height(), stream),
          "nvjpegEncodeYUV", refused);
  } else {
    check(nvjpegEncodeImage(e.handle, e.state, e.color, &source, NVJPEG_INPUT_BGRI, image.width(), image.height(),
                            stream),
          "nvjpegEncodeImage", refused);
  }
  std::size_t length = 0;
  check(nvjpegEncodeRetrieveBitstream(e.handle, e.state, nullptr, &length, stream), "nvjpegEncodeRetrieveBitstream",
        refused);
  wait_sleeping(stream);
  std::vector<std::uint8_t> jpeg(length);
  check(nvjpegEncodeRetrieveBitstream(e.handle, e.state, jpeg.data(), &length, stream), "nvjpegEncodeRetrieveBitstream",
        refused);
  wait_sleeping(stream);
  jpeg.resize(length);
  return jpeg;
}

#else  // no nvJPEG in this build

struct NvjpegEncoder::Impl {};

NvjpegEncoder::NvjpegEncoder(std::shared_ptr<NvjpegLibrary>, int, cudaStream_t) {
  throw Error(ErrorCategory::unsupported, "this build of warpkit has no nvJPEG");
}
NvjpegEncoder::~NvjpegEncoder() = default;
std::vector<std::uint8_t> NvjpegEncoder::encode(const DeviceImage&, cudaStream_t) {
  throw Error(ErrorCategory::unsupported, "this build of warpkit has no nvJPEG");
}

#endif

}  // namespace wk::io
