// The `vectorized_wide` rung of gauss: cv::GaussianBlur 7 x 7 .. 15 x 15 on 1-channel 8-bit
// images, bit-exact, streaming like a copy (see gauss_vectorized.cu for 3 x 3 and 5 x 5).
//
// Arithmetic. OpenCV's 8-bit Gaussian is exact integer arithmetic (coefficients with 8 fraction
// bits summing to 256, out = (sum_i c_i sum_j c_j in + 2^15) >> 16), so the vertical pass may run
// first. It runs in SIMD within a register: a word holds two columns of the same parity in its
// 16-bit lanes -- E = (c0, c2), O = (c1, c3) of each 4 bytes, one PRMT each -- and every vertical
// sum is at most 256 * 255 = 65280, so no lane carries into the next (symmetric weights: R adds and
// R + 1 multiplies per word for 2R + 1 taps). The horizontal pass is 16 x 8-bit dot products:
// dp2a multiplies a word's two 16-bit sums by two 8-bit weights and adds both to a 32-bit
// accumulator started at 2^15 (sums stay below 2^24: exact), so a pixel costs about R + 1 dp2a; the
// weight pairs per (output column, word) are kernel parameters (constant bank operands). The
// output byte is byte 2 of the sum.
//
// Geometry. A lane owns 8 columns (one 64-bit load per row) and walks P::rows_per_warp rows; lanes
// 0 and 31 only load the halo of their neighbours (R <= 7 < 8), so a warp stores 240 columns; the
// neighbours' vertical sums come by shuffles. Borders: columns -R .. -1, W .. W + R - 1 and rows
// -R .. -1, H .. H + R - 1 are resolved once on the host; a chunk not wholly inside the row
// assembles its bytes one by one.
#include <cuda_runtime.h>

#include <cstdint>

#include "image/gauss/gauss_gpu.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

constexpr int kChunkPx = 8;                 // columns per lane: one 64-bit load
constexpr int kWarpOutPx = 30 * kChunkPx;   // lanes 1..30 store: 240 columns per warp
constexpr int kWords = 12;                  // pair words of the left, own and right chunks
constexpr int kMinR = 3, kMaxR = 7;
constexpr int kMaxGridY = 65535;
constexpr int kNone = -2;  // a column no stored output reads

template <int kWarps, int kRowsPerWarp, int kRowsAhead, int kMinBlocks>
struct GaussWidePolicy {
  static constexpr int warps = kWarps;                // warps per block, stacked down
  static constexpr int rows_per_warp = kRowsPerWarp;  // output rows per lane
  static constexpr int rows_ahead = kRowsAhead;       // input rows loaded ahead of their use
  static constexpr int min_blocks = kMinBlocks;       // blocks per SM asked of __launch_bounds__
  static constexpr int threads = 32 * kWarps;
  static constexpr int block_rows = kWarps * kRowsPerWarp;
};
using WidePolicy = GaussWidePolicy<4, 16, 3, 3>;

