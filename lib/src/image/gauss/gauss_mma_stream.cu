// The Gaussian's tensor_core rung, streaming form: instead of staging a tile, waiting and
// computing (gauss_mma.cu), a block walks down a 128-column strip and stages raw input rows with
// cp.async a few steps ahead of the tensor cores. For 1-channel images with 16-byte aligned input
// rows and taps below 256 (every sigma but the tiniest); other calls take the tiled kernel.
//
// Per warp: a strip of 16 output columns; per step 16 output rows (two 8-column halves).
// - Row pass on 8-bit integers, straight from the staged bytes, per 8 input rows (an R tile):
//   Rt (16 columns x 8 rows) = Ht (16 x 32) * Pt (32 x 8) as one mma.m16n8k32 u8 x u8 -> s32.
//   Pt(k, n) = pixel (row n, column x_s - 8 + k) for the strip starting at x_s, so Pt's B fragment
//   (4 consecutive k of one row per register) is one aligned 32-bit shared load; Ht(m, k) =
//   h(k - 8 - m + R), a band. The sums (< 2^16) are exact.
// - Column pass in fp16, not transposed: Out (16 rows x 8 columns) = V (16 x 32 rows) * R (32 x
//   8), V(m, k) = h(k - m), for each 8-column half. The row pass's accumulator layout (lane: column
//   g and g + 8, rows 2t and 2t + 1) is exactly the B layout this needs (k = rows 2t, 2t + 1;
//   n = column g), and Out's accumulator layout gives each lane two adjacent output columns of two
//   rows: 16-bit stores, no transpose through shared memory. R goes in as its two bytes, hi and lo
//   (exact fp16 integers), against 256 h and h: every product and the sum OpenCV's fixed-point
//   v < 2^24 are exact in fp32, so the result is bit-exact. The four R tiles of a step's window
//   slide two tiles per step.
// - The block: 8 warps side by side (128 columns), kBlockRows output rows. A ring of kStages
//   units of 16 input rows x 160 bytes (columns x0 - 16 .. x0 + 143 of the block); per two steps
//   every thread waits for the two units it copied, one barrier, then the copies for the units
//   kStages - 2 and kStages - 1 ahead go into the slots the barrier freed. Blocks wholly inside the image copy with cp.async
//   from running pointers; edge blocks apply the border rule per row and per 16-byte piece.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "image/filter/mma_tile.cuh"
#include "image/gauss/gauss_gpu.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

constexpr int kThreads = 256;                  // 8 warps side by side
constexpr int kStripW = 128;                   // output columns per block
constexpr int kPieces = (kStripW + 32) / 16;   // 16-byte pieces per staged row: x0 - 16 .. x0 + 143
constexpr int kRowPitch = 176;                 // bytes: 44 words, 12 mod 32 -- a B fragment's 8 rows x 4 words hit 32 banks
constexpr int kUnitRows = 16;                  // input rows per staging unit: two R tiles
constexpr int kUnitBytes = kUnitRows * kRowPitch;
constexpr int kStages = 6;                     // units in the ring: 2 in use, 4 in flight
constexpr int kBlockRows = 128;                // output rows per block
constexpr int kMinBlocks = 3;                  // blocks per SM asked of __launch_bounds__
constexpr int kMaxR = 7;
constexpr int kSmem = kStages * kUnitBytes;
static_assert(kPieces * kUnitRows <= kThreads, "one piece of a unit per thread");
static_assert(kStages >= 4, "two units in use and two in flight");

struct StreamArgs {
  const std::uint8_t* src;
  std::size_t src_pitch;
  std::uint8_t* dst;
  std::size_t dst_pitch;
  int width, height, r;
  BorderMode mode;
  unsigned border_value;
  int h[2 * kMaxR + 1];
};

__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ int tap(const StreamArgs& a, int j) { return j >= 0 && j <= 2 * a.r ? a.h[j] : 0; }

__device__ __forceinline__ unsigned half2_of(int lo, int hi) {
  const __half2 v = __halves2half2(__int2half_rn(lo), __int2half_rn(hi));
  return *reinterpret_cast<const unsigned*>(&v);
}

