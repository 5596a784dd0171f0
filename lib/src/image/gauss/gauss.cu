// The Gaussian's fast GPU path: bit-exact cv::GaussianBlur on 8-bit gray (and sharpen fused into
// its epilogue). See gauss_gpu.hpp for the scheme.
//
// Layout: a block of 128 threads covers 128 * PX consecutive columns and a segment of rows; a
// thread owns PX columns (PX = 8 for radius <= 3, else 4, to bound the ring of pending outputs
// at (2R + 1) * PX registers). Neighbouring columns come from the neighbouring lanes by shuffles;
// the lanes at a warp's edges load theirs, prefetched with the row. Warps that touch the left or
// right image edge build their words byte by byte with the border rule.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>

#include "image/filter/filter_device.cuh"
#include "image/gauss/gauss_gpu.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

constexpr int kThreads = 128;
constexpr int kMaxR = 7;
constexpr int kMaxWords = 2 * ((kMaxR + 3) / 4) + 1;  // coefficient words per output phase

struct RollArgs {
  const std::uint8_t* src;
  std::size_t src_pitch;
  std::uint8_t* dst;
  std::size_t dst_pitch;
  int width, height;
  int rows_per_block;
  BorderMode border;
  unsigned border_word;  // the constant border byte in all four lanes
  // coef[r][d + DL]: the horizontal taps that land in data word (m + d) for the output at byte
  // 4m + r of a thread's columns, one byte each (dp4a operand).
  unsigned coef[4][kMaxWords];
  float ky[2 * kMaxR + 1];  // vertical taps (the same integers)
  float alpha, beta, gamma;  // sharpen
};

// Does coefficient word d of output phase r hold any tap? (compile time)
__host__ __device__ constexpr bool word_used(int R, int r, int d) { return 4 * d <= R + r && 4 * d >= r - R - 3; }

__device__ __forceinline__ unsigned load_u32(const std::uint8_t* p) { return __ldg(reinterpret_cast<const unsigned*>(p)); }

// Byte-by-byte word at columns [x, x + 4) of row ys (ys < 0: constant row), border applied.
// Kept out of line: only the warps at the image's left and right edges call it, and inlining its
// folding loops into every unrolled step would bloat the hot loop's code and registers.
__device__ __noinline__ unsigned border_word(const RollArgs& a, int ys, int x) {
  if (ys < 0) return a.border_word;
  const std::uint8_t* row = a.src + std::size_t(ys) * a.src_pitch;
  unsigned w = 0;
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const int xx = border_index(x + b, a.width, a.border);
    const unsigned v = xx < 0 ? (a.border_word & 0xFFu) : row[xx];
    w |= v << (8 * b);
  }
  return w;
}

// Raw words of one input row for a thread: its own words and the halo words its lane loads
// itself (its neighbour lane is in another warp).
template <int PXW, int DL>
struct RowWords {
  unsigned own[PXW];
  unsigned halo[2 * DL];  // [0, DL): left words -DL..-1, [DL, 2DL): right words PXW..PXW+DL-1
};

// The edge warps' row: every byte through the border rule.
template <int PXW, int DL>
__device__ __noinline__ RowWords<PXW, DL> fetch_border_row(const RollArgs& a, int ys, int x0) {
  RowWords<PXW, DL> rw;
#pragma unroll
  for (int k = 0; k < PXW; ++k) rw.own[k] = border_word(a, ys, x0 + 4 * k);
#pragma unroll
  for (int k = 0; k < DL; ++k) {
    rw.halo[k] = border_word(a, ys, x0 + 4 * (k - DL));
    rw.halo[DL + k] = border_word(a, ys, x0 + 4 * (PXW + k));
  }
  return rw;
}

