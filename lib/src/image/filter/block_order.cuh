#pragma once
// Internal: the order in which a streaming filter's blocks run (gauss_wide.cu). Its grid is one
// block per strip of columns and band of rows; the first and last block columns hold the image's
// left and right edges, whose warps take the border path -- and at the right, where a 240-column
// strip is mostly past the edge (8192 = 34 x 240 + 32), byte-wise loads for most lanes -- and run
// much longer than the others. In the hardware's order (blockIdx.x fastest) the last band's edge
// blocks start last and finish long after the rest: on the H100 the SMs sat idle for ~20 % of a
// 15 x 15 Gaussian's time. Running the edge columns first lets the other blocks fill in behind
// them (15 x 15 577 -> ~695 Gpx/s; docs/apod/gauss.md). The 512-column kernels (gauss_vectorized.cu,
// stencil3x3.cu), whose strips divide such widths evenly, measured no gain from it and keep the
// hardware's order.
#include <cuda_runtime.h>

namespace wk::image::detail {

struct BlockXY {
  int x, y;
};

// The block (column, band) this block runs: the launch's blocks in the hardware's order take both
// edge columns band by band first (left, right, left, ...), then the inner columns in row order.
// The identity for grids of fewer than 3 columns.
__device__ __forceinline__ BlockXY edge_columns_first() {
  const int nbx = int(gridDim.x), nby = int(gridDim.y);
  if (nbx < 3) return {int(blockIdx.x), int(blockIdx.y)};
  const int id = int(blockIdx.x) + int(blockIdx.y) * nbx, edges = 2 * nby;
  if (id < edges) return {(id & 1) ? nbx - 1 : 0, id >> 1};
  const int i = id - edges, inner = nbx - 2;
  return {1 + i % inner, i / inner};
}

}  // namespace wk::image::detail
