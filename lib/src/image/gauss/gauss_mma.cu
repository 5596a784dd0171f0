// The Gaussian's tensor_core rung: both 1-D passes of cv::GaussianBlur's bit-exact 8-bit path as
// mma.sync products (m16n8k16, fp16 in, fp32 accumulate), with the row pass's results handed to
// the column pass in registers.
//
// The formulation, for a warp's strip of 16 columns and a tile of 8 rows (R = K / 2, h the K
// integer taps with 8 fractional bits, summing to 256):
// - Row pass, transposed: Rt (16 columns x 8 rows) = Ht (16 x 32) * Pt (32 x 8), where
//   Pt(k, n) = pixel (row n, column k - R of the strip) and Ht(m, k) = h(k - m), a band. Pt as the
//   mma's B operand is 8 image rows of 8 consecutive fp16 pixels: ldmatrix straight from the
//   staged tile. The sums are integers below 256 * 255 < 2^16, exact in fp32.
// - Column pass, transposed: Out^t (16 x 8) = Rt (16 x 32 rows of R) * Vt (32 x 8), Vt(k, n) =
//   h(k - n). The accumulator layout of the row pass (lane: column lane/4 (+8), rows 2 (lane % 4)
//   and +1) is exactly the A-operand layout the column pass needs, so two consecutive 8-row R
//   tiles are one A fragment: no shared memory, no shuffles between the passes. A sliding window
//   of four R tiles covers the 8 + 2R <= 22 rows each 8 output rows read.
// - R does not fit fp16's 11 significant bits, so it goes in as two exact terms: hi = fp16(R),
//   lo = R - hi (|lo| <= 16). Products of a tap (9 bits) and a term are exact in fp32, and the sum,
//   OpenCV's fixed-point v * 2^16 < 2^24, is exact too: the result is bit-exact, as the other rungs.
// The block: 8 warps, a 128 x 128 output tile staged as the conv tensor_core rung stages its own
// (47 KB of fp16 for K = 15); per 8 output rows a warp issues one ldmatrix.x4 and 2 + 4 mma for
// 128 outputs, and writes them through a 128-byte transpose buffer as one 32-bit store per lane.
// 128 rows per block measured 388 Gpx/s at 15x15 against 340 with 64 (H100, 2026-11-22).
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

constexpr int kThreads = 256;             // 8 warps
constexpr int kTileW = 128;               // 8 strips of 16 columns
constexpr int kTileH = 128;               // 16 output tiles of 8 rows per strip
constexpr int kMaxR = 7;                  // K <= 15: the row pass's 16 + 2R columns fit 2 k-steps
constexpr int kCols = kTileW + 16;        // strip w reads tile columns 16w .. 16w + 31
constexpr int kPitch = kCols + 8;         // 76 words, an odd multiple of 4: conflict-free ldmatrix
constexpr int kRTiles = kTileH / 8 + 3;   // R tiles of 8 rows the column pass reads
constexpr int kRows = 8 * kRTiles;        // staged rows; those past kTileH + 2R are zero
constexpr std::size_t kSmem = sizeof(__half) * kRows * kPitch + 8 * 128;  // + the transpose buffers
static_assert(kSmem <= 48 * 1024, "within the default dynamic shared memory limit");

struct GaussMmaArgs {
  int r = 0;
  int h[2 * kMaxR + 1] = {};
};

__device__ __forceinline__ unsigned half2_bits(__half2 v) { return *reinterpret_cast<const unsigned*>(&v); }

// Taps i and i + 1 as a half2 (low half first), zero outside 0..2R: both band matrices' fragments
// pair consecutive taps.
__device__ __forceinline__ unsigned tap_pair(const GaussMmaArgs& a, int i) {
  auto tap = [&](int j) { return (j >= 0 && j <= 2 * a.r) ? a.h[j] : 0; };
  return half2_bits(__halves2half2(__int2half_rn(tap(i)), __int2half_rn(tap(i + 1))));
}

// Two exact integers below 2^16 as fp16 terms: hi = fp16(v), lo = v - hi (exact, |lo| <= 16).
__device__ __forceinline__ void split_terms(float v0, float v1, unsigned& hi, unsigned& lo) {
  const __half2 h = __floats2half2_rn(v0, v1);
  const float2 back = __half22float2(h);
  hi = half2_bits(h);
  lo = half2_bits(__floats2half2_rn(v0 - back.x, v1 - back.y));
}

