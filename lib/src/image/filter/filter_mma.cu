// The tensor_core rung of the generic 2-D correlation: 8-bit inputs, any kernel up to 31x31, the
// sum computed as matrix products on the tensor cores (mma.sync m16n8k16, fp16 inputs, fp32
// accumulation).
//
// The formulation. For one kernel row ky, the 8 outputs out(x0 + n, y), n = 0..7, of one row are a
// product of the 8 + KW - 1 inputs in(x0 - ax + k, y + ky - ay) with a banded (Toeplitz) matrix
// B_ky(k, n) = w(ky, k - n) (zero outside 0 <= k - n < KW). Stacking 16 consecutive output rows
// gives A_ky (16 x K, rows of input) times B_ky (K x 8): one m16n8 tile, K padded to KS steps of
// 16 (KS = 1 up to KW = 9, 2 up to 25, 3 up to 31). Summing over ky accumulates in place. A_ky is
// the staged input tile shifted down ky rows, so ldmatrix with per-lane row addresses reads it
// straight from shared memory, and the next 8 outputs use the same B_ky with A shifted 8 columns.
// B_ky depends only on the weights: the host lays it out in the exact per-lane fragment order
// (a uint2 per lane: the halves b0..b3).
//
// The arithmetic. Pixels 0..255 are exact in fp16 and products of two fp16 values are exact in
// fp32. The weights are scaled by a power of two 2^s (the largest lands in [2^14, 2^15)) and split
// into fp16 terms: t0 = fp16(w 2^s), t1 = fp16(w 2^s - t0), t2 likewise (11 significant bits
// each); the sum is multiplied back by 2^-s. The host computes the worst-case effect of the weight
// rounding on an output, 255 * sum |w - (t0 + ...) 2^-s|, and takes the fewest terms that keep it
// at or below 2^-10 LSB, so the result agrees with a float computation except where it lies within
// 2^-10 of a rounding tie (the fp32 FFMA rungs' own rounding is of that order for large kernels).
// Weights that three terms cannot hold that closely (sums of |w| above ~2^16) run on
// register_blocked. Integer weights of up to 11 significant bits per term (box, Sobel, Laplacian,
// the Gaussian's 16-bit fixed-point taps) are held exactly, and their integer sums below 2^24 are
// exact in the fp32 accumulator, so those ops stay bit-exact on this rung.
//
// The block: 8 warps, a 128 x 64 output tile; warp w owns the 16-column strip 16w..16w+15 (two
// n-tiles) over 4 m-tiles of 16 rows, holding 4 x 2 accumulator fragments (32 floats). Per kernel
// row it loads its B fragments (KS x terms, from global memory through L1, shared by every block),
// per m-tile the 2 KS + 1 8-column blocks its A fragments are made of (KS ldmatrix.x4 and one .x2),
// and issues 2 x KS x terms mma per m-tile.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "image/filter/filter_device.cuh"
#include "image/filter/filter_gpu.hpp"
#include "image/filter/mma_tile.cuh"
#include "wk/core/cuda_check.hpp"

