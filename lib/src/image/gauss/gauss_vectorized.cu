// The `vectorized_5x5` rung of gauss: cv::GaussianBlur 3 x 3 and 5 x 5 on 1-channel 8-bit images,
// bit-exact, built like a copy (the streaming geometry of the vectorized 3 x 3 stencil, see
// image/filter/stencil3x3.cu): every input byte comes from DRAM once, every output byte is written
// once, all accesses full-width and coalesced.
//
// Geometry. A warp covers 512 columns and P::rows_per_warp rows; a block stacks P::warps warps down.
// Lane L owns two chunks of 8 columns, at base + 8L and base + 256 + 8L (each 64-bit load and
// store is one piece of a contiguous 256-byte warp access). The lane walks its rows down, loading
// P::rows_ahead rows before their use.
//
// Arithmetic. OpenCV's 8-bit Gaussian is exact integer arithmetic: coefficients c with 8 fraction
// bits summing to 256, out = (sum_i c_i sum_j c_j in + 2^15) >> 16 with no rounding in between, so
// the two passes may run in either order. This kernel runs the vertical pass first, in SIMD within
// a register: two neighbouring columns are the 16-bit lanes of one word, and every vertical sum is
// at most 256 * 255 = 65280, so no lane ever carries into the next (the weights are symmetric:
// 3 multiplies and 2 adds per word for 5 taps, i.e. per 2 pixels). The horizontal pass then needs
// 32 bits (sums up to 2^24): per pixel one unpack, 2 adds and 3 multiply-adds with 2^15 as the
// start value, and the output byte is byte 2 of the sum (one byte permute packs four of them).
// The vertical sums of columns x0 - 2, x0 - 1 and x0 + 8, x0 + 9 come from the neighbouring lanes
// by shuffles; lane 0 (left of chunk 0) and lane 31 (right of chunk 1) load those columns
// themselves.
//
// Borders cost nothing in the loop: a 5 x 5 stencil reads only columns -2, -1, W, W + 1 and rows
// -2, -1, H, H + 1 outside the image; their source columns and rows are resolved once on the host.
// A chunk that reaches past the right edge (W not a multiple of 8, or the chunk after the last)
// assembles its bytes one by one with those columns; it is one or two lanes per row of one warp.
#include <cuda_runtime.h>

#include <cstdint>

#include "image/gauss/gauss_gpu.hpp"
#include "image/gauss/gauss_stream.cuh"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

using gauss_stream::kChunkPx;
using gauss_stream::kNone;
constexpr int kChunks = 2;                        // chunks per lane, 256 columns apart
constexpr int kWarpPx = 32 * kChunkPx * kChunks;  // 512 columns per warp
constexpr int kMaxR = 2;

using DefaultPolicy = gauss_stream::Policy<4, 16, 3, 4>;

struct GaussVecArgs : gauss_stream::StreamArgs<kMaxR> {
  unsigned weight[kMaxR + 1];  // weight[d]: the tap at distance d from the centre (symmetric kernel)
};

// What one lane does across its rows; fixed for the whole kernel.
template <int R>
struct LanePlan {
  int x0[kChunks];
  bool full[kChunks];      // x0 + 8 <= W: one 64-bit load
  bool partial[kChunks];   // else x0 < W + R: byte by byte (columns >= W from right_cols)
  int left_col[kMaxR];     // lane 0: columns x0[0] - R .. x0[0] - 1 (resolved); else kNone
  int right_col[kMaxR];    // lane 31: columns x0[1] + 8 .. x0[1] + 8 + R - 1 (resolved); else kNone
};

template <int R>
__device__ __forceinline__ LanePlan<R> plan_lane(const GaussVecArgs& a, int base, int lane) {
  LanePlan<R> p;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    p.x0[k] = base + k * 32 * kChunkPx + lane * kChunkPx;
    p.full[k] = p.x0[k] + kChunkPx <= a.width;
    p.partial[k] = !p.full[k] && p.x0[k] < a.width + R;
  }
#pragma unroll
  for (int q = 0; q < R; ++q) {
    p.left_col[q] = lane == 0 ? gauss_stream::resolve_col<R>(a, p.x0[0] - R + q) : kNone;
    p.right_col[q] = lane == 31 ? gauss_stream::resolve_col<R>(a, p.x0[1] + kChunkPx + q) : kNone;
  }
  return p;
}

// One input row as a lane loads it: its two chunks and the halo bytes it loads itself.
template <int R>
struct RawRow {
  uint2 chunk[kChunks];
  unsigned left[R], right[R];
};

