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
// Small taps: when every tap is a multiple of 16 -- the default-sigma kernels [64 128 64] and
// [16 64 96 64 16] -- both passes run on the taps / 16 (summing to 16), every horizontal sum is
// at most 16 * 16 * 255 + 128 < 2^16, so the horizontal pass stays in the 16-bit lanes too (per
// word: one byte permute for the odd-aligned pair, 2 adds, 3 multiply-adds), out = byte 1 of each
// lane: (s + 128) >> 8 = (256 s + 2^15) >> 16 exactly.
// The vertical sums of columns x0 - 2, x0 - 1 and x0 + 8, x0 + 9 come from the neighbouring lanes
// by shuffles; lane 0 (left of chunk 0) and lane 31 (right of chunk 1) load those columns
// themselves.
//
// Borders cost nothing in the loop: a 5 x 5 stencil reads only columns -2, -1, W, W + 1 and rows
// -2, -1, H, H + 1 outside the image; their source columns and rows are resolved once on the host.
// A chunk that reaches past the right edge (W not a multiple of 8, or the chunk after the last)
// assembles its bytes one by one with those columns; it is one or two lanes per row of one warp.
// Interior warps (all but the first and last of each row of warps, and the first and last rows of
// warps) run a second copy of the row walk with none of that logic: plain loads and stores, and
// the halo as one 32-bit load by lanes 0 and 31 (a third fewer instructions per pixel).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "image/gauss/gauss_gpu.hpp"
#include "image/filter/filter_device.cuh"
#include "image/filter/warp512.cuh"
#include "image/gauss/gauss_stream.cuh"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

using gauss_stream::kChunkPx;
using gauss_stream::kNone;
using warp512::kChunks;
using warp512::kWarpPx;
static_assert(warp512::kChunkPx == kChunkPx, "the 512-column warp's chunks are the stream helpers' chunks");
constexpr int kMaxR = 2;

// 8 warps of 8 rows, 4 rows ahead, 2 blocks per SM: the best of a sweep on the H100
// (docs/apod/gauss.md); 16 rows per warp made the two unrolled row walks too long.
using DefaultPolicy = gauss_stream::Policy<8, 8, 4, 2>;

struct GaussVecArgs : gauss_stream::StreamArgs<kMaxR> {
  // weight[d]: the tap at distance d from the centre (symmetric kernel); the tap / 16 for small taps
  unsigned weight[kMaxR + 1];
  float alpha, beta, gamma;  // the sharpen epilogue (kSharpen)
};

// The sharpen epilogue on 8 blurred bytes: out = saturate(cvRound(fma(src, alpha, fma(blur, beta,
// gamma)))), cv::addWeighted's fp32 formula, with `src` the 8 source bytes of the same columns.
// blur(q) is blur byte q as a float.
template <class Blur>
__device__ __forceinline__ uint2 sharpen_bytes(const GaussVecArgs& a, uint2 src, Blur blur) {
  unsigned r[kChunkPx];
#pragma unroll
  for (int q = 0; q < kChunkPx; ++q) {
    // 2^23 + byte, exactly, minus 2^23: the byte as a float without a conversion instruction.
    const float s = __uint_as_float(__byte_perm(q < 4 ? src.x : src.y, 0x4B000000u, 0x7540 | (q & 3))) - 8388608.f;
    r[q] = add_weighted_u8(s, blur(q), a.alpha, a.beta, a.gamma);
  }
  return make_uint2(__byte_perm(__byte_perm(r[0], r[1], 0x0040), __byte_perm(r[2], r[3], 0x0040), 0x5410),
                    __byte_perm(__byte_perm(r[4], r[5], 0x0040), __byte_perm(r[6], r[7], 0x0040), 0x5410));
}

