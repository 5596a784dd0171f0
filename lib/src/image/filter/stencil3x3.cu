// The vectorized 3 x 3 stencil: the `vectorized_3x3` rung of sobel (dx, dy in s16 or |.| in u8,
// the magnitude) and laplacian on 1-channel 8-bit images. A 3 x 3 stencil with 1 byte in and 1-2
// bytes out per pixel is a pure stream, so the kernel is built like a copy: every input byte
// comes from DRAM once, every output is written once, all accesses full-width and coalesced, and
// the arithmetic stays far below the memory time.
//
// Geometry (policy below). A warp covers 512 columns and kRowsPerWarp rows; the block stacks
// kWarps warps down. Lane L owns two chunks of 8 columns, at base + 8L and base + 256 + 8L, so each
// of its 64-bit loads and each of its stores (128-bit s16, 64-bit u8) is one piece of a contiguous
// 256- or 512-byte warp access. (16 contiguous columns per lane would be one 128-bit load, but
// then each 128-bit s16 store fills only half of every 32-byte sector it touches.) The lane walks
// its rows down: per input row two 64-bit loads (issued kRowsAhead rows before use), the
// horizontal parts once, then one output row from the last three rows' parts, all in registers.
// The column neighbours x0 - 1 and x0 + 8 of a chunk come from the neighbouring lanes by
// shuffles; lanes 0 and 31 load the one byte that lies in the next warp's columns (an L1/L2 hit).
//
// Borders cost nothing in the loop: a 3 x 3 stencil reads only columns -1 and W outside the
// image, so their source columns are resolved once on the host (left_col, right_col), and each
// input row goes through border_index once for the whole warp. A chunk that straddles the right
// edge (W not a multiple of 8) assembles its bytes one by one; it is one lane of one warp per row.
// Interior warps run a second copy of the row walk without any of it (plain loads and stores;
// all ops but the magnitude, see kSplitInterior).
//
// Arithmetic: SIMD within a register. Two neighbouring outputs are the 16-bit lanes of a 32-bit
// word holding the integer lo + 65536 * hi. Every step is a linear combination with integer
// weights, so the 32-bit word stays exactly that integer (mod 2^32) whatever borrows pass from the
// low lane to the high one; one correction at the end (+0x10000 when the low lane is negative)
// gives the two s16 values. Integer sums are exact: bit-identical to cv::Sobel / cv::Laplacian.
#include <cuda_runtime.h>

#include <cstdint>

#include "image/filter/stencil3x3_gpu.hpp"
#include "image/filter/warp512.cuh"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

// ---- Tuning policy (plain data), swept on the H100 (docs/apod/sobel.md, "Where it stands"):
// 4-row warps run dx u8 -> s16 at 911-915 Gpx/s against 861 with 8 rows (2 or 4 rows, 2-8 warps
// per block all measured 910-915): blocks half as long leave a shorter, more even tail on the SMs.
using warp512::kChunkPx;
using warp512::kChunks;
using warp512::kWarpPx;
constexpr int kWarps = 4;                         // warps per block, stacked down
constexpr int kRowsPerWarp = 4;                   // output rows per lane: (4 + 2) / 4 input rows read (L2 hits)
constexpr int kRowsAhead = 3;                     // input rows loaded ahead of their use
constexpr int kBlockRows = kWarps * kRowsPerWarp;
constexpr int kThreads = 32 * kWarps;
constexpr int kMaxGridY = 65535;

constexpr int kFromLane = -2;  // a halo column that no lane loads (it comes from a shuffle)

struct Stencil3x3Args {
  const std::uint8_t* src;
  std::size_t src_pitch;
  std::uint8_t* dst;
  std::size_t dst_pitch;
  int width, height;
  BorderMode border;
  unsigned border_value;    // 0..255 (constant border), else 0
  int left_col, right_col;  // border_index(-1, W), border_index(W, W): -1 stands for border_value
  int top_row, bottom_row;  // border_index(-1, H), border_index(H, H): -1 stands for border_value
};