// Input row r (-R <= r < H + rows per warp + R) with the border applied; rows past H + R - 1 only
// feed outputs that are not stored (they read row H - 1). The branches are the same for the warp.
template <int R>
__device__ __forceinline__ RawRow<R> load_row(const GaussVecArgs& a, const LanePlan<R>& p, int r) {
  RawRow<R> raw;
  const int ys = gauss_stream::source_row<R>(a, r);
  if (ys < 0) {  // constant border row
    const unsigned v4 = a.border_value * 0x01010101u;
#pragma unroll
    for (int k = 0; k < kChunks; ++k) raw.chunk[k] = make_uint2(v4, v4);
#pragma unroll
    for (int q = 0; q < R; ++q) raw.left[q] = raw.right[q] = a.border_value;
    return raw;
  }
  const std::uint8_t* row = a.src + std::size_t(ys) * a.src_pitch;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    if (p.full[k]) raw.chunk[k] = __ldg(reinterpret_cast<const uint2*>(row + p.x0[k]));
    else if (p.partial[k]) raw.chunk[k] = gauss_stream::load_partial_chunk<R>(a, row, p.x0[k]);
    else raw.chunk[k] = make_uint2(0u, 0u);
  }
#pragma unroll
  for (int q = 0; q < R; ++q) {
    raw.left[q] = gauss_stream::load_byte(row, p.left_col[q], a.border_value);
    raw.right[q] = gauss_stream::load_byte(row, p.right_col[q], a.border_value);
  }
  return raw;
}

// A row as 16-bit column pairs: pair[k][j] = columns (x0 + 2j, x0 + 2j + 1) of chunk k in the low
// and high lanes; left = columns (x0[0] - 2, x0[0] - 1), right = (x0[1] + 8, x0[1] + 9) (the lane's
// own halo loads; only lanes 0 and 31 have real ones). For R = 1 the outer halves are unused.
struct Pairs {
  unsigned pair[kChunks][4];
  unsigned left, right;
};

template <int R>
__device__ __forceinline__ Pairs to_pairs(const RawRow<R>& raw) {
  Pairs p;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    p.pair[k][0] = __byte_perm(raw.chunk[k].x, 0u, 0x4140);
    p.pair[k][1] = __byte_perm(raw.chunk[k].x, 0u, 0x4342);
    p.pair[k][2] = __byte_perm(raw.chunk[k].y, 0u, 0x4140);
    p.pair[k][3] = __byte_perm(raw.chunk[k].y, 0u, 0x4342);
  }
  if constexpr (R == 2) {
    p.left = raw.left[0] | raw.left[1] << 16;
    p.right = raw.right[0] | raw.right[1] << 16;
  } else {
    p.left = raw.left[0] << 16;
    p.right = raw.right[0];
  }
  return p;
}

// Vertical pass on one pair word from the 2R + 1 rows around it (row[R] is the centre): exact in
// each 16-bit lane (at most 65280).
template <int R>
__device__ __forceinline__ unsigned vertical(const GaussVecArgs& a, const unsigned (&row)[2 * R + 1]) {
  unsigned v = a.weight[0] * row[R];
#pragma unroll
  for (int d = 1; d <= R; ++d) v += a.weight[d] * (row[R - d] + row[R + d]);
  return v;
}

// Horizontal pass and store of one chunk's 8 outputs from its vertical sums, with the two pairs
// either side (left: columns x0 - 2, x0 - 1; right: x0 + 8, x0 + 9).
template <int R>
__device__ __forceinline__ void store_chunk(const GaussVecArgs& a, const LanePlan<R>& p, int k, int y, const unsigned (&v)[4],
                                            unsigned left, unsigned right) {
  if (!p.full[k] && !(p.partial[k] && p.x0[k] < a.width)) return;
  // u[i] = the vertical sum of column x0 - 2 + i, i = 0 .. 11.
  unsigned u[12];
  u[0] = left & 0xFFFFu;
  u[1] = left >> 16;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    u[2 + 2 * j] = v[j] & 0xFFFFu;
    u[3 + 2 * j] = v[j] >> 16;
  }
  u[10] = right & 0xFFFFu;
  u[11] = right >> 16;
  unsigned out[kChunkPx];  // the result in byte 2
#pragma unroll
  for (int q = 0; q < kChunkPx; ++q) {
    unsigned s = a.weight[0] * u[q + 2] + (1u << 15);
#pragma unroll
    for (int d = 1; d <= R; ++d) s += a.weight[d] * (u[q + 2 - d] + u[q + 2 + d]);
    out[q] = s;
  }
  gauss_stream::store_bytes(a, p.x0[k], y, gauss_stream::pack_byte2(out));
}

