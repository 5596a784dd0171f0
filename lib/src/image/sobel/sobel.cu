// The Sobel's fast GPU kernel: 3 x 3 derivatives of 8-bit gray, streaming. A block of 128 threads
// covers 1024 columns and a segment of rows; each thread owns 8 columns (one 64-bit load per row)
// and keeps the last three rows decoded in registers, so every input byte is read once (plus one
// row above and below each segment) and every output written with one 128-bit (s16) or 64-bit
// (u8) store. Column neighbours come from the neighbouring lanes (shuffles); the lanes at a
// warp's edges load theirs, prefetched with the row; warps at the image's left or right edge
// assemble their bytes with the border rule.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>

#include "image/sobel/sobel_gpu.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::image::detail {

namespace {

constexpr int kThreads = 128;
constexpr int kPx = 8;

struct SobelArgs {
  const std::uint8_t* src;
  std::size_t src_pitch;
  std::uint8_t* dst;
  std::size_t dst_pitch;
  int width, height;
  int rows_per_block;
  BorderMode border;
  unsigned border_value;
};

// One input row as a thread sees it: its 8 bytes, and the halo bytes its lane loads itself.
struct RawRow {
  unsigned w0, w1;
  unsigned left, right;  // columns x0 - 1 and x0 + 8 (edge lanes only)
};

__device__ __forceinline__ unsigned pixel(const SobelArgs& a, int ys, int x) {
  if (ys < 0) return a.border_value;
  const int xx = border_index(x, a.width, a.border);
  return xx < 0 ? a.border_value : a.src[std::size_t(ys) * a.src_pitch + xx];
}

// The edge warps' row, every byte through the border rule; out of line so that its folding
// loops stay out of the hot loop.
__device__ __noinline__ RawRow fetch_border_row(const SobelArgs& a, int ys, int x0) {
  RawRow r{0, 0, 0, 0};
  for (int b = 0; b < 4; ++b) {
    r.w0 |= pixel(a, ys, x0 + b) << (8 * b);
    r.w1 |= pixel(a, ys, x0 + 4 + b) << (8 * b);
  }
  r.left = pixel(a, ys, x0 - 1);
  r.right = pixel(a, ys, x0 + kPx);
  return r;
}

template <SobelMode kMode>
__global__ void __launch_bounds__(kThreads) sobel_rolling_kernel(const __grid_constant__ SobelArgs a) {
  const int lane = threadIdx.x & 31;
  const int x0 = (blockIdx.x * kThreads + threadIdx.x) * kPx;
  const int warp_x0 = x0 - lane * kPx;
  const bool interior = warp_x0 >= 1 && warp_x0 + 32 * kPx + 1 <= a.width;
  const int y_begin = blockIdx.y * a.rows_per_block;
  const int y_end = min(y_begin + a.rows_per_block, a.height);

  auto fetch = [&](int s) {
    RawRow r{0, 0, 0, 0};
    const int ys = border_index(s, a.height, a.border);
    if (interior) {
      if (ys < 0) {
        r.w0 = r.w1 = a.border_value * 0x01010101u;
        r.left = r.right = a.border_value;
      } else {
        const std::uint8_t* row = a.src + std::size_t(ys) * a.src_pitch;
        const uint2 v = __ldg(reinterpret_cast<const uint2*>(row + x0));
        r.w0 = v.x;
        r.w1 = v.y;
        if (lane == 0) r.left = __ldg(row + x0 - 1);
        if (lane == 31) r.right = __ldg(row + x0 + kPx);
      }
    } else {
      r = fetch_border_row(a, ys, x0);
    }
    return r;
  };
  // Columns x0 - 1 .. x0 + 8 of a row as integers.
  auto decode = [&](const RawRow& r, int (&c)[kPx + 2]) {
    const unsigned from_left = __shfl_up_sync(0xFFFFFFFFu, r.w1, 1) >> 24;
    const unsigned from_right = __shfl_down_sync(0xFFFFFFFFu, r.w0, 1) & 0xFFu;
    c[0] = static_cast<int>((interior && lane != 0) ? from_left : r.left);
    c[kPx + 1] = static_cast<int>((interior && lane != 31) ? from_right : r.right);
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      c[1 + b] = static_cast<int>((r.w0 >> (8 * b)) & 0xFFu);
      c[5 + b] = static_cast<int>((r.w1 >> (8 * b)) & 0xFFu);
    }
  };