struct GaussWideArgs {
  const std::uint8_t* src;
  std::size_t src_pitch;
  std::uint8_t* dst;
  std::size_t dst_pitch;
  int width, height;
  unsigned border_value;            // 0..255 (constant border), else 0
  int left_cols[kMaxR];             // source columns of -R .. -1; -1 stands for border_value
  int right_cols[kMaxR];            // W .. W + R - 1
  int top_rows[kMaxR];              // -R .. -1
  int bottom_rows[kMaxR];           // H .. H + R - 1
  unsigned vweight[kMaxR + 1];      // vweight[d]: the tap at distance d from the centre
  unsigned hweight[kChunkPx][kWords];  // output column q, pair word j: its two taps' weights in bytes 0 and 1
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

template <int R>
__device__ __forceinline__ int resolve_col(const GaussWideArgs& a, int c) {
  if (c < -R) return kNone;
  if (c < 0) return a.left_cols[c + R];
  if (c < a.width) return c;
  return c < a.width + R ? a.right_cols[c - a.width] : kNone;
}

__device__ __forceinline__ unsigned load_byte(const std::uint8_t* row, int col, unsigned border_value) {
  if (col >= 0) return __ldg(row + col);
  return col == -1 ? border_value : 0u;
}

template <int R>
__device__ __noinline__ uint2 load_partial_chunk(const GaussWideArgs& a, const std::uint8_t* row, int x0) {
  unsigned w[2] = {0u, 0u};
#pragma unroll
  for (int q = 0; q < kChunkPx; ++q) w[q >> 2] |= load_byte(row, resolve_col<R>(a, x0 + q), a.border_value) << (8 * (q & 3));
  return make_uint2(w[0], w[1]);
}

// Input row r (-R <= r < H + rows per warp + R) of the lane's chunk with the border applied; rows
// past H + R - 1 only feed outputs that are not stored (they read row H - 1).
template <int R>
__device__ __forceinline__ uint2 load_row(const GaussWideArgs& a, int x0, bool inside, int r) {
  int ys = r;
  if (r < 0) ys = a.top_rows[r + R];
  else if (r >= a.height) ys = r < a.height + R ? a.bottom_rows[r - a.height] : a.height - 1;
  if (ys < 0) {  // constant border row
    const unsigned v4 = a.border_value * 0x01010101u;
    return make_uint2(v4, v4);
  }
  const std::uint8_t* row = a.src + std::size_t(ys) * a.src_pitch;
  if (inside) return __ldg(reinterpret_cast<const uint2*>(row + x0));
  return load_partial_chunk<R>(a, row, x0);
}

struct Quad {
  unsigned w[4];  // E0, O0, E1, O1: two columns of the same parity in 16-bit lanes
};
__device__ __forceinline__ Quad unpack(uint2 c) {
  return {{__byte_perm(c.x, 0u, 0x4240), __byte_perm(c.x, 0u, 0x4341), __byte_perm(c.y, 0u, 0x4240),
           __byte_perm(c.y, 0u, 0x4341)}};
}

template <int R, class P>
__global__ void __launch_bounds__(P::threads, P::min_blocks) gauss_wide_kernel(const __grid_constant__ GaussWideArgs a) {
  constexpr int kRowsPerWarp = P::rows_per_warp, kRowsAhead = P::rows_ahead;
  constexpr int K = 2 * R + 1;
  constexpr int kInRows = kRowsPerWarp + 2 * R;
  const int y0 = (blockIdx.y * P::warps + threadIdx.y) * kRowsPerWarp;
  if (y0 >= a.height) return;  // whole warps only: the shuffles need all 32 lanes
  const int lane = threadIdx.x;
  const int x0 = int(blockIdx.x) * kWarpOutPx - kChunkPx + lane * kChunkPx;
  const bool inside = x0 >= 0 && x0 + kChunkPx <= a.width;
  const bool stores = lane >= 1 && lane <= 30 && x0 < a.width;

  // Fully unrolled over the input rows: the arrays are registers, only kRowsAhead + 1 raw rows and
  // K unpacked rows live at a time.
  uint2 raw[kInRows];
  Quad rows[kInRows];
#pragma unroll
  for (int i = 0; i < kRowsAhead && i < kInRows; ++i) raw[i] = load_row<R>(a, x0, inside, y0 - R + i);
#pragma unroll
  for (int i = 0; i < kInRows; ++i) {
    if (i + kRowsAhead < kInRows) raw[i + kRowsAhead] = load_row<R>(a, x0, inside, y0 - R + i + kRowsAhead);
    rows[i] = unpack(raw[i]);
    if (i < K - 1) continue;
    const int y = y0 + i - 2 * R;  // the output row whose window ends at input row i
    // Vertical sums of the lane's 4 words, then the neighbours' by shuffles.
    unsigned word[kWords];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      const int c = i - R;  // centre row
      unsigned v = a.vweight[0] * rows[c].w[w];
#pragma unroll
      for (int d = 1; d <= R; ++d) v += a.vweight[d] * (rows[c - d].w[w] + rows[c + d].w[w]);
      word[4 + w] = v;
    }
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      word[w] = word_needed(R, w) ? __shfl_up_sync(0xFFFFFFFFu, word[4 + w], 1) : 0u;
      word[8 + w] = word_needed(R, 8 + w) ? __shfl_down_sync(0xFFFFFFFFu, word[4 + w], 1) : 0u;
    }
    if (!stores || y >= a.height) continue;
    unsigned out[kChunkPx];  // the result in byte 2
#pragma unroll
    for (int q = 0; q < kChunkPx; ++q) {
      unsigned s = 1u << 15;
#pragma unroll
      for (int j = 0; j < kWords; ++j)
        if (word_used(R, q, j)) s = __dp2a_lo(word[j], a.hweight[q][j], s);
      out[q] = s;
    }
    const unsigned lo = __byte_perm(__byte_perm(out[0], out[1], 0x0062), __byte_perm(out[2], out[3], 0x0062), 0x5410);
    const unsigned hi = __byte_perm(__byte_perm(out[4], out[5], 0x0062), __byte_perm(out[6], out[7], 0x0062), 0x5410);
    std::uint8_t* dst = a.dst + std::size_t(y) * a.dst_pitch + x0;
    if (x0 + kChunkPx <= a.width) {
      *reinterpret_cast<uint2*>(dst) = make_uint2(lo, hi);
    } else {
#pragma unroll
      for (int q = 0; q < kChunkPx; ++q)
        if (x0 + q < a.width) dst[q] = static_cast<std::uint8_t>((q < 4 ? lo : hi) >> (8 * (q & 3)));
    }
  }
}