// What one lane does across its rows; fixed for the whole kernel.
template <int R>
struct LanePlan {
  int x0[kChunks];
  bool full[kChunks];      // x0 + 8 <= W: one 64-bit load
  bool partial[kChunks];   // else x0 < W + R: byte by byte (columns >= W from right_cols)
  int left_col[kMaxR];     // lane 0: columns x0[0] - R .. x0[0] - 1 (resolved); else kNone
  int right_col[kMaxR];    // lane 31: columns x0[1] + 8 .. x0[1] + 8 + R - 1 (resolved); else kNone
  int lane;
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
  p.lane = lane;
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
// An interior warp (kInterior: every column it reads, x0[0] - 4 .. x0[1] + 11, and every row lies
// inside the image) loads without border logic; its halo is one 32-bit word, lane 0's left of its
// chunk 0 and lane 31's right of its chunk 1, in left[0].
template <int R, bool kInterior>
__device__ __forceinline__ RawRow<R> load_row(const GaussVecArgs& a, const LanePlan<R>& p, int r) {
  RawRow<R> raw;
  if constexpr (kInterior) {
    raw.left[0] = warp512::load_interior_row(a.src + std::size_t(r) * a.src_pitch, p.x0, p.lane, raw.chunk);
    return raw;
  }
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

template <int R, bool kInterior>
__device__ __forceinline__ Pairs to_pairs(const RawRow<R>& raw, int lane) {
  Pairs p;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    p.pair[k][0] = __byte_perm(raw.chunk[k].x, 0u, 0x4140);
    p.pair[k][1] = __byte_perm(raw.chunk[k].x, 0u, 0x4342);
    p.pair[k][2] = __byte_perm(raw.chunk[k].y, 0u, 0x4140);
    p.pair[k][3] = __byte_perm(raw.chunk[k].y, 0u, 0x4342);
  }
  if constexpr (kInterior) {
    // Lane 0's word holds columns x0 - 4 .. x0 - 1, lane 31's x0 + 8 .. x0 + 11. Only lane 0 reads
    // left and only lane 31 right, so one word serves both (and one vertical sum).
    p.left = p.right = __byte_perm(raw.left[0], 0u, lane == 0 ? 0x4342 : 0x4140);
  } else if constexpr (R == 2) {
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
// kSharpen: `src` is the chunk's own source bytes of row y, and the sharpen epilogue runs on the
// blurred bytes before the store.
template <int R, bool kSmall, bool kInterior, bool kSharpen>
__device__ __forceinline__ void store_chunk(const GaussVecArgs& a, const LanePlan<R>& p, int k, int y, const unsigned (&v)[4],
                                            unsigned left, unsigned right, uint2 src) {
  static_assert(kSmall || !kSharpen, "the sharpen epilogue is built on the small-tap pass (its blur is always the default 5 x 5)");
  if (!kInterior && !p.full[k] && !(p.partial[k] && p.x0[k] < a.width)) return;
  if constexpr (kSmall) {
    // Weights a.weight = the taps / 16, summing to 16: every horizontal sum is at most
    // 16 * 16 * 255 + 128 = 65408, so the pass stays in the 16-bit lanes. w[i] = the pair of
    // columns (x0 + 2i - 2, x0 + 2i - 1), i = 0 .. 5; o[i] = the odd-aligned pair between w[i]
    // and w[i + 1]. Output pair j (columns x0 + 2j, x0 + 2j + 1) is centred on w[j + 1].
    unsigned w[6] = {left, v[0], v[1], v[2], v[3], right}, o[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) o[i] = __byte_perm(w[i], w[i + 1], 0x5432);
    unsigned out[4];  // the two results in bytes 1 and 3
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      unsigned s = a.weight[0] * w[j + 1] + 0x00800080u;  // + 128 per lane: round half up
      s += a.weight[1] * (o[j] + o[j + 1]);
      if constexpr (R == 2) s += a.weight[2] * (w[j] + w[j + 2]);
      out[j] = s;
    }
    if constexpr (kSharpen) {
      // Blur byte q is byte 1 (q even) or 3 (q odd) of out[q / 2].
      const auto blur = [&](int q) { return __uint_as_float(__byte_perm(out[q >> 1], 0x4B000000u, q & 1 ? 0x7543 : 0x7541)) - 8388608.f; };
      gauss_stream::store_bytes<kInterior>(a, p.x0[k], y, sharpen_bytes(a, src, blur));
    } else {
      gauss_stream::store_bytes<kInterior>(a, p.x0[k], y,
                                           make_uint2(__byte_perm(out[0], out[1], 0x7531), __byte_perm(out[2], out[3], 0x7531)));
    }
    return;
  }
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
  gauss_stream::store_bytes<kInterior>(a, p.x0[k], y, gauss_stream::pack_byte2(out));
}

// The rows of one warp: y0 .. y0 + rows per warp - 1, columns base .. base + 511. The live state
// is P::rows_ahead raw rows, 2R + 1 rows of pairs and the horizontal pass's words.
template <int R, class P, bool kSmall, bool kInterior, bool kSharpen>
__device__ __forceinline__ void walk_rows(const GaussVecArgs& a, const LanePlan<R>& plan, int y0) {
  constexpr int kRowsPerWarp = P::rows_per_warp, kRowsAhead = P::rows_ahead;
  const int lane = plan.lane, prev = (lane + 31) & 31, next = (lane + 1) & 31;

  // Input rows y0 - R .. y0 + kRowsPerWarp + R - 1. Fully unrolled: the arrays are registers, and
  // only kRowsAhead + 1 raw rows and 2R + 1 rows of pairs are live at a time.
  constexpr int K = 2 * R + 1;
  constexpr int kInRows = kRowsPerWarp + 2 * R;
  RawRow<R> raw[kInRows];
  Pairs rows[kInRows];
#pragma unroll
  for (int i = 0; i < kRowsAhead && i < kInRows; ++i) raw[i] = load_row<R, kInterior>(a, plan, y0 - R + i);
#pragma unroll
  for (int i = 0; i < kInRows; ++i) {
    if (i + kRowsAhead < kInRows) raw[i + kRowsAhead] = load_row<R, kInterior>(a, plan, y0 - R + i + kRowsAhead);
    rows[i] = to_pairs<R, kInterior>(raw[i], lane);
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
    if (!kInterior && y >= a.height) continue;
    // Row y's own source bytes (input row i - R, loaded for the vertical pass): the sharpen epilogue's src.
    store_chunk<R, kSmall, kInterior, kSharpen>(a, plan, 0, y, v[0], lane == 0 ? vl : prev0, lane == 31 ? next1 : next0,
                                                raw[i - R].chunk[0]);
    store_chunk<R, kSmall, kInterior, kSharpen>(a, plan, 1, y, v[1], lane == 0 ? prev0 : prev1, lane == 31 ? vr : next1,
                                                raw[i - R].chunk[1]);
  }
}

// 5 x 5 with DefaultPolicy: 128 registers (ptxas, CUDA 13.0, sm_90), no spills.
template <int R, class P, bool kSmall, bool kSharpen = false>
__global__ void __launch_bounds__(P::threads, P::min_blocks) gauss_vectorized_kernel(const __grid_constant__ GaussVecArgs a) {
  const int y0 = (blockIdx.y * P::warps + threadIdx.y) * P::rows_per_warp;
  if (y0 >= a.height) return;  // whole warps only: the shuffles need all 32 lanes
  const int base = blockIdx.x * kWarpPx;
  const LanePlan<R> plan = plan_lane<R>(a, base, threadIdx.x);
  // Warps whose rows and columns (with the halo word each side) lie inside the image skip every
  // border and edge check; they are all but the first and last warp of each row of warps and the
  // first and last rows of warps.
  const bool interior = base >= 4 && base + kWarpPx + 4 <= a.width && y0 >= R && y0 + P::rows_per_warp + R <= a.height;
  if (interior) walk_rows<R, P, kSmall, true, kSharpen>(a, plan, y0);
  else walk_rows<R, P, kSmall, false, kSharpen>(a, plan, y0);
}

template <int R, bool kSmall, bool kSharpen = false, class P = DefaultPolicy>
void launch(const GaussVecArgs& a, cudaStream_t stream) {
  const dim3 grid((a.width + kWarpPx - 1) / kWarpPx, (a.height + P::block_rows - 1) / P::block_rows), block(32, P::warps);
  gauss_vectorized_kernel<R, P, kSmall, kSharpen><<<grid, block, 0, stream>>>(a);
}

GaussVecArgs vec_args(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border) {
  const int R = static_cast<int>(k.size()) / 2;
  const bool small = gauss_small_taps(k);
  GaussVecArgs a{};
  gauss_stream::set_borders(a, R, src, dst, border);
  for (int d = 0; d <= R; ++d) a.weight[d] = static_cast<unsigned>(k[R + d]) / (small ? 16u : 1u);
  return a;
}

}  // namespace

bool gauss_small_taps(const std::vector<int>& k) {
  return std::all_of(k.begin(), k.end(), [](int t) { return t % 16 == 0; });
}

bool gauss_vectorized_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k) {
  return gauss_stream::supported(src, dst, k, 3, 5, 256, DefaultPolicy::block_rows);
}

