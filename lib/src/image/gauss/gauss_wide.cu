// The `vectorized_wide` rung of gauss: cv::GaussianBlur 5 x 5 .. 15 x 15 on 1-channel 8-bit
// images, bit-exact, streaming like a copy (gauss_vectorized.cu: 3 x 3 and 5 x 5, the default
// there; the two measure the same at 5 x 5).
//
// Arithmetic. OpenCV's 8-bit Gaussian is exact integer arithmetic (coefficients with 8 fraction
// bits summing to 256, out = (sum_i c_i sum_j c_j in + 2^15) >> 16), so the vertical pass may run
// first. It runs as 8-bit dot products: the input rows, in groups of 4, are transposed once into a
// word per column (byte b: row 4g + b), and an output row's vertical sum is a dp4a of each group
// its window touches against weight words made for its row phase (4.5 dp4a per pixel at 15 x 15,
// where multiply-adds in 16-bit lanes took 7.5; every sum is at most 256 * 255 = 65280). The
// sums are packed two columns of the same parity per word -- E = (c0, c2), O = (c1, c3) of each 4
// columns, in 16-bit lanes -- and the horizontal pass is 16 x 8-bit dot products: dp2a multiplies
// a word's two sums by two 8-bit weights and adds both to a 32-bit accumulator started at 2^15
// (sums stay below 2^24: exact), so a pixel costs R + 1 dp2a (with the shifted pair words below);
// the weight pairs, one per distance, are kernel parameters. The output byte is byte 2 of the sum.
//
// Geometry. A lane owns 8 columns (one 64-bit load per row) and walks P::rows_per_warp rows; lanes
// 0 and 31 only load the halo of their neighbours (R <= 7 < 8), so a warp stores 240 columns; the
// neighbours' vertical sums come by shuffles. Borders: columns -R .. -1, W .. W + R - 1 and rows
// -R .. -1, H .. H + R - 1 are resolved once on the host; a chunk not wholly inside the row
// assembles its bytes one by one. Interior warps run a copy of the row walk without border logic.
// The two edge block columns run first (block_order.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "image/filter/block_order.cuh"
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
// Row groups of 4 an output row's window (2R + 1 rows, any phase) spans at most.
constexpr int kQuadsPerRow = (3 + 2 * kMaxR) / 4 + 1;

// 8 warps of 8 rows, 3 rows ahead, 3 blocks per SM (80 registers): the best at 15x15 of a sweep
// on the H100; 5x5 and 7x7 take 4 warps, 4 rows ahead, 6 blocks per SM, 2 % faster at 7x7
// (docs/apod/gauss.md).
using WidePolicy = gauss_stream::Policy<8, 8, 3, 3>;
using NarrowPolicy = gauss_stream::Policy<4, 8, 4, 6>;
template <int R>
using PolicyFor = std::conditional_t<(R <= 3), NarrowPolicy, WidePolicy>;

struct GaussWideArgs : gauss_stream::StreamArgs<kMaxR> {
  // The weights of a pair word's two columns, at distances lo and lo + 2 from the output column,
  // in bytes 0 and 1: hpair[lo + R + 2], lo = -R - 2 .. R (2R + 3 distinct words, few enough to
  // stay in uniform registers across the row loop).
  unsigned hpair[2 * kMaxR + 3];
  // The vertical weights of one column's four rows 4g .. 4g + 3 of the warp's input rows for
  // output row t = 4a + p (p = t mod 4) and group g = a + m, in bytes 0..3: vquad[p][m] (rows
  // outside t's window weigh 0).
  unsigned vquad[4][kQuadsPerRow];
};

