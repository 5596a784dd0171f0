#pragma once
// What the tensor-core kernels of the convolution family share (filter_mma.cu, gauss_mma.cu,
// gauss_mma_stream.cu):
// the mma.sync / ldmatrix wrappers and the staging of an 8-bit input tile into shared memory as
// fp16.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "image/filter/filter_device.cuh"

namespace wk::image::detail {

__device__ __forceinline__ void ldmatrix_x4(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3, unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x2(unsigned& r0, unsigned& r1, unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(address));
}

// d += a * b: a 16x16 fp16 row-major fragment, b 16x8 fp16 column-major, d 16x8 fp32.
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], uint2 b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
}

// d = a * b: a 16x32 u8 row-major fragment, b 32x8 u8 column-major (b0, b1), d 16x8 s32.
__device__ __forceinline__ void mma_16832_u8(int (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %10, %10, %10};"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(0));
}

// Two 8-bit pixels (the bytes of v that `selector` picks, as __byte_perm's nibbles 0 and 2) as a
// half2: 0x6400 | p is the half 1024 + p, and subtracting 1024 is exact.
__device__ __forceinline__ unsigned pixels_to_half2(unsigned v, unsigned selector) {
  const unsigned packed = __byte_perm(v, 0x64646464u, selector);
  const __half2 h = __hsub2(*reinterpret_cast<const __half2*>(&packed), __half2half2(__ushort_as_half(0x6400)));
  return *reinterpret_cast<const unsigned*>(&h);
}

// Stages rows x kCols pixels of channel c, from image position (gx0, gy0) on, as fp16 into
// `tile` (row pitch kPitch halves, kPitch % 4 == 0), resolving the border per pixel where the tile
// leaves the image. Interior tiles of 1-channel images with 4-byte aligned rows read aligned
// words and shift them into place. Each thread issues kBatch loads before it converts and stores
// any: one memory latency per batch. The caller synchronizes the block afterwards.
template <int kCols, int kPitch, int kThreads>
__device__ __forceinline__ void stage_fp16_tile(__half* tile, const Src<std::uint8_t>& src, int gx0, int gy0, int rows, int c,
                                                const BorderArgs& b) {
  static_assert(kCols % 4 == 0 && kPitch % 4 == 0, "whole words per row");
  const int tid = threadIdx.x;
  constexpr int kBatch = 8;
  const bool interior = src.cn == 1 && gx0 >= 0 && gy0 >= 0 && gy0 + rows <= src.height &&
                        (gx0 & ~3) + kCols + 4 <= src.width && rows_aligned(src, 4);
  if (interior) {
    constexpr int kWords = kCols / 4;
    const int total = rows * kWords, shift = 8 * (gx0 & 3);
    const unsigned* first = reinterpret_cast<const unsigned*>(src.data + std::size_t(gy0) * src.pitch) + (gx0 >> 2);
    for (int i0 = tid; i0 < total; i0 += kBatch * kThreads) {
      unsigned lo[kBatch], hi[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads, r = i / kWords, q = i - r * kWords;
        if (i < total) {
          const unsigned* w = first + std::size_t(r) * (src.pitch / 4) + q;
          lo[j] = __ldg(w);
          hi[j] = __ldg(w + 1);
        }
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads, r = i / kWords, q = i - r * kWords;
        if (i < total) {
          const unsigned v = __funnelshift_r(lo[j], hi[j], shift);
          *reinterpret_cast<uint2*>(tile + r * kPitch + 4 * q) = make_uint2(pixels_to_half2(v, 0x4140), pixels_to_half2(v, 0x4342));
        }
      }
    }
  } else {
    const int total = rows * kCols;
    for (int i0 = tid; i0 < total; i0 += kBatch * kThreads) {
      float v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads, r = i / kCols, q = i - r * kCols;
        if (i < total) v[j] = src.at_border(gx0 + q, gy0 + r, c, b);
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int i = i0 + j * kThreads;
        if (i < total) tile[(i / kCols) * kPitch + i % kCols] = __float2half_rn(v[j]);
      }
    }
  }
}

}  // namespace wk::image::detail