void gauss_vectorized(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border,
                      cudaStream_t stream) {
  if (!gauss_vectorized_supported(src, dst, k)) throw Error(ErrorCategory::internal, "gauss_vectorized: unsupported call");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::internal, "gauss_vectorized: sizes differ");
  if (src.width == 0 || src.height == 0) return;
  const int R = static_cast<int>(k.size()) / 2;
  const bool small = gauss_small_taps(k);
  const GaussVecArgs a = vec_args(src, dst, k, border);
  if (R == 1) small ? launch<1, true>(a, stream) : launch<1, false>(a, stream);
  else small ? launch<2, true>(a, stream) : launch<2, false>(a, stream);
  WK_CUDA_CHECK_LAUNCH();
}

bool gauss_vectorized_sharpen_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k) {
  return gauss_vectorized_supported(src, dst, k) && k.size() == 5 && gauss_small_taps(k);
}

void gauss_vectorized_sharpen(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border,
                              const SharpenEpilogue& sharpen, cudaStream_t stream) {
  if (!gauss_vectorized_sharpen_supported(src, dst, k)) throw Error(ErrorCategory::internal, "gauss_vectorized_sharpen: unsupported call");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::internal, "gauss_vectorized_sharpen: sizes differ");
  if (src.width == 0 || src.height == 0) return;
  GaussVecArgs a = vec_args(src, dst, k, border);
  a.alpha = sharpen.alpha;
  a.beta = sharpen.beta;
  a.gamma = sharpen.gamma;
  launch<2, true, true>(a, stream);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