// One finished output row of gauss_rolling_kernel: OpenCV's fixed-point rounding of the PX sums
// (with the sharpen weighting against the centre input row), packed into words and stored.
template <int R, int PX, bool kSharpen>
__device__ __forceinline__ void store_rolling_row(const RollArgs& a, const float (&acc)[PX], const unsigned (&centre)[R + 1][PX / 4],
                                                  int o, int x0) {
  constexpr int PXW = PX / 4;
  unsigned words[PXW];
#pragma unroll
  for (int k = 0; k < PXW; ++k) {
    unsigned b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      unsigned v = fixed16_floor_bits(acc[4 * k + i]) & 0xFFu;  // (v + 2^15) >> 16, exact
      if constexpr (kSharpen) {
        const float src_px = static_cast<float>((centre[R][k] >> (8 * i)) & 0xFFu);
        v = add_weighted_u8(src_px, static_cast<float>(v), a.alpha, a.beta, a.gamma);
      }
      b[i] = v;
    }
    words[k] = __byte_perm(__byte_perm(b[0], b[1], 0x0040), __byte_perm(b[2], b[3], 0x0040), 0x5410);
  }
  std::uint8_t* out = a.dst + std::size_t(o) * a.dst_pitch + x0;
  if (x0 + PX <= a.width) {
    if constexpr (PXW == 2) *reinterpret_cast<uint2*>(out) = make_uint2(words[0], words[1]);
    else *reinterpret_cast<unsigned*>(out) = words[0];
  } else {
    for (int p = 0; p < a.width - x0; ++p) out[p] = static_cast<std::uint8_t>(words[p / 4] >> (8 * (p % 4)));
  }
}