template <int R, class P = WidePolicy>
void launch(const GaussWideArgs& a, cudaStream_t stream) {
  const dim3 grid((a.width + kWarpOutPx - 1) / kWarpOutPx, (a.height + P::block_rows - 1) / P::block_rows), block(32, P::warps);
  gauss_wide_kernel<R, P><<<grid, block, 0, stream>>>(a);
}

}  // namespace

bool gauss_wide_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k) {
  const int ksize = static_cast<int>(k.size());
  if (src.type != PixelType::u8 || dst.type != PixelType::u8 || src.channels != 1 || dst.channels != 1) return false;
  if (ksize % 2 == 0 || ksize / 2 < kMinR || ksize / 2 > kMaxR) return false;
  int sum = 0;
  for (int i = 0; i < ksize; ++i) {
    if (k[i] < 0 || k[i] > 255 || k[i] != k[ksize - 1 - i]) return false;  // symmetric, 8-bit weights for dp2a
    sum += k[i];
  }
  if (sum != 256) return false;  // the 16-bit lanes hold at most 256 * 255
  const auto aligned8 = [](const void* p, std::size_t pitch) {
    return reinterpret_cast<std::uintptr_t>(p) % 8 == 0 && pitch % 8 == 0;
  };
  return aligned8(src.data, src.pitch) && aligned8(dst.data, dst.pitch) &&
         (long(src.height) + WidePolicy::block_rows - 1) / WidePolicy::block_rows <= kMaxGridY;
}

void gauss_wide(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border,
                cudaStream_t stream) {
  if (!gauss_wide_supported(src, dst, k)) throw Error(ErrorCategory::internal, "gauss_wide: unsupported call");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::internal, "gauss_wide: sizes differ");
  if (src.width == 0 || src.height == 0) return;
  const int R = static_cast<int>(k.size()) / 2;
  GaussWideArgs a{};
  set_byte_io(a, src, dst);
  a.border_value = border.mode == BorderMode::constant ? static_cast<unsigned>(border.value) : 0u;
  for (int q = 0; q < R; ++q) {
    a.left_cols[q] = border_index(q - R, src.width, border.mode);
    a.right_cols[q] = border_index(src.width + q, src.width, border.mode);
    a.top_rows[q] = border_index(q - R, src.height, border.mode);
    a.bottom_rows[q] = border_index(src.height + q, src.height, border.mode);
  }
  for (int d = 0; d <= R; ++d) a.vweight[d] = static_cast<unsigned>(k[R + d]);
  auto tap = [&](int d) { return d >= -R && d <= R ? static_cast<unsigned>(k[R + d]) : 0u; };
  for (int q = 0; q < kChunkPx; ++q)
    for (int j = 0; j < kWords; ++j) {
      const int lo = word_col(j) - q;
      a.hweight[q][j] = tap(lo) | tap(lo + 2) << 8;
    }
  switch (R) {
    case 3: launch<3>(a, stream); break;
    case 4: launch<4>(a, stream); break;
    case 5: launch<5>(a, stream); break;
    case 6: launch<6>(a, stream); break;
    default: launch<7>(a, stream); break;
  }
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
