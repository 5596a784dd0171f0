#include "wk/core/error.hpp"

#include <string>

#include "wk/core/cuda_check.hpp"

namespace wk {

const char* to_string(ErrorCategory c) noexcept {
  switch (c) {
    case ErrorCategory::usage: return "usage";
    case ErrorCategory::io: return "io";
    case ErrorCategory::decode: return "decode";
    case ErrorCategory::unsupported: return "unsupported";
    case ErrorCategory::cuda: return "cuda";
    case ErrorCategory::internal: return "internal";
  }
  return "unknown";
}

void throw_error(ErrorCategory category, const std::string& message) { throw Error(category, message); }

namespace detail {
void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line) {
  // Clear a sticky-free error so the next call starts clean; sticky errors stay and say so.
  (void)cudaGetLastError();
  std::string msg = std::string("CUDA error ") + cudaGetErrorName(status) + " (" +
                    cudaGetErrorString(status) + ") in " + expr + " at " + file + ":" +
                    std::to_string(line);
  if (status == cudaErrorMemoryAllocation) msg += "; the GPU is out of memory: try smaller inputs or the CPU backend";
  throw Error(ErrorCategory::cuda, msg);
}
}  // namespace detail

}  // namespace wk
