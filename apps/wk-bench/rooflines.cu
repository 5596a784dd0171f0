// Memory rooflines finer than the device copy, timed like rungs on the same image:
// - read_only_pass: reads a buffer once with 128-bit loads and does nothing else. A histogram
//   reads each byte once and writes 1 KB: no histogram kernel can beat it (wk-bench histogram).
// - widen_pass: u8 -> s16 with no arithmetic, 1 byte read and 2 written per pixel, the traffic of
//   Sobel dx u8 -> s16: no such Sobel can beat it (wk-bench sobel).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "bench_util.hpp"
#include "wk/core/cuda_check.hpp"

namespace wk::bench {

namespace {

constexpr int kThreads = 1024;
constexpr int kUnroll = 2;  // 16-byte loads in flight per thread; the fastest of 1024 x 2, 512 x 4, 256 x 4 measured

// XOR-folds every 16-byte vector; writes only if the fold hits a value it almost never does, so
// the loads cannot be optimized away and the kernel writes nothing in practice.
__global__ void __launch_bounds__(kThreads) read_only_kernel(const uint4* src, std::size_t vectors, unsigned* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * kThreads;
  std::size_t i = std::size_t(blockIdx.x) * kThreads + threadIdx.x;
  unsigned fold = 0;
  for (; i + (kUnroll - 1) * stride < vectors; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldg(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) fold ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < vectors; i += stride) {
    const uint4 v = __ldg(src + i);
    fold ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (fold == 0x9E3779B9u) *sink = fold;
}

constexpr int kWidenThreads = 256;

// Thread: 16 pixels of one row (one 16-byte load, two 16-byte stores); rows whose width is not a
// multiple of 16 or whose pointers are not 16-byte aligned go byte by byte.
__global__ void __launch_bounds__(kWidenThreads) widen_kernel(const std::uint8_t* src, std::size_t src_pitch, std::int16_t* dst,
                                                              std::size_t dst_pitch, int width, bool vector_ok) {
  const std::uint8_t* in = src + std::size_t(blockIdx.y) * src_pitch;
  std::int16_t* out = reinterpret_cast<std::int16_t*>(reinterpret_cast<char*>(dst) + std::size_t(blockIdx.y) * dst_pitch);
  const int x = (blockIdx.x * kWidenThreads + threadIdx.x) * 16;
  if (x >= width) return;
  if (vector_ok && x + 16 <= width) {
    const uint4 v = *reinterpret_cast<const uint4*>(in + x);
    // byte k -> 16-bit lane k, zero-extended (pixels are 0..255)
    auto lanes = [](unsigned w, unsigned sel) { return __byte_perm(w, 0, sel); };
    reinterpret_cast<uint4*>(out + x)[0] = make_uint4(lanes(v.x, 0x4140), lanes(v.x, 0x4342), lanes(v.y, 0x4140), lanes(v.y, 0x4342));
    reinterpret_cast<uint4*>(out + x)[1] = make_uint4(lanes(v.z, 0x4140), lanes(v.z, 0x4342), lanes(v.w, 0x4140), lanes(v.w, 0x4342));
  } else {
    for (int i = x; i < min(x + 16, width); ++i) out[i] = in[i];
  }
}

}  // namespace

void widen_pass(ConstImageView d_src, std::int16_t* d_dst, std::size_t dst_pitch, cudaStream_t stream) {
  const bool vector_ok = reinterpret_cast<std::uintptr_t>(d_src.data) % 16 == 0 && d_src.pitch_bytes % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(d_dst) % 16 == 0 && dst_pitch % 16 == 0;
  const dim3 grid((d_src.width + 16 * kWidenThreads - 1) / (16 * kWidenThreads), d_src.height);
  widen_kernel<<<grid, kWidenThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, d_dst, dst_pitch, d_src.width, vector_ok);
  WK_CUDA_CHECK_LAUNCH();
}

void read_only_pass(const void* d_src, std::size_t bytes, unsigned* d_sink, cudaStream_t stream) {
  static thread_local int blocks = 0;  // one resident wave: every block loops
  if (!blocks) {
    int device = 0, sms = 0, per_sm = 0;
    WK_CUDA_CHECK(cudaGetDevice(&device));
    WK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_only_kernel, kThreads, 0));
    blocks = std::max(1, per_sm) * sms;
  }
  read_only_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(d_src), bytes / 16, d_sink);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::bench