// What one lane does across its rows; fixed for the whole kernel.
struct LanePlan {
  int lane;
  int x0[kChunks];
  bool full[kChunks];          // x0 + 8 <= W: one 64-bit load
  bool partial[kChunks];       // x0 < W < x0 + 8: byte by byte, columns >= W take the border byte
  int left_col;                // lane 0: the column left of chunk 0 (x0 - 1 or the border's); else kFromLane
  int right_col;               // the column right of the chunk that needs a loaded one, or kFromLane
  bool right_loaded[kChunks];  // chunk k's right neighbour is right_col (else the next lane's byte)
};

__device__ __forceinline__ LanePlan plan_lane(const Stencil3x3Args& a, int base, int lane) {
  LanePlan p;
  p.lane = lane;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    p.x0[k] = base + k * 32 * kChunkPx + lane * kChunkPx;
    p.full[k] = p.x0[k] + kChunkPx <= a.width;
    p.partial[k] = p.x0[k] < a.width && !p.full[k];
  }
  // Chunk 0 of lane 0 is the warp's first chunk, always inside the image (base < W).
  p.left_col = lane != 0 ? kFromLane : (p.x0[0] == 0 ? a.left_col : p.x0[0] - 1);
  // A full chunk ending exactly at W takes the border column; lane 31's chunk 1 takes the next
  // warp's first column. Partial chunks hold their border byte inside (column W - x0 < 8), and
  // chunks outside the image need nothing.
  p.right_loaded[0] = p.x0[0] + kChunkPx == a.width;
  p.right_loaded[1] = p.x0[1] + kChunkPx == a.width || lane == 31;
  if (p.x0[0] + kChunkPx == a.width || p.x0[1] + kChunkPx == a.width) p.right_col = a.right_col;
  else if (lane == 31 && p.x0[1] + kChunkPx < a.width) p.right_col = p.x0[1] + kChunkPx;
  else p.right_col = kFromLane;
  return p;
}

// One input row as a lane loads it: its two chunks, and the halo bytes it loads itself.
struct RawRow {
  uint2 chunk[kChunks];
  unsigned left, right;
};

__device__ __forceinline__ unsigned load_column(const std::uint8_t* row, int col, unsigned border_value) {
  if (col >= 0) return __ldg(row + col);
  return col == -1 ? border_value : 0u;
}

// The chunk at x0 with columns >= W replaced by `border_byte` (only column W is ever used).
__device__ __forceinline__ uint2 load_partial_chunk(const std::uint8_t* row, int x0, int width, unsigned border_byte) {
  unsigned w[2] = {0u, 0u};
#pragma unroll
  for (int q = 0; q < kChunkPx; ++q) {
    const unsigned b = x0 + q < width ? static_cast<unsigned>(__ldg(row + x0 + q)) : border_byte;
    w[q >> 2] |= b << (8 * (q & 3));
  }
  return make_uint2(w[0], w[1]);
}