// Pair word j = 4c + w: chunk c (0 left, 1 own, 2 right), word w (E0 = columns 0, 2; O0 = 1, 3;
// E1 = 4, 6; O1 = 5, 7 of the chunk). Column of its low lane relative to the own chunk's x0:
__host__ __device__ constexpr int word_col(int j) { return 8 * (j / 4 - 1) + (j % 4 & 1) + 4 * (j % 4 >> 1); }
__host__ __device__ constexpr bool in_window(int R, int q, int c) { return c - q >= -R && c - q <= R; }
// Whether output column q reads word j (one of its two columns within R of q).
__host__ __device__ constexpr bool word_used(int R, int q, int j) {
  return in_window(R, q, word_col(j)) || in_window(R, q, word_col(j) + 2);
}
// The shifted pair word j (j + 2 < kWords): the high lane of word j and the low lane of word j + 2,
// columns word_col(j) + 2 and + 4 (one PRMT). For an output column whose window starts or ends in
// the middle of its regular words, the shifted words cover that parity's columns with one word
// fewer: 8 dp2a per pixel at 15x15 instead of 8.5.
__host__ __device__ constexpr bool shifted_used(int R, int q, int j) {
  return j + 2 < kWords && (in_window(R, q, word_col(j) + 2) || in_window(R, q, word_col(j) + 4));
}
// Whether output column q reads the columns of parity `par` (of the chunk) through shifted words:
// they cover all of them and need fewer words than the regular ones.
__host__ __device__ constexpr bool use_shifted(int R, int q, int par) {
  int regular = 0, shifted = 0;
  for (int j = par; j < kWords; j += 2) {
    regular += word_used(R, q, j) ? 1 : 0;
    shifted += shifted_used(R, q, j) ? 1 : 0;
  }
  for (int c = q - R; c <= q + R; ++c) {
    if (((c % 2) + 2) % 2 != par) continue;
    bool covered = false;
    for (int j = par; j + 2 < kWords; j += 2) covered = covered || c == word_col(j) + 2 || c == word_col(j) + 4;
    if (!covered) return false;
  }
  return shifted < regular;
}
// Which words each output column reads, worked out at compile time.
struct HorizontalPlan {
  bool regular[kChunkPx][kWords];  // output q reads regular word j
  bool shifted[kChunkPx][kWords];  // output q reads shifted word j
  bool make_shifted[kWords];       // shifted word j is built
  bool needed[kWords];             // word j is read (so the neighbours' words are shuffled in)
};
constexpr HorizontalPlan horizontal_plan(int R) {
  HorizontalPlan p{};
  for (int q = 0; q < kChunkPx; ++q)
    for (int j = 0; j < kWords; ++j) {
      p.regular[q][j] = !use_shifted(R, q, j & 1) && word_used(R, q, j);
      p.shifted[q][j] = use_shifted(R, q, j & 1) && shifted_used(R, q, j);
      p.make_shifted[j] = p.make_shifted[j] || p.shifted[q][j];
      p.needed[j] = p.needed[j] || p.regular[q][j];
    }
  for (int j = 0; j + 2 < kWords; ++j)
    if (p.make_shifted[j]) p.needed[j] = p.needed[j + 2] = true;
  return p;
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

// Columns 0..3 of four rows (a 4 x 4 byte block) as four column words: byte b of word c is row
// b's column c. Two rounds of byte permutes, 8 PRMT.
__device__ __forceinline__ void transpose4(unsigned r0, unsigned r1, unsigned r2, unsigned r3, unsigned* col) {
  const unsigned lo01 = __byte_perm(r0, r1, 0x5140), hi01 = __byte_perm(r0, r1, 0x7362);  // r0c0 r1c0 r0c1 r1c1 | c2 c3
  const unsigned lo23 = __byte_perm(r2, r3, 0x5140), hi23 = __byte_perm(r2, r3, 0x7362);
  col[0] = __byte_perm(lo01, lo23, 0x5410);
  col[1] = __byte_perm(lo01, lo23, 0x7632);
  col[2] = __byte_perm(hi01, hi23, 0x5410);
  col[3] = __byte_perm(hi01, hi23, 0x7632);
}

// The rows y0 .. y0 + rows per warp - 1 of one warp; the lane's chunk starts at column x0.
template <int R, class P, bool kInterior>
__device__ __forceinline__ void walk_rows(const GaussWideArgs& a, int x0, int y0) {
  constexpr int kRowsPerWarp = P::rows_per_warp, kRowsAhead = P::rows_ahead;
  constexpr int kInRows = kRowsPerWarp + 2 * R;
  const int lane = threadIdx.x;
  const bool inside = x0 >= 0 && x0 + kChunkPx <= a.width;
  const bool stores = lane >= 1 && lane <= 30 && (kInterior || x0 < a.width);

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

  // The horizontal pass of output row t from the lane's 4 pair words of vertical sums: the
  // neighbours' words by shuffles (every lane), then dp2a and the store.
  constexpr HorizontalPlan plan = horizontal_plan(R);
  // Interior warps store through a running row pointer too (the rows come in order): one 64-bit
  // add per row instead of an address multiply on the busy FMA-heavy pipe (15x15 694 -> 706 Gpx/s).
  std::uint8_t* out_row = a.dst + std::size_t(kInterior ? y0 : 0) * a.dst_pitch + x0;
  auto finish_row = [&](int t, const unsigned (&own)[4]) {
    const int y = y0 + t;
    std::uint8_t* const row_out = out_row;
    out_row += a.dst_pitch;
    unsigned word[kWords];
#pragma unroll
    for (int w = 0; w < 4; ++w) word[4 + w] = own[w];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      word[w] = plan.needed[w] ? __shfl_up_sync(0xFFFFFFFFu, word[4 + w], 1) : 0u;
      word[8 + w] = plan.needed[8 + w] ? __shfl_down_sync(0xFFFFFFFFu, word[4 + w], 1) : 0u;
    }
    if (!stores || (!kInterior && y >= a.height)) return;
    unsigned shifted[kWords];
#pragma unroll
    for (int j = 0; j < kWords; ++j) shifted[j] = plan.make_shifted[j] ? __byte_perm(word[j], word[j + 2 < kWords ? j + 2 : j], 0x5432) : 0u;
    unsigned out[kChunkPx];  // the result in byte 2
#pragma unroll
    for (int q = 0; q < kChunkPx; ++q) {
      unsigned s = 1u << 15;
#pragma unroll
      for (int j = 0; j < kWords; ++j) {
        if (plan.regular[q][j]) s = __dp2a_lo(word[j], a.hpair[word_col(j) - q + R + 2], s);
        if (plan.shifted[q][j]) s = __dp2a_lo(shifted[j], a.hpair[word_col(j) + 2 - q + R + 2], s);
      }
      out[q] = s;
    }
    if constexpr (kInterior) {
      *reinterpret_cast<uint2*>(row_out) = gauss_stream::pack_byte2(out);
    } else {
      gauss_stream::store_bytes<kInterior>(a, x0, y, gauss_stream::pack_byte2(out));
    }
  };

  // Fully unrolled over the input rows: the arrays are registers, only kRowsAhead + 1 raw rows and
  // the rows in progress live at a time.
  uint2 raw[kInRows];
#pragma unroll
  for (int i = 0; i < kRowsAhead && i < kInRows; ++i) raw[i] = load(i);

  // Input rows in groups of 4 (group g: rows 4g .. 4g + 3, past the last row zero), each
  // transposed once into 8 column words (byte b: row 4g + b); output row t = 4a + p is then the
  // sum over m of dp4a(group a + m's column word, vquad[p][m]): (p + 2R) / 4 + 1 dp4a per pixel.
  // Output row t is done once the group holding its last input row, t + 2R, is. (Groups of 4
  // make the outputs come in bursts; only the groups an unfinished row needs stay live.)
  constexpr int kGroups = (kInRows + 3) / 4;
  unsigned col[kGroups][kChunkPx];
#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
#pragma unroll
    for (int i = 4 * g; i < 4 * g + 4 && i < kInRows; ++i)
      if (i + kRowsAhead < kInRows) raw[i + kRowsAhead] = load(i + kRowsAhead);
    uint2 r[4];
#pragma unroll
    for (int b = 0; b < 4; ++b) r[b] = 4 * g + b < kInRows ? raw[4 * g + b] : make_uint2(0u, 0u);
    transpose4(r[0].x, r[1].x, r[2].x, r[3].x, &col[g][0]);
    transpose4(r[0].y, r[1].y, r[2].y, r[3].y, &col[g][4]);
#pragma unroll
    for (int t = 0; t < kRowsPerWarp; ++t) {
      if ((t + 2 * R) / 4 != g) continue;
      const int p = t % 4, first = t / 4;
      unsigned v[kChunkPx];
#pragma unroll
      for (int c = 0; c < kChunkPx; ++c) {
        unsigned sum = 0u;
#pragma unroll
        for (int m = 0; m <= (p + 2 * R) / 4; ++m) sum = __dp4a(col[first + m][c], a.vquad[p][m], sum);
        v[c] = sum;
      }
      // Pair words E0 = (c0, c2), O0 = (c1, c3), E1 = (c4, c6), O1 = (c5, c7): sums below 2^16.
      const unsigned own[4] = {__byte_perm(v[0], v[2], 0x5410), __byte_perm(v[1], v[3], 0x5410),
                               __byte_perm(v[4], v[6], 0x5410), __byte_perm(v[5], v[7], 0x5410)};
      finish_row(t, own);
    }
  }
}