template <int R, int PX, bool kSharpen>
__global__ void __launch_bounds__(kThreads) gauss_rolling_kernel(const __grid_constant__ RollArgs a) {
  constexpr int K = 2 * R + 1;
  constexpr int PXW = PX / 4;        // own words
  constexpr int DL = (R + 3) / 4;    // halo words on each side
  constexpr int NW = DL + PXW + DL;  // window words
  constexpr int kAhead = 3;          // rows prefetched ahead (bytes in flight for the memory-bound small kernels)

  const int lane = threadIdx.x & 31;
  const int x0 = (blockIdx.x * kThreads + threadIdx.x) * PX;
  const int warp_x0 = x0 - lane * PX;
  // Interior warp: every word of every lane's window is inside the row.
  const bool interior = warp_x0 - 4 * DL >= 0 && warp_x0 + 32 * PX + 4 * DL <= a.width;
  const int y_begin = blockIdx.y * a.rows_per_block;
  const int y_end = min(y_begin + a.rows_per_block, a.height);

  // Which halo words a lane loads itself (its neighbour lane is in another warp).
  auto self_loaded = [&](int w) {
    const int lo = w < 0 ? -((-w + PXW - 1) / PXW) : w / PXW;
    return lane + lo < 0 || lane + lo > 31;
  };

  using RowWords = RowWords<PXW, DL>;
  auto fetch = [&](int s) {
    RowWords rw;
    const int ys = border_index(s, a.height, a.border);
    if (interior) {
      if (ys < 0) {
#pragma unroll
        for (int k = 0; k < PXW; ++k) rw.own[k] = a.border_word;
#pragma unroll
        for (int k = 0; k < 2 * DL; ++k) rw.halo[k] = a.border_word;
      } else {
        const std::uint8_t* row = a.src + std::size_t(ys) * a.src_pitch;
        if constexpr (PXW == 2) {
          const uint2 v = __ldg(reinterpret_cast<const uint2*>(row + x0));
          rw.own[0] = v.x;
          rw.own[1] = v.y;
        } else {
          rw.own[0] = load_u32(row + x0);
        }
#pragma unroll
        for (int k = 0; k < DL; ++k) {
          const int wl = k - DL, wr = PXW + k;
          rw.halo[k] = self_loaded(wl) ? load_u32(row + x0 + 4 * wl) : 0u;
          rw.halo[DL + k] = self_loaded(wr) ? load_u32(row + x0 + 4 * wr) : 0u;
        }
      }
    } else {
      rw = fetch_border_row<PXW, DL>(a, ys, x0);
    }
    return rw;
  };

  // The window words -DL .. PXW + DL - 1 of this lane: shuffles from neighbours, or own loads.
  auto window = [&](const RowWords& rw, unsigned (&win)[NW]) {
#pragma unroll
    for (int k = 0; k < PXW; ++k) win[DL + k] = rw.own[k];
#pragma unroll
    for (int k = 0; k < DL; ++k) {
      const int wl = k - DL;  // left word: lane - ceil(-wl / PXW), its own word (wl mod PXW)
      const int lo_l = (-wl + PXW - 1) / PXW;
      const unsigned from_l = __shfl_up_sync(0xFFFFFFFFu, rw.own[wl + lo_l * PXW], lo_l);
      win[k] = (interior && !self_loaded(wl)) ? from_l : rw.halo[k];
      const int wr = PXW + k;  // right word: lane + wr / PXW, its own word (wr mod PXW)
      const int lo_r = wr / PXW;
      const unsigned from_r = __shfl_down_sync(0xFFFFFFFFu, rw.own[wr - lo_r * PXW], lo_r);
      win[DL + PXW + k] = (interior && !self_loaded(wr)) ? from_r : rw.halo[DL + k];
    }
  };

  float acc[K][PX];
#pragma unroll
  for (int m = 0; m < K; ++m)
#pragma unroll
    for (int p = 0; p < PX; ++p) acc[m][p] = 0.f;
  unsigned centre[R + 1][PXW];  // sharpen: own words of the last R + 1 input rows
  if constexpr (kSharpen) {
#pragma unroll
    for (int m = 0; m <= R; ++m)
#pragma unroll
      for (int k = 0; k < PXW; ++k) centre[m][k] = 0;
  }

  const int s_first = y_begin - R, s_last = y_end + R;  // input rows [s_first, s_last)
  RowWords queue[kAhead + 1];
#pragma unroll
  for (int q = 0; q <= kAhead; ++q) queue[q] = fetch(min(s_first + q, s_last - 1));

  for (int s0 = s_first; s0 < s_last; s0 += K) {
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const int s = s0 + u;
      if (s >= s_last) break;  // uniform in the block
      const RowWords cur = queue[0];
#pragma unroll
      for (int q = 0; q < kAhead; ++q) queue[q] = queue[q + 1];
      queue[kAhead] = fetch(min(s + kAhead + 1, s_last - 1));

      // Horizontal pass: exact 8-bit dot products.
      unsigned win[NW];
      window(cur, win);
      float h[PX];
#pragma unroll
      for (int p = 0; p < PX; ++p) {
        const int m = p / 4, r = p % 4;
        unsigned sum = 0;
#pragma unroll
        for (int d = -DL; d <= DL; ++d)
          if (word_used(R, r, d)) sum = __dp4a(win[DL + m + d], a.coef[r][d + DL], sum);
        h[p] = __int_as_float(0x4B000000 | sum) - 8388608.f;  // exact: sum < 2^23
      }
      // Vertical pass: row s feeds the pending outputs s - R .. s + R (ring slot (u + d + 1) % K).
#pragma unroll
      for (int d = 0; d < K; ++d) {
        const int slot = (u + d + 1) % K;
#pragma unroll
        for (int p = 0; p < PX; ++p) acc[slot][p] = fmaf(a.ky[K - 1 - d], h[p], acc[slot][p]);
      }
      if constexpr (kSharpen) {
#pragma unroll
        for (int m = R; m > 0; --m)
#pragma unroll
          for (int k = 0; k < PXW; ++k) centre[m][k] = centre[m - 1][k];
#pragma unroll
        for (int k = 0; k < PXW; ++k) centre[0][k] = cur.own[k];
      }
      // Output s - R is complete.
      constexpr int kDone = 0;  // d = 0
      const int done = (u + kDone + 1) % K;
      const int o = s - R;
      if (o >= y_begin && x0 < a.width) store_rolling_row<R, PX, kSharpen>(a, acc[done], centre, o, x0);
#pragma unroll
      for (int p = 0; p < PX; ++p) acc[done][p] = 0.f;
    }
  }
}