// Input row r >= -1 with the border applied: the stencil reads rows -1 and H outside the image,
// and rows past H only feed outputs that are not stored. The branch is the same for the warp.
// An interior warp (kInterior: columns x0[0] - 4 .. x0[1] + 11 and all its rows inside the image)
// loads without border logic; lanes 0 and 31 load their halo byte as part of one 32-bit word.
template <bool kInterior>
__device__ __forceinline__ RawRow load_row(const Stencil3x3Args& a, const LanePlan& p, int r) {
  RawRow raw;
  if constexpr (kInterior) {
    const unsigned w = warp512::load_interior_row(a.src + std::size_t(r) * a.src_pitch, p.x0, p.lane, raw.chunk);
    raw.left = w >> 24;     // lane 0: column x0[0] - 1
    raw.right = w & 0xFFu;  // lane 31: column x0[1] + 8
    return raw;
  }
  const int ys = r < 0 ? a.top_row : (r >= a.height ? a.bottom_row : r);
  if (ys < 0) {  // constant border row
    const unsigned v4 = a.border_value * 0x01010101u;
#pragma unroll
    for (int k = 0; k < kChunks; ++k) raw.chunk[k] = make_uint2(v4, v4);
    raw.left = raw.right = a.border_value;
    return raw;
  }
  const std::uint8_t* row = a.src + std::size_t(ys) * a.src_pitch;
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    if (p.full[k]) raw.chunk[k] = __ldg(reinterpret_cast<const uint2*>(row + p.x0[k]));
    else if (p.partial[k]) raw.chunk[k] = load_partial_chunk(row, p.x0[k], a.width, load_column(row, a.right_col, a.border_value));
    else raw.chunk[k] = make_uint2(0u, 0u);
  }
  raw.left = load_column(row, p.left_col, a.border_value);
  raw.right = load_column(row, p.right_col, a.border_value);
  return raw;
}

// Columns x0 - 1 and x0 + 8 of each chunk (bytes 0..255). Executed by all 32 lanes.
__device__ __forceinline__ void halo_bytes(const RawRow& raw, const LanePlan& p, unsigned (&left)[kChunks],
                                           unsigned (&right)[kChunks]) {
  const int prev = (p.lane + 31) & 31, next = (p.lane + 1) & 31;
  // Lane 0 receives lane 31's words: its chunk 1 follows lane 31's chunk 0 (base + 248).
  const unsigned prev0 = __shfl_sync(0xFFFFFFFFu, raw.chunk[0].y, prev);
  const unsigned prev1 = __shfl_sync(0xFFFFFFFFu, raw.chunk[1].y, prev);
  const unsigned next0 = __shfl_sync(0xFFFFFFFFu, raw.chunk[0].x, next);
  const unsigned next1 = __shfl_sync(0xFFFFFFFFu, raw.chunk[1].x, next);
  left[0] = p.lane == 0 ? raw.left : prev0 >> 24;
  left[1] = (p.lane == 0 ? prev0 : prev1) >> 24;
  right[0] = p.right_loaded[0] ? raw.right : ((p.lane == 31 ? next1 : next0) & 0xFFu);
  right[1] = p.right_loaded[1] ? raw.right : (next1 & 0xFFu);
}

// One input row's horizontal parts for a chunk's 8 outputs, as 4 words of two 16-bit lanes
// (output 2k in the low lane, 2k + 1 in the high one):
//   sobel dx:  p = c[x+1] - c[x-1]                (then [1 2 1] down)
//   sobel dy:  p = c[x-1] + 2 c[x] + c[x+1]       (then [-1 0 1] down)
//   magnitude: p as dx, q as dy
//   laplacian: p = c[x-1] - 4 c[x] + c[x+1], q = c[x] (the vertical neighbours' share)
struct RowParts {
  unsigned p[4], q[4];
};

template <Stencil3x3 kOp>
__device__ __forceinline__ RowParts horizontal(uint2 chunk, unsigned left, unsigned right) {
  const unsigned lo = chunk.x, hi = chunk.y;  // columns x0 .. x0 + 3, x0 + 4 .. x0 + 7
  // a[k] = columns (x0 + 2k - 1, x0 + 2k): the left neighbours of outputs 2k, 2k + 1; a[k + 1] their
  // right neighbours; b[k] = columns (x0 + 2k, x0 + 2k + 1), the centres. left/right are < 256, so
  // their bytes 1..3 serve as zeros; selector 4 of a zero second operand likewise.
  unsigned a[5], b[4];
  a[0] = __byte_perm(left, lo, 0x1410);
  a[1] = __byte_perm(lo, 0u, 0x4241);
  a[2] = __byte_perm(lo >> 24, hi, 0x1410);
  a[3] = __byte_perm(hi, 0u, 0x4241);
  a[4] = __byte_perm(hi, right, 0x5453);
  b[0] = __byte_perm(lo, 0u, 0x4140);
  b[1] = __byte_perm(lo, 0u, 0x4342);
  b[2] = __byte_perm(hi, 0u, 0x4140);
  b[3] = __byte_perm(hi, 0u, 0x4342);
  RowParts r{};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const unsigned diff = a[k + 1] - a[k], smooth = a[k] + 2u * b[k] + a[k + 1];
    switch (kOp) {
      case Stencil3x3::sobel_dx_s16:
      case Stencil3x3::sobel_dx_abs: r.p[k] = diff; break;
      case Stencil3x3::sobel_dy_s16:
      case Stencil3x3::sobel_dy_abs: r.p[k] = smooth; break;
      case Stencil3x3::sobel_magnitude:
        r.p[k] = diff;
        r.q[k] = smooth;
        break;
      case Stencil3x3::laplacian_abs:
        r.p[k] = a[k] + a[k + 1] - 4u * b[k];
        r.q[k] = b[k];
        break;
    }
  }
  return r;
}