// Stages unit u (input rows y0 - R + 16u .. + 15 of the block) into `slot`: thread tid copies
// piece tid % kPieces of row tid / kPieces. The general form for edge blocks: the border rule per
// row and per piece (rows past H + R - 1 feed only outputs that are not stored).
__device__ __forceinline__ void stage_unit(const StreamArgs& a, unsigned char* slot, int bx0, int by0, int u) {
  const int tid = threadIdx.x;
  if (tid >= kUnitRows * kPieces) return;
  const int row = tid / kPieces, piece = tid - row * kPieces;
  const int y = by0 - a.r + kUnitRows * u + row;
  const int ys = y >= a.height + a.r ? a.height - 1 : border_index(y, a.height, a.mode);
  const int x = bx0 - 16 + 16 * piece;
  unsigned char* dst = slot + row * kRowPitch + 16 * piece;
  if (ys >= 0 && x >= 0 && x + 16 <= a.width) {
    cp_async16(static_cast<unsigned>(__cvta_generic_to_shared(dst)), a.src + std::size_t(ys) * a.src_pitch + x);
    return;
  }
  unsigned w[4] = {0u, 0u, 0u, 0u};
  const std::uint8_t* src_row = ys >= 0 ? a.src + std::size_t(ys) * a.src_pitch : nullptr;
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    const int c = x + i;
    if (c < -a.r || c >= a.width + a.r) continue;  // meets only zero taps of stored outputs
    const int xs = border_index(c, a.width, a.mode);
    const unsigned v = (src_row && xs >= 0) ? __ldg(src_row + xs) : a.border_value;
    w[i >> 2] |= v << (8 * (i & 3));
  }
  *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
}

