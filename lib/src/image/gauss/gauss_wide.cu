// The `vectorized_wide` rung of gauss: cv::GaussianBlur 5 x 5 .. 15 x 15 on 1-channel 8-bit
// images, bit-exact, streaming like a copy (gauss_vectorized.cu: 3 x 3 and 5 x 5, the default
// there; the two measure the same at 5 x 5).
//
// Arithmetic. OpenCV's 8-bit Gaussian is exact integer arithmetic (coefficients with 8 fraction
// bits summing to 256, out = (sum_i c_i sum_j c_j in + 2^15) >> 16), so the vertical pass may run
// first. It runs in SIMD within a register: a word holds two columns of the same parity in its
// 16-bit lanes -- E = (c0, c2), O = (c1, c3) of each 4 bytes, one PRMT each -- and every vertical
// sum is at most 256 * 255 = 65280, so no lane carries into the next (each input row, unpacked
// once, is multiplied into the 2R + 1 output rows in progress). The horizontal pass is 16 x 8-bit dot products:
// dp2a multiplies a word's two 16-bit sums by two 8-bit weights and adds both to a 32-bit
// accumulator started at 2^15 (sums stay below 2^24: exact), so a pixel costs about R + 1 dp2a; the
// weight pairs, one per distance, are kernel parameters. The output byte is byte 2 of the sum.
//
// Geometry. A lane owns 8 columns (one 64-bit load per row) and walks P::rows_per_warp rows; lanes
// 0 and 31 only load the halo of their neighbours (R <= 7 < 8), so a warp stores 240 columns; the
// neighbours' vertical sums come by shuffles. Borders: columns -R .. -1, W .. W + R - 1 and rows
// -R .. -1, H .. H + R - 1 are resolved once on the host; a chunk not wholly inside the row
// assembles its bytes one by one. Interior warps run a copy of the row walk without border logic.
#include <cuda_runtime.h>

#include <cstdint>

#include "image/gauss/gauss_gpu.hpp"
#include "image/gauss/gauss_stream.cuh"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

using gauss_stream::kChunkPx;                // columns per lane: one 64-bit load
constexpr int kWarpOutPx = 30 * kChunkPx;   // lanes 1..30 store: 240 columns per warp
constexpr int kWords = 12;                  // pair words of the left, own and right chunks
constexpr int kMinR = 2, kMaxR = 7;

// 8 warps of 8 rows, 4 rows ahead, 2 blocks per SM: the best at 15x15 of a sweep on the H100
// (docs/apod/gauss.md).
using WidePolicy = gauss_stream::Policy<8, 8, 4, 2>;

struct GaussWideArgs : gauss_stream::StreamArgs<kMaxR> {
  unsigned vweight[kMaxR + 1];      // vweight[d]: the tap at distance d from the centre
  // The weights of a pair word's two columns, at distances lo and lo + 2 from the output column,
  // in bytes 0 and 1: hpair[lo + R + 2], lo = -R - 2 .. R (2R + 3 distinct words, few enough to
  // stay in uniform registers across the row loop).
  unsigned hpair[2 * kMaxR + 3];
};

// Pair word j = 4c + w: chunk c (0 left, 1 own, 2 right), word w (E0 = columns 0, 2; O0 = 1, 3;
// E1 = 4, 6; O1 = 5, 7 of the chunk). Column of its low lane relative to the own chunk's x0:
__host__ __device__ constexpr int word_col(int j) { return 8 * (j / 4 - 1) + (j % 4 & 1) + 4 * (j % 4 >> 1); }
// Whether output column q reads word j (one of its two columns within R of q).
__host__ __device__ constexpr bool word_used(int R, int q, int j) {
  const int lo = word_col(j) - q, hi = lo + 2;
  return (lo >= -R && lo <= R) || (hi >= -R && hi <= R);
}
__host__ __device__ constexpr bool word_needed(int R, int j) {
  for (int q = 0; q < kChunkPx; ++q)
    if (word_used(R, q, j)) return true;
  return false;
}

