#pragma once
// Batched GPU JPEG decoding with nvJPEG for the folder job: one thread per GPU owns an
// NvjpegDecoder (its decode states, as nvJPEG requires per thread), the workers of that GPU
// inspect files with their own NvjpegParser, and all of them share that device's NvjpegLibrary
// (the library handle is thread safe). The decoded pixels land in device buffers, so JPEG inputs
// skip the h2d stage.
//
// nvjpeg.h stays inside nvjpeg_decoder.cpp: builds without nvJPEG (WK_HAVE_NVJPEG unset) compile
// the same interface, and every constructor there throws Error{unsupported}.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "wk/core/buffer.hpp"

namespace wk::io {

// True when this build has nvJPEG.
bool nvjpeg_in_build() noexcept;

// The nvJPEG library handle of one device.
class NvjpegLibrary {
 public:
  // On the current CUDA device: the hardware backend (the JPEG engines of A100, H100, ...) when
  // nvjpegCreateEx accepts it, else the default (CUDA) backend; each with interpolated chroma
  // upsampling where the library accepts that flag (closer to libjpeg's "fancy" upsampling than
  // pixel replication). The environment variable WK_NVJPEG_BACKEND=cuda skips the hardware
  // backend; so does allow_hardware = false (the encoder's handle: nvJPEG encodes with CUDA kernels).
  // Throws Error{unsupported} naming the nvJPEG status when none starts.
  explicit NvjpegLibrary(bool allow_hardware = true);
  ~NvjpegLibrary();
  NvjpegLibrary(const NvjpegLibrary&) = delete;
  NvjpegLibrary& operator=(const NvjpegLibrary&) = delete;

  bool hardware() const;            // the hardware backend is in use
  const std::string& name() const;  // "nvjpeg-hw" or "nvjpeg": the report's decoder name

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// What nvJPEG will produce for one JPEG.
struct NvjpegImageInfo {
  int width = 0, height = 0;
  int channels = 0;  // 1: gray JPEG (decoded as Y), 3: colour JPEG (decoded as interleaved BGR)
};

// nvJPEG's look at one JPEG before a batched decode, on any thread: each thread its own parser
// (nvJPEG's JPEG-stream objects are per thread), all of one device on the shared library handle.
// The folder job's workers inspect the files they read, so the decoding thread only decodes
// (inspection was ~0.35 ms of its ~1.24 ms per 4K JPEG on the H100, docs/benchmarks.md).
class NvjpegParser {
 public:
  explicit NvjpegParser(std::shared_ptr<NvjpegLibrary> library);
  ~NvjpegParser();
  NvjpegParser(const NvjpegParser&) = delete;
  NvjpegParser& operator=(const NvjpegParser&) = delete;

  // nvjpegGetImageInfo (size, components, chroma subsampling) and, with the hardware backend,
  // nvjpegJpegStreamParseHeader + nvjpegDecodeBatchedSupported (baseline, single scan, no
  // 4:1:0 / 4:1:1). Returns "" and fills `info` when NvjpegDecoder::decode_batch can take this
  // JPEG, else why not (a message naming the nvJPEG call and status, or the unsupported feature).
  std::string inspect(std::span<const std::uint8_t> jpeg, NvjpegImageInfo& info);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

class NvjpegDecoder {
 public:
  explicit NvjpegDecoder(std::shared_ptr<NvjpegLibrary> library);
  ~NvjpegDecoder();
  NvjpegDecoder(const NvjpegDecoder&) = delete;
  NvjpegDecoder& operator=(const NvjpegDecoder&) = delete;

  const NvjpegLibrary& library() const;

  // NvjpegParser::inspect with this decoder's own parser (on the decoder's thread).
  std::string inspect(std::span<const std::uint8_t> jpeg, NvjpegImageInfo& info);

  // Decodes inspected JPEGs that all have the same channel count with one nvjpegDecodeBatched
  // call on `stream` into `outputs` (each reset to its image's size; reallocated only when it
  // grows), then waits for `stream`. Throws Error{decode} naming the nvJPEG call and status when
  // the batch fails (no output is valid then), Error{cuda} for CUDA failures and nvJPEG
  // allocation failures (out of device memory). `times`, when given, gets the seconds spent
  // inside nvjpegDecodeBatched (host work: nvJPEG parses and stages the bitstreams there) and
  // waiting for `stream` after it.
  struct Times {
    double call_s = 0, sync_s = 0;
  };
  void decode_batch(std::span<const std::span<const std::uint8_t>> jpegs, std::span<const NvjpegImageInfo> infos,
                    std::span<DeviceImage* const> outputs, cudaStream_t stream, Times* times = nullptr);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace wk::io