// One block. kInterior: every input row and column the block reads lies inside the image, and
// every output it computes is stored with 16-bit stores -- no border rule, no bounds.
template <bool kInterior>
__device__ __forceinline__ void stream_block(const StreamArgs& a, unsigned char* ring, int bx0, int by0) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int steps = (min(kBlockRows, a.height - by0) + 15) / 16;  // steps of 16 output rows
  const int units = steps + 1;                                     // step p reads units p and p + 1
  const int R = a.r;

  // Ht's A fragment (u8 quads: rows g, g + 8; columns 4t.., 16 + 4t..), and V's A fragments for
  // the hi (256 h) and lo (h) terms, k-steps s = 0, 1 (rows g, g + 8; k = 16s + 2t, +1, +8, +9).
  auto quad = [&](int m, int k0) {
    unsigned v = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) v |= unsigned(tap(a, k0 + i - 8 - m + R)) << (8 * i);
    return v;
  };
  const unsigned ht[4] = {quad(g, 4 * t), quad(g + 8, 4 * t), quad(g, 16 + 4 * t), quad(g + 8, 16 + 4 * t)};
  unsigned vhi[2][4], vlo[2][4];
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const int k = 16 * s + 2 * t;
    const int d[4] = {k - g, k - g - 8, k + 8 - g, k - g};  // V(m, k) = h(k - m): (g, k) (g + 8, k) (g, k + 8) (g + 8, k + 8)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      vlo[s][i] = half2_of(tap(a, d[i]), tap(a, d[i] + 1));
      vhi[s][i] = half2_of(256 * tap(a, d[i]), 256 * tap(a, d[i] + 1));
    }
  }

  // Interior staging: this thread's piece (row tid / kPieces of every unit) as a running pointer.
  const bool stager = threadIdx.x < kUnitRows * kPieces;
  const int srow = threadIdx.x / kPieces, spiece = threadIdx.x - srow * kPieces;
  const std::uint8_t* sp = a.src + std::size_t(max(by0 - R + srow, 0)) * a.src_pitch + (bx0 - 16 + 16 * spiece);
  const unsigned ring_s = static_cast<unsigned>(__cvta_generic_to_shared(ring)) + unsigned(srow * kRowPitch + 16 * spiece);
  auto stage = [&](int u) {
    if constexpr (kInterior) {
      if (stager) cp_async16(ring_s + unsigned((u % kStages) * kUnitBytes), sp + std::size_t(kUnitRows * u) * a.src_pitch);
    } else {
      stage_unit(a, ring + (u % kStages) * kUnitBytes, bx0, by0, u);
    }
  };

  // This lane's B-fragment words in an R tile: row g, bytes 16 warp + 8 + 4t and + 16.
  const int b_off = g * kRowPitch + 16 * warp + 8 + 4 * t;
  // R tile at `tile` as the column pass's B halves: [0] column g, [1] column g + 8, rows 2t and
  // 2t + 1 of the tile; hi = the sums' byte 1, lo = byte 0, as exact fp16 integers.
  auto row_pass = [&](const unsigned char* tile, unsigned (&hi)[2], unsigned (&lo)[2]) {
    int r[4];
    mma_16832_u8(r, ht, *reinterpret_cast<const unsigned*>(tile + b_off), *reinterpret_cast<const unsigned*>(tile + b_off + 16));
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const unsigned both = __byte_perm(unsigned(r[2 * c]), unsigned(r[2 * c + 1]), 0x5410);  // the two sums' low 16 bits
      hi[c] = pixels_to_half2(both, 0x4341);
      lo[c] = pixels_to_half2(both, 0x4240);
    }
  };

  const int x = bx0 + 16 * warp + 2 * t;  // + 8 for the second half
  const bool halves = reinterpret_cast<std::uintptr_t>(a.dst) % 2 == 0 && a.dst_pitch % 2 == 0;
  std::uint8_t* out_base = a.dst + std::size_t(by0 + g) * a.dst_pitch + x;
  // Step p: output rows 16p .. 16p + 15 from R tiles 2p .. 2p + 3 (ring slots w0 .. w0 + 3 mod 4).
  auto column_pass = [&](int p, const unsigned (&whi)[4][2], const unsigned (&wlo)[4][2], int w0) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float o[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        const int s0 = (w0 + 2 * s) & 3, s1 = (w0 + 2 * s + 1) & 3;
        mma_16816(o, vhi[s], make_uint2(whi[s0][half], whi[s1][half]));
        mma_16816(o, vlo[s], make_uint2(wlo[s0][half], wlo[s1][half]));
      }
      // o: rows g (o[0], o[1]) and g + 8 (o[2], o[3]), columns 2t and 2t + 1 of the half.
      const unsigned top = __byte_perm(fixed16_floor_bits(o[0]), fixed16_floor_bits(o[1]), 0x0040);
      const unsigned bottom = __byte_perm(fixed16_floor_bits(o[2]), fixed16_floor_bits(o[3]), 0x0040);
      std::uint8_t* out = out_base + std::size_t(16 * p) * a.dst_pitch + 8 * half;
      if constexpr (kInterior) {
        *reinterpret_cast<std::uint16_t*>(out) = static_cast<std::uint16_t>(top);
        *reinterpret_cast<std::uint16_t*>(out + 8 * a.dst_pitch) = static_cast<std::uint16_t>(bottom);
      } else {
        const int xc = x + 8 * half, y = by0 + 16 * p + g;
#pragma unroll
        for (int row = 0; row < 2; ++row) {
          const unsigned v = row ? bottom : top;
          std::uint8_t* o8 = out + (row ? 8 * a.dst_pitch : 0);
          if (y + 8 * row >= a.height || xc >= a.width) continue;
          if (halves && xc + 2 <= a.width) {
            *reinterpret_cast<std::uint16_t*>(o8) = static_cast<std::uint16_t>(v);
          } else {
            o8[0] = static_cast<std::uint8_t>(v);
            if (xc + 1 < a.width) o8[1] = static_cast<std::uint8_t>(v >> 8);
          }
        }
      }
    }
  };

  // Two units per barrier. Prologue: units 0 .. kStages - 3 in flight, one commit group each
  // (empty past the last unit, so that the group count stays uniform for cp.async.wait_group).
  // Iteration i reads units 2i and 2i + 1; after its barrier the slots of units 2i - 2 and 2i - 1
  // are free, and units 2i + kStages - 2 and 2i + kStages - 1 go into them.