namespace wk::image::detail {

namespace {

constexpr int kMmaThreads = 256;  // 8 warps
constexpr int kMmaTileW = 128;    // 8 strips of 16 columns
constexpr int kMmaTileH = 64;     // 4 m-tiles of 16 rows
constexpr int kMTiles = kMmaTileH / 16;
constexpr double kMaxWeightError = 1.0 / 1024;  // LSB, worst case over any 8-bit image
constexpr int kMaxTerms = 3;                     // fp16 terms per weight: 11 significant bits each

// Staged input columns: a strip's A fragments are 8-column blocks 0 .. 2 KS of it (see the
// kernel), so the last strip reaches 16 * 7 + 8 * (2 KS + 1) columns. That count is 8 mod 16,
// so the row pitch in words is an odd multiple of 4 and the 8 rows one ldmatrix matrix reads
// (16 bytes each) fall on 8 disjoint groups of 4 banks.
template <int KS>
constexpr int tile_cols() {
  return kMmaTileW - 8 + 16 * KS;
}

template <class Tout, int KS, int kTerms>
__global__ void __launch_bounds__(kMmaThreads, 3)
    conv_mma_kernel(Src<std::uint8_t> src, Dst<Tout> dst, const uint2* __restrict__ frags, int kh, int ax, int ay,
                    float unscale, BorderArgs b, Epilogue e) {
  extern __shared__ uint4 smem_mma[];
  __half* tile = reinterpret_cast<__half*>(smem_mma);
  constexpr int kCols = tile_cols<KS>();  // also the row pitch, in halves
  const int rows = kMmaTileH + kh - 1;
  const int bx0 = blockIdx.x * kMmaTileW, by0 = blockIdx.y * kMmaTileH, c = blockIdx.z;
  const int gx0 = bx0 - ax, gy0 = by0 - ay;
  const int tid = threadIdx.x;
  stage_fp16_tile<kCols, kCols, kMmaThreads>(tile, src, gx0, gy0, rows, c, b);
  __syncthreads();

  const int warp = tid >> 5, lane = tid & 31;
  float acc[kMTiles][2][4];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int n = 0; n < 2; ++n)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[m][n][i] = 0.f;
  // The A fragment of n-tile n and k step s covers the strip's columns 8n + 16s .. + 15: the
  // 8-column blocks n + 2s and n + 2s + 1. So a warp loads blocks 0 .. 2 KS once per m-tile and
  // kernel row (both 8-row halves each) and builds every fragment from them. ldmatrix.x4 reads two
  // blocks: lanes 0-7 / 8-15 address rows 0-7 / 8-15 of the first, lanes 16-31 those of the
  // second; .x2 reads one with lanes 0-15.
  constexpr int kBlocks = 2 * KS + 1;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile)) +
                        2u * unsigned(((lane & 7) + (lane & 8)) * kCols + warp * 16 + ((lane >> 4) << 3));
  const uint2* f = frags + lane;
  for (int ky = 0; ky < kh; ++ky) {
    uint2 bf[kTerms][KS];
#pragma unroll
    for (int t = 0; t < kTerms; ++t)
#pragma unroll
      for (int s = 0; s < KS; ++s) bf[t][s] = __ldg(f + ((ky * kTerms + t) * KS + s) * 32);
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
      const unsigned row = base + 2u * unsigned((16 * m + ky) * kCols);
      unsigned blk[kBlocks][2];
#pragma unroll
      for (int p = 0; p + 1 < kBlocks; p += 2) ldmatrix_x4(blk[p][0], blk[p][1], blk[p + 1][0], blk[p + 1][1], row + 16u * p);
      ldmatrix_x2(blk[kBlocks - 1][0], blk[kBlocks - 1][1], row + 16u * (kBlocks - 1));
#pragma unroll
      for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int s = 0; s < KS; ++s) {
          const unsigned a[4] = {blk[n + 2 * s][0], blk[n + 2 * s][1], blk[n + 2 * s + 1][0], blk[n + 2 * s + 1][1]};
#pragma unroll
          for (int t = 0; t < kTerms; ++t) mma_16816(acc[m][n], a, bf[t][s]);
        }
    }
  }

  // Accumulator fragment: element i of (m, n) is row 16m + lane/4 + 8 (i >> 1), column
  // 8n + 2 (lane % 4) + (i & 1) of the warp's strip.
  const int t4 = lane & 3, xs = bx0 + 16 * warp, ys = by0 + (lane >> 2);
  if constexpr (sizeof(Tout) == 1) {
    // 8-bit gray, the strip inside the image, rows 4-byte aligned: a lane and its neighbour
    // swap one pixel pair so that each stores 4 consecutive pixels of each of its rows. The
    // epilogue's kind is picked once, not per value.
    if (dst.cn == 1 && xs + 16 <= dst.width && rows_aligned(dst, 4)) {
      const bool odd = t4 & 1;
      const int x = xs + (odd ? 6 + 2 * t4 : 2 * t4);
      epilogue_dispatch(e, [&](auto kind) {
        constexpr EpilogueKind K = decltype(kind)::value;
#pragma unroll
        for (int m = 0; m < kMTiles; ++m)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const unsigned p0 = unsigned(to_u8<K>(acc[m][0][2 * h] * unscale, e)) |
                                unsigned(to_u8<K>(acc[m][0][2 * h + 1] * unscale, e)) << 8;
            const unsigned p1 = unsigned(to_u8<K>(acc[m][1][2 * h] * unscale, e)) |
                                unsigned(to_u8<K>(acc[m][1][2 * h + 1] * unscale, e)) << 8;
            const unsigned other = __shfl_xor_sync(0xffffffffu, odd ? p0 : p1, 1);
            const int y = ys + 16 * m + 8 * h;
            if (y < dst.height)
              *reinterpret_cast<unsigned*>(dst.data + std::size_t(y) * dst.pitch + x) = odd ? other | p1 << 16 : p0 | other << 16;
          }
      });
      return;
    }
  }
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int n = 0; n < 2; ++n)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int x = xs + 2 * t4 + 8 * n + (i & 1), y = ys + 16 * m + 8 * (i >> 1);
        if (x < dst.width && y < dst.height) dst.store(x, y, c, acc[m][n][i] * unscale, e);
      }
}