template <int R, int PX, bool kSharpen>
void launch(RollArgs& a, cudaStream_t stream) {
  auto kernel = gauss_rolling_kernel<R, PX, kSharpen>;
  static std::once_flag once;
  static int resident_per_sm = 1;
  std::call_once(once, [&] { WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_per_sm, kernel, kThreads, 0)); });
  const int strips = (a.width + kThreads * PX - 1) / (kThreads * PX);
  const int resident = std::max(1, resident_per_sm) * sm_count();
  a.rows_per_block = rolling_rows_per_block(strips, a.height, resident, R);
  const dim3 grid(strips, (a.height + a.rows_per_block - 1) / a.rows_per_block);
  kernel<<<grid, kThreads, 0, stream>>>(a);
}

}  // namespace

bool gauss_rolling_supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k) {
  const int ksize = static_cast<int>(k.size());
  if (src.type != PixelType::u8 || dst.type != PixelType::u8 || src.channels != 1) return false;
  if (ksize < 3 || ksize > 2 * kMaxR + 1 || ksize % 2 == 0) return false;
  for (int c : k)
    if (c < 0 || c > 255) return false;
  const auto aligned8 = [](const void* p, std::size_t pitch) { return reinterpret_cast<std::uintptr_t>(p) % 8 == 0 && pitch % 8 == 0; };
  if (!aligned8(src.data, src.pitch) || !aligned8(dst.data, dst.pitch)) return false;
  return (src.height + 255) / 256 <= 65535;
}

void gauss_rolling(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, const BorderArgs& border,
                   const SharpenEpilogue& sharpen, cudaStream_t stream) {
  if (!gauss_rolling_supported(src, dst, k)) throw Error(ErrorCategory::internal, "gauss_rolling: unsupported call");
  if (dst.width == 0 || dst.height == 0) return;
  const int K = static_cast<int>(k.size()), R = K / 2;
  RollArgs a{};
  set_byte_io(a, src, dst);
  a.border = border.mode;
  a.border_word = 0x01010101u * static_cast<unsigned>(border.value);
  const int DL = (R + 3) / 4;
  for (int r = 0; r < 4; ++r)
    for (int d = -DL; d <= DL; ++d) {
      unsigned w = 0;
      for (int b = 0; b < 4; ++b) {
        const int t = 4 * d + b - r + R;  // tap index of data byte b of word d for output phase r
        if (t >= 0 && t < K) w |= static_cast<unsigned>(k[t]) << (8 * b);
      }
      a.coef[r][d + DL] = w;
    }
  for (int i = 0; i < K; ++i) a.ky[i] = static_cast<float>(k[i]);
  a.alpha = sharpen.alpha;
  a.beta = sharpen.beta;
  a.gamma = sharpen.gamma;
  if (sharpen.enabled) {
    switch (R) {
      case 1: launch<1, 8, true>(a, stream); break;
      case 2: launch<2, 8, true>(a, stream); break;
      default: throw Error(ErrorCategory::internal, "gauss_rolling: sharpen is fused for 3x3 and 5x5 only");
    }
  } else {
    switch (R) {
      case 1: launch<1, 8, false>(a, stream); break;
      case 2: launch<2, 8, false>(a, stream); break;
      case 3: launch<3, 8, false>(a, stream); break;
      case 4: launch<4, 4, false>(a, stream); break;
      case 5: launch<5, 4, false>(a, stream); break;
      case 6: launch<6, 4, false>(a, stream); break;
      default: launch<7, 4, false>(a, stream); break;
    }
  }
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