template <int R, class P>
__global__ void __launch_bounds__(P::threads, P::min_blocks) gauss_wide_kernel(const __grid_constant__ GaussWideArgs a) {
  const auto [bx, by] = edge_columns_first();  // the slow edge blocks first (block_order.cuh)
  const int y0 = (by * P::warps + threadIdx.y) * P::rows_per_warp;
  if (y0 >= a.height) return;  // whole warps only: the shuffles need all 32 lanes
  const int first = bx * kWarpOutPx - kChunkPx;  // lane 0's chunk
  const int x0 = first + int(threadIdx.x) * kChunkPx;
  // Warps whose 32 chunks and rows lie inside the image skip the border and edge checks: all but
  // the first and last warp of each row of warps, and the first and last rows of warps.
  const bool interior = first >= 0 && first + 32 * kChunkPx <= a.width && y0 >= R && y0 + P::rows_per_warp + R <= a.height;
  if (interior) walk_rows<R, P, true>(a, x0, y0);
  else walk_rows<R, P, false>(a, x0, y0);
}

template <int R, class P = PolicyFor<R>>
void launch(const GaussWideArgs& a, cudaStream_t stream) {
  const dim3 grid((a.width + kWarpOutPx - 1) / kWarpOutPx, (a.height + P::block_rows - 1) / P::block_rows), block(32, P::warps);
  gauss_wide_kernel<R, P><<<grid, block, 0, stream>>>(a);
}

}  // namespace

