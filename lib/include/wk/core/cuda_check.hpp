#pragma once
// WK_CUDA_CHECK(expr): the single way warpkit checks a CUDA runtime call. On failure it throws
// wk::Error{cuda} naming the call, the CUDA error and the source location.
#include <cuda_runtime_api.h>

#include "wk/core/error.hpp"

namespace wk::detail {
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line);

inline void cuda_check(cudaError_t status, const char* expr, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, expr, file, line);
}
}  // namespace wk::detail

#define WK_CUDA_CHECK(expr) ::wk::detail::cuda_check((expr), #expr, __FILE__, __LINE__)

// After a kernel launch: catches bad launch configurations without synchronizing.
#define WK_CUDA_CHECK_LAUNCH() WK_CUDA_CHECK(cudaGetLastError())