  int rows[3][kPx + 2];  // input rows o - 1, o, o + 1
  RawRow ahead[2];
  {
    const RawRow r0 = fetch(y_begin - 1), r1 = fetch(y_begin);
    ahead[0] = fetch(min(y_begin + 1, y_end));
    ahead[1] = fetch(min(y_begin + 2, y_end));
    decode(r0, rows[1]);
    decode(r1, rows[2]);
  }
  for (int o = y_begin; o < y_end; ++o) {
    const RawRow next = ahead[0];
    ahead[0] = ahead[1];
    ahead[1] = fetch(min(o + 3, y_end));
#pragma unroll
    for (int q = 0; q < kPx + 2; ++q) {
      rows[0][q] = rows[1][q];
      rows[1][q] = rows[2][q];
    }
    decode(next, rows[2]);
    if (x0 >= a.width) continue;

    int dx[kPx], dy[kPx];
#pragma unroll
    for (int p = 0; p < kPx; ++p) {
      if constexpr (kMode != SobelMode::dy_s16 && kMode != SobelMode::dy_abs) {
        // [-1 0 1] across, [1 2 1] down
        const int left = rows[0][p] + 2 * rows[1][p] + rows[2][p];
        const int right = rows[0][p + 2] + 2 * rows[1][p + 2] + rows[2][p + 2];
        dx[p] = right - left;
      }
      if constexpr (kMode != SobelMode::dx_s16 && kMode != SobelMode::dx_abs) {
        // [1 2 1] across, [-1 0 1] down
        const int up = rows[0][p] + 2 * rows[0][p + 1] + rows[0][p + 2];
        const int down = rows[2][p] + 2 * rows[2][p + 1] + rows[2][p + 2];
        dy[p] = down - up;
      }
    }
    const bool whole = x0 + kPx <= a.width;
    std::uint8_t* out_row = a.dst + std::size_t(o) * a.dst_pitch;
    if constexpr (kMode == SobelMode::dx_s16 || kMode == SobelMode::dy_s16) {
      const int* v = kMode == SobelMode::dx_s16 ? dx : dy;
      std::int16_t* out = reinterpret_cast<std::int16_t*>(out_row) + x0;
      if (whole) {
        uint4 pack;
        pack.x = __byte_perm(v[0], v[1], 0x5410);
        pack.y = __byte_perm(v[2], v[3], 0x5410);
        pack.z = __byte_perm(v[4], v[5], 0x5410);
        pack.w = __byte_perm(v[6], v[7], 0x5410);
        *reinterpret_cast<uint4*>(out) = pack;
      } else {
        for (int p = 0; p < a.width - x0; ++p) out[p] = static_cast<std::int16_t>(v[p]);
      }
    } else {
      unsigned b[kPx];
#pragma unroll
      for (int p = 0; p < kPx; ++p) {
        if constexpr (kMode == SobelMode::magnitude) {
          // dx^2 + dy^2 <= 2 * 1020^2 is exact in float; sqrtf is correctly rounded, and no square
          // root of an integer that size lies within float rounding of a .5 below 256.
          const int m = __float2int_rn(sqrtf(static_cast<float>(dx[p] * dx[p] + dy[p] * dy[p])));
          b[p] = static_cast<unsigned>(min(m, 255));
        } else {
          const int v = kMode == SobelMode::dx_abs ? dx[p] : dy[p];
          b[p] = static_cast<unsigned>(min(abs(v), 255));
        }
      }
      std::uint8_t* out = out_row + x0;
      if (whole) {
        const unsigned lo = __byte_perm(__byte_perm(b[0], b[1], 0x0040), __byte_perm(b[2], b[3], 0x0040), 0x5410);
        const unsigned hi = __byte_perm(__byte_perm(b[4], b[5], 0x0040), __byte_perm(b[6], b[7], 0x0040), 0x5410);
        *reinterpret_cast<uint2*>(out) = make_uint2(lo, hi);
      } else {
        for (int p = 0; p < a.width - x0; ++p) out[p] = static_cast<std::uint8_t>(b[p]);
      }
    }
  }
}

template <SobelMode kMode>
void launch(SobelArgs& a, cudaStream_t stream) {
  auto kernel = sobel_rolling_kernel<kMode>;
  static std::once_flag once;
  static int resident_per_sm = 1;
  std::call_once(once, [&] { WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_per_sm, kernel, kThreads, 0)); });
  const int strips = (a.width + kThreads * kPx - 1) / (kThreads * kPx);
  const int resident = std::max(1, resident_per_sm) * sm_count();
  a.rows_per_block = rolling_rows_per_block(strips, a.height, resident, 1);
  kernel<<<dim3(strips, (a.height + a.rows_per_block - 1) / a.rows_per_block), kThreads, 0, stream>>>(a);
}

}  // namespace

bool sobel_rolling_supported(const GpuImage& src, const GpuImage& dst, SobelMode mode) {
  if (src.type != PixelType::u8 || src.channels != 1) return false;
  const bool s16 = mode == SobelMode::dx_s16 || mode == SobelMode::dy_s16;
  if (dst.type != (s16 ? PixelType::s16 : PixelType::u8)) return false;
  const auto aligned = [](const void* p, std::size_t pitch, std::size_t n) {
    return reinterpret_cast<std::uintptr_t>(p) % n == 0 && pitch % n == 0;
  };
  return aligned(src.data, src.pitch, 8) && aligned(dst.data, dst.pitch, s16 ? 16 : 8) && (src.height + 255) / 256 <= 65535;
}

void sobel_rolling(const GpuImage& src, const GpuImage& dst, SobelMode mode, const BorderArgs& border, cudaStream_t stream) {
  if (!sobel_rolling_supported(src, dst, mode)) throw Error(ErrorCategory::internal, "sobel_rolling: unsupported call");
  if (dst.width == 0 || dst.height == 0) return;
  SobelArgs a{};
  set_byte_io(a, src, dst);
  a.border = border.mode;
  a.border_value = static_cast<unsigned>(border.value);
  switch (mode) {
    case SobelMode::dx_s16: launch<SobelMode::dx_s16>(a, stream); break;
    case SobelMode::dy_s16: launch<SobelMode::dy_s16>(a, stream); break;
    case SobelMode::dx_abs: launch<SobelMode::dx_abs>(a, stream); break;
    case SobelMode::dy_abs: launch<SobelMode::dy_abs>(a, stream); break;
    case SobelMode::magnitude: launch<SobelMode::magnitude>(a, stream); break;
  }
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::image::detail