bool gauss_wide_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k) {
  // dp2a takes 8-bit weights: a centre weight of 256 (tiny sigma) is left to the stand-in rung.
  return gauss_stream::supported(src, dst, k, 2 * kMinR + 1, 2 * kMaxR + 1, 255, std::min(WidePolicy::block_rows, NarrowPolicy::block_rows));
}

void gauss_wide(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border,
                cudaStream_t stream) {
  if (!gauss_wide_supported(src, dst, k)) throw Error(ErrorCategory::internal, "gauss_wide: unsupported call");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::internal, "gauss_wide: sizes differ");
  if (src.width == 0 || src.height == 0) return;
  const int R = static_cast<int>(k.size()) / 2;
  GaussWideArgs a{};
  gauss_stream::set_borders(a, R, src, dst, border);
  auto tap = [&](int d) { return d >= -R && d <= R ? static_cast<unsigned>(k[R + d]) : 0u; };
  for (int lo = -R - 2; lo <= R; ++lo) a.hpair[lo + R + 2] = tap(lo) | tap(lo + 2) << 8;
  for (int p = 0; p < 4; ++p)
    for (int m = 0; m < kQuadsPerRow; ++m)
      for (int b = 0; b < 4; ++b) a.vquad[p][m] |= tap(4 * m + b - p - R) << (8 * b);
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