// The two s16 lanes of the integer lo + 65536 * hi (mod 2^32), |lo|, |hi| < 2^15: the low half
// already is lo; the high half is hi - 1 when lo < 0 (the borrow), which bit 15 tells.
__device__ __forceinline__ unsigned to_s16x2(unsigned x) { return x + ((x & 0x8000u) << 1); }
__device__ __forceinline__ int low_s16(unsigned w) { return static_cast<int>(w << 16) >> 16; }
__device__ __forceinline__ int high_s16(unsigned w) { return static_cast<int>(w) >> 16; }

// One output row of one chunk from the parts of input rows y - 1 (t), y (m), y + 1 (b).
template <Stencil3x3 kOp, bool kInterior>
__device__ __forceinline__ void store_chunk(const Stencil3x3Args& a, const LanePlan& p, int k, int y, const RowParts& t,
                                            const RowParts& m, const RowParts& b) {
  const bool full = kInterior || p.full[k];
  if (!full && !p.partial[k]) return;
  const int x0 = p.x0[k];
  std::uint8_t* out_row = a.dst + std::size_t(y) * a.dst_pitch;
  unsigned w[4];  // s16 pairs
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    switch (kOp) {
      case Stencil3x3::sobel_dx_s16:
      case Stencil3x3::sobel_dx_abs: w[j] = to_s16x2(t.p[j] + 2u * m.p[j] + b.p[j]); break;
      case Stencil3x3::sobel_dy_s16:
      case Stencil3x3::sobel_dy_abs: w[j] = to_s16x2(b.p[j] - t.p[j]); break;
      case Stencil3x3::sobel_magnitude: w[j] = to_s16x2(t.p[j] + 2u * m.p[j] + b.p[j]); break;  // dx; dy below
      case Stencil3x3::laplacian_abs: w[j] = to_s16x2(m.p[j] + t.q[j] + b.q[j]); break;
    }
  }
  if constexpr (kOp == Stencil3x3::sobel_dx_s16 || kOp == Stencil3x3::sobel_dy_s16) {
    std::int16_t* out = reinterpret_cast<std::int16_t*>(out_row) + x0;
    if (full) {
      *reinterpret_cast<uint4*>(out) = make_uint4(w[0], w[1], w[2], w[3]);
    } else {
#pragma unroll
      for (int q = 0; q < kChunkPx; ++q)
        if (x0 + q < a.width) out[q] = static_cast<std::int16_t>(q & 1 ? high_s16(w[q >> 1]) : low_s16(w[q >> 1]));
    }
  } else {
    unsigned v[kChunkPx];  // 0..255
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if constexpr (kOp == Stencil3x3::sobel_magnitude) {
        const unsigned dy = to_s16x2(b.q[j] - t.q[j]);
        const int gx[2] = {low_s16(w[j]), high_s16(w[j])}, gy[2] = {low_s16(dy), high_s16(dy)};
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          // gx^2 + gy^2 <= 2 * 1020^2 is exact in float; sqrtf is correctly rounded, and no square
          // root of an integer that size lies within float rounding of a .5 below 256 (sobel.hpp).
          const int r = __float2int_rn(sqrtf(static_cast<float>(gx[h] * gx[h] + gy[h] * gy[h])));
          v[2 * j + h] = static_cast<unsigned>(min(r, 255));
        }
      } else {  // cv::convertScaleAbs: saturate(|v|)
        v[2 * j] = static_cast<unsigned>(min(abs(low_s16(w[j])), 255));
        v[2 * j + 1] = static_cast<unsigned>(min(abs(high_s16(w[j])), 255));
      }
    }
    std::uint8_t* out = out_row + x0;
    if (full) {
      const unsigned lo = __byte_perm(__byte_perm(v[0], v[1], 0x0040), __byte_perm(v[2], v[3], 0x0040), 0x5410);
      const unsigned hi = __byte_perm(__byte_perm(v[4], v[5], 0x0040), __byte_perm(v[6], v[7], 0x0040), 0x5410);
      *reinterpret_cast<uint2*>(out) = make_uint2(lo, hi);
    } else {
#pragma unroll
      for (int q = 0; q < kChunkPx; ++q)
        if (x0 + q < a.width) out[q] = static_cast<std::uint8_t>(v[q]);
    }
  }
}