// The live state is P::rows_ahead raw rows, 2R + 1 rows of pairs and the horizontal pass's 12
// words: 116 registers for 5 x 5 with DefaultPolicy (ptxas, CUDA 13.0, sm_90), no spills.
template <int R, class P>
__global__ void __launch_bounds__(P::threads, P::min_blocks) gauss_vectorized_kernel(const __grid_constant__ GaussVecArgs a) {
  constexpr int kRowsPerWarp = P::rows_per_warp, kRowsAhead = P::rows_ahead;
  const int y0 = (blockIdx.y * P::warps + threadIdx.y) * kRowsPerWarp;
  if (y0 >= a.height) return;  // whole warps only: the shuffles need all 32 lanes
  const LanePlan<R> plan = plan_lane<R>(a, blockIdx.x * kWarpPx, threadIdx.x);
  const int lane = threadIdx.x, prev = (lane + 31) & 31, next = (lane + 1) & 31;

  // Input rows y0 - R .. y0 + kRowsPerWarp + R - 1. Fully unrolled: the arrays are registers, and
  // only kRowsAhead + 1 raw rows and 2R + 1 rows of pairs are live at a time.
  constexpr int K = 2 * R + 1;
  constexpr int kInRows = kRowsPerWarp + 2 * R;
  RawRow<R> raw[kInRows];
  Pairs rows[kInRows];
#pragma unroll
  for (int i = 0; i < kRowsAhead && i < kInRows; ++i) raw[i] = load_row<R>(a, plan, y0 - R + i);
#pragma unroll
  for (int i = 0; i < kInRows; ++i) {
    if (i + kRowsAhead < kInRows) raw[i + kRowsAhead] = load_row<R>(a, plan, y0 - R + i + kRowsAhead);
    rows[i] = to_pairs<R>(raw[i]);
    if (i < K - 1) continue;
    const int y = y0 + i - 2 * R;  // the output row whose window ends at input row i
    // Vertical sums of every pair word of the lane.
    unsigned v[kChunks][4], vl, vr;
    {
      unsigned col[K];
#pragma unroll
      for (int k = 0; k < kChunks; ++k)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
#pragma unroll
          for (int t = 0; t < K; ++t) col[t] = rows[i - 2 * R + t].pair[k][j];
          v[k][j] = vertical<R>(a, col);
        }
#pragma unroll
      for (int t = 0; t < K; ++t) col[t] = rows[i - 2 * R + t].left;
      vl = vertical<R>(a, col);
#pragma unroll
      for (int t = 0; t < K; ++t) col[t] = rows[i - 2 * R + t].right;
      vr = vertical<R>(a, col);
    }
    // The neighbouring pairs: chunk k's left is the previous chunk's last pair (lane - 1; lane 0's
    // chunk 1 follows lane 31's chunk 0), its right the next chunk's first pair.
    const unsigned prev0 = __shfl_sync(0xFFFFFFFFu, v[0][3], prev);
    const unsigned prev1 = __shfl_sync(0xFFFFFFFFu, v[1][3], prev);
    const unsigned next0 = __shfl_sync(0xFFFFFFFFu, v[0][0], next);
    const unsigned next1 = __shfl_sync(0xFFFFFFFFu, v[1][0], next);
    if (y >= a.height) continue;
    store_chunk<R>(a, plan, 0, y, v[0], lane == 0 ? vl : prev0, lane == 31 ? next1 : next0);
    store_chunk<R>(a, plan, 1, y, v[1], lane == 0 ? prev0 : prev1, lane == 31 ? vr : next1);
  }
}

template <int R, class P = DefaultPolicy>
void launch(const GaussVecArgs& a, cudaStream_t stream) {
  const dim3 grid((a.width + kWarpPx - 1) / kWarpPx, (a.height + P::block_rows - 1) / P::block_rows), block(32, P::warps);
  gauss_vectorized_kernel<R, P><<<grid, block, 0, stream>>>(a);
}

}  // namespace

bool gauss_vectorized_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k) {
  return gauss_stream::supported(src, dst, k, 3, 5, 256, DefaultPolicy::block_rows);
}

void gauss_vectorized(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border,
                      cudaStream_t stream) {
  if (!gauss_vectorized_supported(src, dst, k)) throw Error(ErrorCategory::internal, "gauss_vectorized: unsupported call");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::internal, "gauss_vectorized: sizes differ");
  if (src.width == 0 || src.height == 0) return;
  const int R = static_cast<int>(k.size()) / 2;
  GaussVecArgs a{};
  gauss_stream::set_borders(a, R, src, dst, border);
  for (int d = 0; d <= R; ++d) a.weight[d] = static_cast<unsigned>(k[R + d]);
  if (R == 1) launch<1>(a, stream);
  else launch<2>(a, stream);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