// The weights as fp16 terms of w * 2^scale, and the fragment table the kernel reads.
struct MmaWeights {
  int terms = 0;  // 0: the tensor cores cannot hold these weights closely enough
  int scale = 0;
  std::vector<uint2> frags;
};

std::uint16_t half_bits(__half h) { return __half_as_ushort(h); }

MmaWeights mma_weights(const Taps2D& taps, int ks) {
  MmaWeights r;
  const int n = taps.width * taps.height;
  float largest = 0.f;
  for (int i = 0; i < n; ++i) largest = std::fmax(largest, std::fabs(taps.w[i]));
  if (!std::isfinite(largest)) return r;
  r.scale = largest > 0.f ? 14 - std::ilogb(largest) : 0;
  if (r.scale > 120 || r.scale < -120) return r;
  // term[t][i]: w_i * 2^scale = term[0][i] + term[1][i] + ... Each rest is exact in float (the
  // difference of a float and its rounding to fewer bits).
  std::vector<__half> term[kMaxTerms];
  double error[kMaxTerms] = {};
  for (auto& t : term) t.resize(n);
  for (int i = 0; i < n; ++i) {
    float rest = std::ldexp(taps.w[i], r.scale);  // exact: a power-of-two scaling, no overflow
    for (int t = 0; t < kMaxTerms; ++t) {
      term[t][i] = __float2half_rn(rest);
      rest -= __half2float(term[t][i]);
      error[t] += std::fabs(double(rest));
    }
  }
  const double to_lsb = 255.0 * std::ldexp(1.0, -r.scale);
  int used = 1;  // error[t]: what is left after t + 1 terms
  while (used < kMaxTerms && error[used - 1] * to_lsb > kMaxWeightError) ++used;
  if (error[used - 1] * to_lsb > kMaxWeightError) return r;
  r.terms = used;
  // Fragment order: [ky][term][k step][lane], b0 b1 in .x, b2 b3 in .y (low half first). Lane l
  // holds B(k, n) = w(ky, k - n) for n = l / 4 and k = 16 * step + 2 * (l % 4) + {0, 1, 8, 9};
  // both n-tiles use the same B (their A fragments start 8 columns apart).
  r.frags.resize(std::size_t(taps.height) * r.terms * ks * 32);
  auto weight = [&](int t, int ky, int k, int col) -> std::uint16_t {
    const int j = k - col;
    if (j < 0 || j >= taps.width) return 0;
    return half_bits(term[t][ky * taps.width + j]);
  };
  std::size_t o = 0;
  for (int ky = 0; ky < taps.height; ++ky)
    for (int t = 0; t < r.terms; ++t)
      for (int step = 0; step < ks; ++step)
        for (int l = 0; l < 32; ++l) {
          const int col = l / 4, k = 16 * step + 2 * (l % 4);
          r.frags[o].x = weight(t, ky, k, col) | unsigned(weight(t, ky, k + 1, col)) << 16;
          r.frags[o].y = weight(t, ky, k + 8, col) | unsigned(weight(t, ky, k + 9, col)) << 16;
          ++o;
        }
  return r;
}

