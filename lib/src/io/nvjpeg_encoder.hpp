#pragma once
// GPU JPEG encoding with nvJPEG for the folder job: a GPU worker whose output is JPEG encodes its
// result where the operations left it, in device memory, and downloads only the compressed
// bytes (a tenth of the pixels at quality 90) instead of the pixels plus a CPU encode.
//
// The settings follow OpenCV's imwrite defaults, so the files are interchangeable: baseline
// JPEG, the standard Huffman tables (no optimized Huffman), the IJG quality scaling of the
// standard quantization tables, 4:2:0 chroma for colour and one component for gray images. The
// DCT and colour conversion differ from libjpeg's, so the bytes differ; decoded pixels agree
// about as closely as OpenCV's own JPEGs (tests/io/test_nvjpeg_gpu.cpp).
//
// nvjpeg.h stays inside nvjpeg_encoder.cpp, as for the decoder: builds without nvJPEG compile the
// same interface and the constructor throws Error{unsupported}.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "io/nvjpeg_decoder.hpp"
#include "wk/core/buffer.hpp"

namespace wk::io {

class NvjpegEncoder {
 public:
  // An encoder state on the current device (one per thread, as nvJPEG requires); `library` is
  // shared by the encoders of a device. quality: 1-100 as OpenCV's IMWRITE_JPEG_QUALITY. Throws
  // Error{unsupported} naming the nvJPEG call and status when the encoder cannot start.
  NvjpegEncoder(std::shared_ptr<NvjpegLibrary> library, int quality, cudaStream_t stream);
  ~NvjpegEncoder();
  NvjpegEncoder(const NvjpegEncoder&) = delete;
  NvjpegEncoder& operator=(const NvjpegEncoder&) = delete;

  // Encodes an 8-bit 1-channel or 3-channel (interleaved BGR) image written in `stream` order,
  // then waits for `stream` and returns the JPEG file's bytes. Throws Error{unsupported} when
  // nvJPEG refuses the image (the caller encodes it on the CPU instead), Error{cuda} for CUDA and
  // allocation failures.
  std::vector<std::uint8_t> encode(const DeviceImage& image, cudaStream_t stream);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace wk::io
