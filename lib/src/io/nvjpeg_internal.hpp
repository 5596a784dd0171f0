#pragma once
// What nvjpeg_decoder.cpp and nvjpeg_encoder.cpp share: nvJPEG status codes as warpkit errors
// and the library handle. Include only where nvjpeg.h is available (WK_HAVE_NVJPEG).
#include <nvjpeg.h>

#include <string>

#include "io/nvjpeg_decoder.hpp"
#include "wk/core/error.hpp"

namespace wk::io::nvjpeg_status {

inline const char* name(nvjpegStatus_t s) {
  switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "success";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "not initialized";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "invalid parameter";
    case NVJPEG_STATUS_BAD_JPEG: return "bad JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "JPEG not supported";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "allocation failed";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "execution failed";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "internal error";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "implementation not supported";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "incomplete bitstream";
  }
  return "unknown status";
}

inline std::string describe(const char* call, nvjpegStatus_t s) {
  return std::string(call) + ": " + name(s) + " (nvJPEG status " + std::to_string(int(s)) + ")";
}

// The one way nvJPEG calls are checked: an allocation failure is out of device (or pinned)
// memory, a CUDA-category error the folder job answers with smaller batches or the CPU path;
// anything else is `category`.
inline void check(nvjpegStatus_t s, const char* call, ErrorCategory category) {
  if (s == NVJPEG_STATUS_SUCCESS) return;
  throw Error(s == NVJPEG_STATUS_ALLOCATOR_FAILURE ? ErrorCategory::cuda : category, describe(call, s));
}

}  // namespace wk::io::nvjpeg_status

namespace wk::io {

struct NvjpegLibrary::Impl {
  nvjpegHandle_t handle = nullptr;
  bool hardware = false;
  std::string name;
};

}  // namespace wk::io