// Input row r (-R <= r < H + rows per warp + R) of the lane's chunk with the border applied; rows
// past H + R - 1 only feed outputs that are not stored (they read row H - 1).
// An interior warp (kInterior: every chunk and row it reads lies inside the image) loads directly.
template <int R, bool kInterior>
__device__ __forceinline__ uint2 load_row(const GaussWideArgs& a, int x0, bool inside, int r) {
  if constexpr (kInterior) return __ldg(reinterpret_cast<const uint2*>(a.src + std::size_t(r) * a.src_pitch + x0));
  const int ys = gauss_stream::source_row<R>(a, r);
  if (ys < 0) {  // constant border row
    const unsigned v4 = a.border_value * 0x01010101u;
    return make_uint2(v4, v4);
  }
  const std::uint8_t* row = a.src + std::size_t(ys) * a.src_pitch;
  if (inside) return __ldg(reinterpret_cast<const uint2*>(row + x0));
  return gauss_stream::load_partial_chunk<R>(a, row, x0);
}

struct Quad {
  unsigned w[4];  // E0, O0, E1, O1: two columns of the same parity in 16-bit lanes
};
__device__ __forceinline__ Quad unpack(uint2 c) {
  return {{__byte_perm(c.x, 0u, 0x4240), __byte_perm(c.x, 0u, 0x4341), __byte_perm(c.y, 0u, 0x4240),
           __byte_perm(c.y, 0u, 0x4341)}};
}

// The rows y0 .. y0 + rows per warp - 1 of one warp; the lane's chunk starts at column x0.
template <int R, class P, bool kInterior>
__device__ __forceinline__ void walk_rows(const GaussWideArgs& a, int x0, int y0) {
  constexpr int kRowsPerWarp = P::rows_per_warp, kRowsAhead = P::rows_ahead;
  constexpr int K = 2 * R + 1;
  constexpr int kInRows = kRowsPerWarp + 2 * R;
  const int lane = threadIdx.x;
  const bool inside = x0 >= 0 && x0 + kChunkPx <= a.width;
  const bool stores = lane >= 1 && lane <= 30 && (kInterior || x0 < a.width);

  // Fully unrolled over the input rows: the arrays are registers, only kRowsAhead + 1 raw rows and
  // the K output rows in progress live at a time. The vertical pass accumulates: input row i,
  // unpacked once, adds its weight times its words to each output row whose window holds it
  // (the first, i == t, starts the sum), and output row t is complete at input row t + 2R.
  uint2 raw[kInRows];
  unsigned acc[kRowsPerWarp][4];
  // Interior warps load through a running row pointer: one 64-bit add per row instead of
  // rebuilding row * pitch (15x15 515 -> 532 Gpx/s, 7x7 837 -> 891 on the H100); the border path
  // resolves each row's source. (Holding the dp2a weight pairs in registers instead of the
  // uniform registers the compiler reloads every row measured 7-10 % slower.)
  const std::uint8_t* next_row = a.src + std::size_t(kInterior ? y0 - R : 0) * a.src_pitch + x0;
  auto load = [&](int i) {
    if constexpr (kInterior) {
      const uint2 v = __ldg(reinterpret_cast<const uint2*>(next_row));
      next_row += a.src_pitch;
      return v;
    } else {
      return load_row<R, kInterior>(a, x0, inside, y0 - R + i);
    }
  };
#pragma unroll
  for (int i = 0; i < kRowsAhead && i < kInRows; ++i) raw[i] = load(i);
#pragma unroll
  for (int i = 0; i < kInRows; ++i) {
    if (i + kRowsAhead < kInRows) raw[i + kRowsAhead] = load(i + kRowsAhead);
    const Quad row = unpack(raw[i]);
#pragma unroll
    for (int t = i - 2 * R; t <= i; ++t) {
      if (t < 0 || t >= kRowsPerWarp) continue;
      const unsigned w = a.vweight[i - R - t < 0 ? t + R - i : i - R - t];
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[t][q] = t == i ? w * row.w[q] : acc[t][q] + w * row.w[q];
    }
    if (i < K - 1) continue;
    const int y = y0 + i - 2 * R;  // the output row whose window ends at input row i
    // The lane's 4 vertical sums, then the neighbours' by shuffles.
    unsigned word[kWords];
#pragma unroll
    for (int w = 0; w < 4; ++w) word[4 + w] = acc[i - 2 * R][w];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      word[w] = word_needed(R, w) ? __shfl_up_sync(0xFFFFFFFFu, word[4 + w], 1) : 0u;
      word[8 + w] = word_needed(R, 8 + w) ? __shfl_down_sync(0xFFFFFFFFu, word[4 + w], 1) : 0u;
    }
    if (!stores || (!kInterior && y >= a.height)) continue;
    unsigned out[kChunkPx];  // the result in byte 2
#pragma unroll
    for (int q = 0; q < kChunkPx; ++q) {
      unsigned s = 1u << 15;
#pragma unroll
      for (int j = 0; j < kWords; ++j)
        if (word_used(R, q, j)) s = __dp2a_lo(word[j], a.hpair[word_col(j) - q + R + 2], s);
      out[q] = s;
    }
    gauss_stream::store_bytes<kInterior>(a, x0, y, gauss_stream::pack_byte2(out));
  }
}

