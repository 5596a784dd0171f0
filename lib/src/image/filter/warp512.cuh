#pragma once
// Internal: the 512-column warp of the streaming 3x3 and 5x5 kernels (stencil3x3.cu: sobel,
// laplacian; gauss_vectorized.cu). Lane L owns two 8-column chunks, x0[0] = base + 8L and
// x0[1] = x0[0] + 256, so each of a warp's loads and stores is a contiguous 256-byte piece.
#include <cuda_runtime.h>

#include <cstdint>

namespace wk::image::detail::warp512 {

constexpr int kChunkPx = 8;                       // columns per chunk: one 64-bit load
constexpr int kChunks = 2;                        // chunks per lane, 256 columns apart
constexpr int kWarpPx = 32 * kChunkPx * kChunks;  // 512 columns per warp

// One input row of an interior warp (every column from x0[0] - 4 of lane 0 to x0[1] + 11 of lane
// 31 lies inside the row): the lane's two chunks, and the returned halo word -- lane 0's the 4
// columns left of its chunk 0, lane 31's the 4 right of its chunk 1, one aligned 32-bit load
// each; 0 for the other lanes.
__device__ __forceinline__ unsigned load_interior_row(const std::uint8_t* row, const int (&x0)[kChunks], int lane,
                                                      uint2 (&chunk)[kChunks]) {
#pragma unroll
  for (int k = 0; k < kChunks; ++k) chunk[k] = __ldg(reinterpret_cast<const uint2*>(row + x0[k]));
  if (lane != 0 && lane != 31) return 0u;
  return __ldg(reinterpret_cast<const unsigned*>(row + (lane == 0 ? x0[0] - 4 : x0[1] + kChunkPx)));
}

}  // namespace wk::image::detail::warp512