__global__ void __launch_bounds__(kThreads, 4)
    gauss_mma_kernel(Src<std::uint8_t> src, Dst<std::uint8_t> dst, const __grid_constant__ GaussMmaArgs a, BorderArgs b) {
  extern __shared__ uint4 smem_gauss_mma[];
  __half* tile = reinterpret_cast<__half*>(smem_gauss_mma);
  const int R = a.r, rows = kTileH + 2 * R;
  const int bx0 = blockIdx.x * kTileW, by0 = blockIdx.y * kTileH, c = blockIdx.z;
  stage_fp16_tile<kCols, kPitch, kThreads>(tile, src, bx0 - R, by0 - R, rows, c, b);
  // The rows past kTileH + 2R meet only zero taps, but must hold finite values.
  unsigned* tail = reinterpret_cast<unsigned*>(tile + rows * kPitch);
  for (int i = threadIdx.x; i < (kRows - rows) * kPitch / 2; i += kThreads) tail[i] = 0;
  __syncthreads();

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  // Ht's A fragments (rows m = g, g + 8; columns k = 16s + 2t (+1), +8) and Vt's B fragments
  // (k = 16s + 2t (+1), +8; column n = g), for the two k-steps s.
  unsigned ht[2][4];
  uint2 vt[2];
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const int k = 16 * s + 2 * t;
    ht[s][0] = tap_pair(a, k - g);
    ht[s][1] = tap_pair(a, k - g - 8);
    ht[s][2] = tap_pair(a, k + 8 - g);
    ht[s][3] = ht[s][0];                   // (g + 8, k + 8): the same band diagonal as (g, k)
    vt[s] = make_uint2(ht[s][0], ht[s][2]);  // Vt(k, g) = h(k - g): Ht's row-g pairs
  }
  // ldmatrix.x4 over one R tile: lanes 8j..8j+7 address rows 0-7 of the 8-column block j.
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile)) +
                        2u * unsigned((lane & 7) * kPitch + warp * 16 + 8 * (lane >> 3));
  // R tile q (tile rows 8q..8q+7) of the strip, as hi and lo A-fragment halves.
  auto row_pass = [&](int q, unsigned (&hi)[2], unsigned (&lo)[2]) {
    unsigned p0, p1, p2, p3;
    ldmatrix_x4(p0, p1, p2, p3, base + 2u * unsigned(8 * q * kPitch));
    float r[4] = {0.f, 0.f, 0.f, 0.f};
    mma_16816(r, ht[0], make_uint2(p0, p1));
    mma_16816(r, ht[1], make_uint2(p2, p3));
    split_terms(r[0], r[1], hi[0], lo[0]);  // column g, rows 2t and 2t + 1
    split_terms(r[2], r[3], hi[1], lo[1]);  // column g + 8
  };

  unsigned char* xpose = reinterpret_cast<unsigned char*>(tile + kRows * kPitch) + 128 * warp;
  const int xs = bx0 + 16 * warp;
  const bool words = dst.cn == 1 && xs + 16 <= dst.width && rows_aligned(dst, 4);
  const int x = xs + 4 * (lane & 3);
  unsigned whi[4][2], wlo[4][2];  // R tiles j .. j + 3, slot q & 3
  row_pass(0, whi[0], wlo[0]);
  row_pass(1, whi[1], wlo[1]);
  row_pass(2, whi[2], wlo[2]);
#pragma unroll
  for (int j = 0; j < kTileH / 8; ++j) {
    row_pass(j + 3, whi[(j + 3) & 3], wlo[(j + 3) & 3]);
    float o[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const int q0 = (j + 2 * s) & 3, q1 = (j + 2 * s + 1) & 3;
      const unsigned ahi[4] = {whi[q0][0], whi[q0][1], whi[q1][0], whi[q1][1]};
      const unsigned alo[4] = {wlo[q0][0], wlo[q0][1], wlo[q1][0], wlo[q1][1]};
      mma_16816(o, ahi, vt[s]);
      mma_16816(o, alo, vt[s]);
    }
    // o: column g (rows 2t, 2t + 1) and column g + 8 of output rows 8j..8j+7. Transpose through
    // the warp's buffer (row-major 8 x 16 bytes), then lane l holds row l / 4, columns 4 (l % 4).
    const Epilogue e{EpilogueKind::fixed16};
    xpose[(2 * t) * 16 + g] = to_u8<EpilogueKind::fixed16>(o[0], e);
    xpose[(2 * t + 1) * 16 + g] = to_u8<EpilogueKind::fixed16>(o[1], e);
    xpose[(2 * t) * 16 + g + 8] = to_u8<EpilogueKind::fixed16>(o[2], e);
    xpose[(2 * t + 1) * 16 + g + 8] = to_u8<EpilogueKind::fixed16>(o[3], e);
    __syncwarp();
    const unsigned word = reinterpret_cast<const unsigned*>(xpose)[lane];
    __syncwarp();
    const int y = by0 + 8 * j + (lane >> 2);
    if (y < dst.height) {
      std::uint8_t* row = dst.data + std::size_t(y) * dst.pitch;
      if (words) {
        *reinterpret_cast<unsigned*>(row + x) = word;
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (x + i < dst.width) row[std::size_t(x + i) * dst.cn + c] = static_cast<std::uint8_t>(word >> (8 * i));
      }
    }
  }
}

}  // namespace

bool gauss_mma_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel) {
  const int k = static_cast<int>(kernel.size());
  if (src.type != PixelType::u8 || dst.type != PixelType::u8 || k < 3 || k > 2 * kMaxR + 1 || k % 2 == 0) return false;
  for (int w : kernel)
    if (w < 0 || w > 256) return false;
  return (dst.height + kTileH - 1) / kTileH <= 65535;
}

void gauss_mma(const GpuImage& src, const GpuImage& dst, const std::vector<int>& kernel, const BorderArgs& border,
               cudaStream_t stream) {
  if (!gauss_mma_supported(src, dst, kernel)) throw Error(ErrorCategory::internal, "gauss_mma: unsupported call");
  if (gauss_mma_stream_supported(src, dst, kernel)) return gauss_mma_stream(src, dst, kernel, border, stream);
  if (dst.width == 0 || dst.height == 0) return;
  GaussMmaArgs a;
  a.r = static_cast<int>(kernel.size()) / 2;
  for (std::size_t i = 0; i < kernel.size(); ++i) a.h[i] = kernel[i];
  const dim3 grid((dst.width + kTileW - 1) / kTileW, (dst.height + kTileH - 1) / kTileH, dst.channels);
  gauss_mma_kernel<<<grid, kThreads, kSmem, stream>>>(src_of<std::uint8_t>(src), dst_of<std::uint8_t>(dst), a, border);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