template <int R, class P>
__global__ void __launch_bounds__(P::threads, P::min_blocks) gauss_wide_kernel(const __grid_constant__ GaussWideArgs a) {
  const int y0 = (blockIdx.y * P::warps + threadIdx.y) * P::rows_per_warp;
  if (y0 >= a.height) return;  // whole warps only: the shuffles need all 32 lanes
  const int first = int(blockIdx.x) * kWarpOutPx - kChunkPx;  // lane 0's chunk
  const int x0 = first + int(threadIdx.x) * kChunkPx;
  // Warps whose 32 chunks and rows lie inside the image skip the border and edge checks: all but
  // the first and last warp of each row of warps, and the first and last rows of warps.
  const bool interior = first >= 0 && first + 32 * kChunkPx <= a.width && y0 >= R && y0 + P::rows_per_warp + R <= a.height;
  if (interior) walk_rows<R, P, true>(a, x0, y0);
  else walk_rows<R, P, false>(a, x0, y0);
}

template <int R, class P = WidePolicy>
void launch(const GaussWideArgs& a, cudaStream_t stream) {
  const dim3 grid((a.width + kWarpOutPx - 1) / kWarpOutPx, (a.height + P::block_rows - 1) / P::block_rows), block(32, P::warps);
  gauss_wide_kernel<R, P><<<grid, block, 0, stream>>>(a);
}

}  // namespace

bool gauss_wide_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k) {
  // dp2a takes 8-bit weights: a centre weight of 256 (tiny sigma) is left to the stand-in rung.
  return gauss_stream::supported(src, dst, k, 2 * kMinR + 1, 2 * kMaxR + 1, 255, WidePolicy::block_rows);
}

void gauss_wide(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border,
                cudaStream_t stream) {
  if (!gauss_wide_supported(src, dst, k)) throw Error(ErrorCategory::internal, "gauss_wide: unsupported call");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::internal, "gauss_wide: sizes differ");
  if (src.width == 0 || src.height == 0) return;
  const int R = static_cast<int>(k.size()) / 2;
  GaussWideArgs a{};
  gauss_stream::set_borders(a, R, src, dst, border);
  for (int d = 0; d <= R; ++d) a.vweight[d] = static_cast<unsigned>(k[R + d]);
  auto tap = [&](int d) { return d >= -R && d <= R ? static_cast<unsigned>(k[R + d]) : 0u; };
  for (int lo = -R - 2; lo <= R; ++lo) a.hpair[lo + R + 2] = tap(lo) | tap(lo + 2) << 8;
  switch (R) {
    case 2: launch<2>(a, stream); break;
    case 3: launch<3>(a, stream); break;
    case 4: launch<4>(a, stream); break;
    case 5: launch<5>(a, stream); break;
    case 6: launch<6>(a, stream); break;
    default: launch<7>(a, stream); break;
  }
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
