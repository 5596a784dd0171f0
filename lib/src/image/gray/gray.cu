// gray kernels: the APOD ladder from one-pixel-per-thread to 128-bit coalesced, coarsened
// streaming. The arithmetic is gray_pixel() from gray_formula.hpp, shared with the host tests.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/rung_table.hpp"
#include "core/tuning.hpp"
#include "image/rungs.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gray.hpp"
#include "wk/image/gray_formula.hpp"

namespace wk::image {

namespace {

constexpr int kMaxGridY = 65535;

struct GrayWeights {
  unsigned w0, w2;  // weights of memory channels 0 and 2
};

GrayWeights weights_for(ChannelOrder order) {
  return order == ChannelOrder::bgr ? GrayWeights{unsigned(kGrayB), unsigned(kGrayR)}
                                    : GrayWeights{unsigned(kGrayR), unsigned(kGrayB)};
}

// ---- Rung 1: naive. One thread per pixel, byte loads; rows strided over gridDim.y so any
// height fits the 65535-block limit of the y dimension.
template <int CN>
__global__ void gray_naive_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch,
                                  std::uint8_t* __restrict__ dst, std::size_t dst_pitch, int width,
                                  int height, GrayWeights w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const std::uint8_t* p = src + y * src_pitch + x * CN;
    std::uint8_t out;
    if constexpr (CN == 1) out = p[0];
    else out = gray_pixel(p[0], p[1], p[2], w.w0, w.w2);
    dst[y * dst_pitch + x] = out;
  }
}

// ---- Rungs 2 and 3: each thread converts PX consecutive pixels of one row with 128-bit loads
// (PX*CN/16 of them, all issued before the first use) and PX/16 128-bit stores. Rows must be
// 16-byte aligned. A row's last group may be partial and is finished byte by byte.
__device__ __forceinline__ uint4 load16(const uint4* p, bool streaming) {
  return streaming ? __ldcs(p) : __ldg(p);
}
__device__ __forceinline__ void store16(uint4* p, uint4 v, bool streaming) {
  if (streaming) __stcs(p, v);
  else *p = v;
}

template <int CN, int PX, bool kStreaming>
__global__ void gray_vector_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch,
                                   std::uint8_t* __restrict__ dst, std::size_t dst_pitch, int width,
                                   int height, GrayWeights w) {
  static_assert(PX % 16 == 0, "whole 16-byte output vectors");
  constexpr int kLoads = PX * CN / 16;
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * PX;
  if (x0 >= width) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const std::uint8_t* row_in = src + y * src_pitch;
    std::uint8_t* row_out = dst + y * dst_pitch;
    if (x0 + PX <= width) {
      union {
        uint4 v[kLoads];
        std::uint8_t b[kLoads * 16];
      } in;
      const uint4* vin = reinterpret_cast<const uint4*>(row_in + x0 * CN);
#pragma unroll
      for (int i = 0; i < kLoads; ++i) in.v[i] = load16(vin + i, kStreaming);
      union {
        uint4 v[PX / 16];
        std::uint8_t b[PX];
      } out;
#pragma unroll
      for (int i = 0; i < PX; ++i) {
        if constexpr (CN == 1) out.b[i] = in.b[i];
        else out.b[i] = gray_pixel(in.b[i * CN], in.b[i * CN + 1], in.b[i * CN + 2], w.w0, w.w2);
      }
      uint4* vout = reinterpret_cast<uint4*>(row_out + x0);
#pragma unroll
      for (int i = 0; i < PX / 16; ++i) store16(vout + i, out.v[i], kStreaming);
    } else {
      for (int x = x0; x < width; ++x) {
        const std::uint8_t* p = row_in + x * CN;
        row_out[x] = CN == 1 ? p[0] : gray_pixel(p[0], p[1], p[2], w.w0, w.w2);
      }
    }
  }
}

template <int CN>
void launch_naive(ConstImageView s, ImageView d, GrayWeights w, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((s.width + block.x - 1) / block.x, std::min((s.height + int(block.y) - 1) / int(block.y), kMaxGridY));
  gray_naive_kernel<CN><<<grid, block, 0, stream>>>(s.data, s.pitch_bytes, d.data, d.pitch_bytes, s.width, s.height, w);
}

template <int CN, int PX, bool kStreaming>
void launch_vector(ConstImageView s, ImageView d, GrayWeights w, cudaStream_t stream) {
  constexpr int kThreads = 128;
  const int groups = (s.width + PX - 1) / PX;
  const dim3 grid((groups + kThreads - 1) / kThreads, std::min(s.height, kMaxGridY));
  gray_vector_kernel<CN, PX, kStreaming><<<grid, kThreads, 0, stream>>>(s.data, s.pitch_bytes, d.data, d.pitch_bytes,
                                                                        s.width, s.height, w);
}

enum class GrayKernel { naive, vectorized, streaming };

template <int CN>
void launch(GrayKernel kernel, ConstImageView s, ImageView d, GrayWeights w, cudaStream_t stream) {
  switch (kernel) {
    case GrayKernel::naive: launch_naive<CN>(s, d, w, stream); break;
    case GrayKernel::vectorized: launch_vector<CN, 16, false>(s, d, w, stream); break;
    case GrayKernel::streaming: launch_vector<CN, 32, true>(s, d, w, stream); break;
  }
}

bool rows_aligned16(const void* p, std::size_t pitch) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && pitch % 16 == 0;
}

struct GrayCall {
  ConstImageView s;
  ImageView d;
  GrayWeights w;
  cudaStream_t stream;
};

// The vector rungs need 16-byte aligned rows; naive takes every pitch.
template <GrayKernel K>
bool try_kernel(const GrayCall& c) {
  if (K != GrayKernel::naive && !(rows_aligned16(c.s.data, c.s.pitch_bytes) && rows_aligned16(c.d.data, c.d.pitch_bytes)))
    return false;
  switch (c.s.channels) {
    case 1: launch<1>(K, c.s, c.d, c.w, c.stream); break;
    case 3: launch<3>(K, c.s, c.d, c.w, c.stream); break;
    case 4: launch<4>(K, c.s, c.d, c.w, c.stream); break;
  }
  WK_CUDA_CHECK_LAUNCH();
  return true;
}

constexpr wk::detail::Rung<GrayCall> kRungs[] = {
    {{"naive", "1 px/thread, byte loads"}, &try_kernel<GrayKernel::naive>},
    {{"vectorized", "16 px/thread, 128-bit loads/stores"}, &try_kernel<GrayKernel::vectorized>},
    {{"streaming", "32 px/thread, 128-bit, evict-first hints"}, &try_kernel<GrayKernel::streaming>},
};

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192, docs/apod/gray.md): vectorized 739 Gpx/s,
// 103 % of the device copy rate and 1.26x NPP; streaming (32 px, evict-first) 670. Unaligned rows
// take naive. Older architectures: the sm_90 order.
constexpr const char* kSm90[] = {"vectorized", "naive"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<GrayCall> kLadder{"gray", kRungs, kTuning};

}  // namespace

std::span<const RungInfo> detail::gray_rungs() { return kLadder.infos(); }

void check_gray_views(ConstImageView src, ImageView dst);

const char* gray(ConstImageView d_src, ImageView d_dst, ChannelOrder order, cudaStream_t stream, std::string_view rung) {
  check_gray_views(d_src, d_dst);
  if (d_src.empty()) return kLadder.none(rung);
  const GrayCall call{d_src, d_dst, weights_for(order), stream};
  return kLadder.run(rung, call);
}

}  // namespace wk::image