template <class Tout, int KS, int kTerms>
void launch_mma(const GpuImage& s, const GpuImage& d, const Taps2D& taps, const uint2* frags, float unscale,
                const BorderArgs& b, const Epilogue& e, cudaStream_t stream) {
  const dim3 grid((d.width + kMmaTileW - 1) / kMmaTileW, (d.height + kMmaTileH - 1) / kMmaTileH, d.channels);
  const std::size_t smem = sizeof(__half) * tile_cols<KS>() * (kMmaTileH + taps.height - 1);  // <= 31.5 KB
  conv_mma_kernel<Tout, KS, kTerms><<<grid, kMmaThreads, smem, stream>>>(src_of<std::uint8_t>(s), dst_of<Tout>(d), frags,
                                                                        taps.height, taps.anchor_x, taps.anchor_y,
                                                                        unscale, b, e);
}

template <class Tout, int KS>
void launch_mma_terms(const GpuImage& s, const GpuImage& d, const Taps2D& taps, int terms, const uint2* frags,
                      float unscale, const BorderArgs& b, const Epilogue& e, cudaStream_t stream) {
  if (terms == 1) launch_mma<Tout, KS, 1>(s, d, taps, frags, unscale, b, e, stream);
  else if (terms == 2) launch_mma<Tout, KS, 2>(s, d, taps, frags, unscale, b, e, stream);
  else launch_mma<Tout, KS, 3>(s, d, taps, frags, unscale, b, e, stream);
}

template <class Tout>
void launch_mma_for(const GpuImage& s, const GpuImage& d, const Taps2D& taps, int ks, int terms, const uint2* frags,
                    float unscale, const BorderArgs& b, const Epilogue& e, cudaStream_t stream) {
  if (ks == 1) launch_mma_terms<Tout, 1>(s, d, taps, terms, frags, unscale, b, e, stream);
  else if (ks == 2) launch_mma_terms<Tout, 2>(s, d, taps, terms, frags, unscale, b, e, stream);
  else launch_mma_terms<Tout, 3>(s, d, taps, terms, frags, unscale, b, e, stream);
}

}  // namespace

bool filter2d_mma(const GpuImage& s, const GpuImage& d, const Taps2D& taps, const BorderArgs& b, const Epilogue& e,
                  cudaStream_t stream) {
  if (s.type != PixelType::u8 || d.type == PixelType::f32 || taps.width < 1 || taps.width > kMaxKernelSize) return false;
  if ((d.height + kMmaTileH - 1) / kMmaTileH > 65535) return false;
  const int ks = (8 + taps.width - 1 + 15) / 16;  // k steps of 16 for one n-tile of 8
  const MmaWeights w = mma_weights(taps, ks);
  if (w.terms == 0) return false;
  // The table: a stream-ordered copy (the pageable source is staged before cudaMemcpyAsync
  // returns), freed after the kernel. A copy from pageable memory may hold the calling thread
  // until the stream reaches it; a per-device cache of uploaded tables would avoid that, but
  // allocations kept for the process are leaks to compute-sanitizer's leak check (tried:
  // memcheck failed), so it would need an explicit release at shutdown.
  uint2* frags = nullptr;
  const std::size_t bytes = sizeof(uint2) * w.frags.size();
  WK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&frags), bytes, stream));
  WK_CUDA_CHECK(cudaMemcpyAsync(frags, w.frags.data(), bytes, cudaMemcpyHostToDevice, stream));
  const float unscale = std::ldexp(1.f, -w.scale);
  if (d.type == PixelType::u8) launch_mma_for<std::uint8_t>(s, d, taps, ks, w.terms, frags, unscale, b, e, stream);
  else launch_mma_for<std::int16_t>(s, d, taps, ks, w.terms, frags, unscale, b, e, stream);
  WK_CUDA_CHECK_LAUNCH();
  WK_CUDA_CHECK(cudaFreeAsync(frags, stream));
  return true;
}

}  // namespace wk::image::detail