#pragma unroll 1
  for (int u = 0; u < kStages - 2; ++u) {
    if (u < units) stage(u);
    cp_async_commit();
  }
  unsigned whi[4][2], wlo[4][2];  // R tiles by tile index mod 4
#pragma unroll 1
  for (int u0 = 0; u0 < units; u0 += 2) {
    cp_async_wait<kStages - 4>();  // this thread's copies of units u0 and u0 + 1 have landed
    __syncthreads();                // everyone's have; everyone is done with units u0 - 2, u0 - 1
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if (u0 + kStages - 2 + e < units) stage(u0 + kStages - 2 + e);
      cp_async_commit();
    }
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int u = u0 + e;
      if (u >= units) break;
      const unsigned char* unit = ring + (u % kStages) * kUnitBytes;
      row_pass(unit, whi[2 * e], wlo[2 * e]);                          // tile 2u: slot 2e
      row_pass(unit + 8 * kRowPitch, whi[2 * e + 1], wlo[2 * e + 1]);  // tile 2u + 1
      if (u >= 1) column_pass(u - 1, whi, wlo, 2 * e + 2);             // tiles 2u - 2 .. 2u + 1
    }
  }
  cp_async_wait<0>();
}

__global__ void __launch_bounds__(kThreads, kMinBlocks) gauss_mma_stream_kernel(const __grid_constant__ StreamArgs a) {
  extern __shared__ uint4 smem_gauss_stream[];
  unsigned char* ring = reinterpret_cast<unsigned char*>(smem_gauss_stream);
  const int bx0 = blockIdx.x * kStripW, by0 = blockIdx.y * kBlockRows;
  // Interior: input columns x0 - 16 .. x0 + 143 and rows y0 - R .. y0 + kBlockRows + 16 - R - 1
  // (the last unit's) inside the image, 16-bit aligned output rows.
  const bool interior = bx0 >= 16 && bx0 + kStripW + 16 <= a.width && by0 >= a.r &&
                        by0 + kBlockRows + 16 - a.r <= a.height && reinterpret_cast<std::uintptr_t>(a.dst) % 2 == 0 &&
                        a.dst_pitch % 2 == 0;
  if (interior) stream_block<true>(a, ring, bx0, by0);
  else stream_block<false>(a, ring, bx0, by0);
}

}  // namespace

bool gauss_mma_stream_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel) {
  const int k = static_cast<int>(kernel.size());
  if (src.type != PixelType::u8 || dst.type != PixelType::u8 || src.channels != 1 || dst.channels != 1) return false;
  if (k < 3 || k > 2 * kMaxR + 1 || k % 2 == 0) return false;
  for (int w : kernel)
    if (w < 0 || w > 255) return false;  // u8 weights for the row pass
  return reinterpret_cast<std::uintptr_t>(src.data) % 16 == 0 && src.pitch % 16 == 0 &&
         (long(dst.height) + kBlockRows - 1) / kBlockRows <= 65535;
}

void gauss_mma_stream(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
                      cudaStream_t stream) {
  if (!gauss_mma_stream_supported(src, dst, kernel)) throw Error(ErrorCategory::internal, "gauss_mma_stream: unsupported call");
  if (dst.width == 0 || dst.height == 0) return;
  StreamArgs a{};
  set_byte_io(a, src, dst);  // the sizes are equal (check_filter_views)
  a.r = static_cast<int>(kernel.size()) / 2;
  a.mode = border.mode;
  a.border_value = border.mode == BorderMode::constant ? static_cast<unsigned>(border.value) : 0u;
  for (std::size_t i = 0; i < kernel.size(); ++i) a.h[i] = kernel[i];
  const dim3 grid((dst.width + kStripW - 1) / kStripW, (dst.height + kBlockRows - 1) / kBlockRows);
  gauss_mma_stream_kernel<<<grid, kThreads, kSmem, stream>>>(a);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