// Blocks per SM for __launch_bounds__: 6 (768 threads per SM, 80 registers). ptxas -v (CUDA
// 13.0, sm_90) fits every op in 80 registers without spills but the magnitude (4 bytes of
// spill); it measured 593 Gpx/s at 6 blocks against 562 at 5 all the same. Each SM has
// kRowsAhead * 16 bytes per thread of loads in flight, ~35 KB, well above what the
// bandwidth-latency product asks for.
constexpr int kMinBlocksPerSm = 6;

// The rows of one warp: y0 .. y0 + kRowsPerWarp - 1.
template <Stencil3x3 kOp, bool kInterior>
__device__ __forceinline__ void walk_rows(const Stencil3x3Args& a, const LanePlan& plan, int y0) {
  // Input rows y0 - 1 .. y0 + kRowsPerWarp. Fully unrolled: the arrays are registers, and only
  // kRowsAhead + 1 raw rows and 3 rows of parts are live at a time.
  constexpr int kInRows = kRowsPerWarp + 2;
  RawRow raw[kInRows];
  RowParts parts[kInRows][kChunks];
#pragma unroll
  for (int i = 0; i < kRowsAhead && i < kInRows; ++i) raw[i] = load_row<kInterior>(a, plan, y0 - 1 + i);
#pragma unroll
  for (int i = 0; i < kInRows; ++i) {
    if (i + kRowsAhead < kInRows) raw[i + kRowsAhead] = load_row<kInterior>(a, plan, y0 - 1 + i + kRowsAhead);
    unsigned left[kChunks], right[kChunks];
    halo_bytes(raw[i], plan, left, right);
#pragma unroll
    for (int k = 0; k < kChunks; ++k) parts[i][k] = horizontal<kOp>(raw[i].chunk[k], left[k], right[k]);
    if (i >= 2 && (kInterior || y0 + i - 2 < a.height)) {
#pragma unroll
      for (int k = 0; k < kChunks; ++k)
        store_chunk<kOp, kInterior>(a, plan, k, y0 + i - 2, parts[i - 2][k], parts[i - 1][k], parts[i][k]);
    }
  }
}

// Ops whose interior warps run the copy of the row walk without border logic. Measured on the H100
// (docs/apod/sobel.md): dx s16 +2.8 %, laplacian +17 %; the magnitude, whose square roots make
// the walk long, lost 7 % with two copies of it and keeps one.
template <Stencil3x3 kOp>
constexpr bool kSplitInterior = kOp != Stencil3x3::sobel_magnitude;

template <Stencil3x3 kOp>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm) stencil3x3_kernel(const __grid_constant__ Stencil3x3Args a) {
  const int y0 = (blockIdx.y * kWarps + threadIdx.y) * kRowsPerWarp;
  if (y0 >= a.height) return;  // whole warps only: the shuffles need all 32 lanes
  const int base = blockIdx.x * kWarpPx;
  const LanePlan plan = plan_lane(a, base, threadIdx.x);
  // Warps whose columns (with a halo word each side) and rows lie inside the image skip every
  // border and edge check: all but the first and last warp of each row of warps, and the first
  // and last rows of warps.
  const bool interior = base >= 4 && base + kWarpPx + 4 <= a.width && y0 >= 1 && y0 + kRowsPerWarp + 1 <= a.height;
  if constexpr (kSplitInterior<kOp>) {
    if (interior) return walk_rows<kOp, true>(a, plan, y0);
  }
  walk_rows<kOp, false>(a, plan, y0);
}

bool is_s16(Stencil3x3 op) { return op == Stencil3x3::sobel_dx_s16 || op == Stencil3x3::sobel_dy_s16; }

template <Stencil3x3 kOp>
void launch(const Stencil3x3Args& a, cudaStream_t stream) {
  const dim3 grid((a.width + kWarpPx - 1) / kWarpPx, (a.height + kBlockRows - 1) / kBlockRows), block(32, kWarps);
  stencil3x3_kernel<kOp><<<grid, block, 0, stream>>>(a);
}

}  // namespace

bool stencil3x3_supported(const GpuImage& src, const GpuImage& dst, Stencil3x3 op) {
  if (src.type != PixelType::u8 || src.channels != 1 || dst.channels != 1) return false;
  if (dst.type != (is_s16(op) ? PixelType::s16 : PixelType::u8)) return false;
  const auto aligned = [](const void* p, std::size_t pitch, std::size_t n) {
    return reinterpret_cast<std::uintptr_t>(p) % n == 0 && pitch % n == 0;
  };
  return aligned(src.data, src.pitch, 8) && aligned(dst.data, dst.pitch, is_s16(op) ? 16 : 8) &&
         (long(src.height) + kBlockRows - 1) / kBlockRows <= kMaxGridY;
}

void stencil3x3(const GpuImage& src, const GpuImage& dst, Stencil3x3 op, const BorderArgs& border, cudaStream_t stream) {
  if (!stencil3x3_supported(src, dst, op)) throw Error(ErrorCategory::internal, "stencil3x3: unsupported call");
  if (src.width != dst.width || src.height != dst.height) throw Error(ErrorCategory::internal, "stencil3x3: sizes differ");
  if (src.width == 0 || src.height == 0) return;
  Stencil3x3Args a{};
  set_byte_io(a, src, dst);
  a.border = border.mode;
  a.border_value = border.mode == BorderMode::constant ? static_cast<unsigned>(border.value) : 0u;
  a.left_col = border_index(-1, src.width, border.mode);
  a.right_col = border_index(src.width, src.width, border.mode);
  a.top_row = border_index(-1, src.height, border.mode);
  a.bottom_row = border_index(src.height, src.height, border.mode);
  switch (op) {
    case Stencil3x3::sobel_dx_s16: launch<Stencil3x3::sobel_dx_s16>(a, stream); break;
    case Stencil3x3::sobel_dy_s16: launch<Stencil3x3::sobel_dy_s16>(a, stream); break;
    case Stencil3x3::sobel_dx_abs: launch<Stencil3x3::sobel_dx_abs>(a, stream); break;
    case Stencil3x3::sobel_dy_abs: launch<Stencil3x3::sobel_dy_abs>(a, stream); break;
    case Stencil3x3::sobel_magnitude: launch<Stencil3x3::sobel_magnitude>(a, stream); break;
    case Stencil3x3::laplacian_abs: launch<Stencil3x3::laplacian_abs>(a, stream); break;
  }
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
