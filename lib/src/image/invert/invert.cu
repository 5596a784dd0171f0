// invert kernels and their rung table: one byte per thread, then 16 bytes per thread with 128-bit
// loads and stores on 16-byte aligned rows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/rung_table.hpp"
#include "core/tuning.hpp"
#include "image/rungs.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/invert.hpp"

namespace wk::image {

namespace {

constexpr int kMaxGridY = 65535;

__global__ void invert_naive_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch, std::uint8_t* __restrict__ dst,
                                    std::size_t dst_pitch, int row_bytes, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= row_bytes) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y)
    dst[y * dst_pitch + x] = static_cast<std::uint8_t>(~src[y * src_pitch + x]);
}

// 16 bytes per thread; a row's last partial vector is finished byte by byte.
__global__ void invert_vector_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch, std::uint8_t* __restrict__ dst,
                                     std::size_t dst_pitch, int row_bytes, int height) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (x0 >= row_bytes) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const std::uint8_t* in = src + y * src_pitch;
    std::uint8_t* out = dst + y * dst_pitch;
    if (x0 + 16 <= row_bytes) {
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(in + x0));
      *reinterpret_cast<uint4*>(out + x0) = make_uint4(~v.x, ~v.y, ~v.z, ~v.w);
    } else {
      for (int x = x0; x < row_bytes; ++x) out[x] = static_cast<std::uint8_t>(~in[x]);
    }
  }
}

struct InvertCall {
  ConstImageView s;
  ImageView d;
  cudaStream_t stream;
  int row_bytes() const { return s.width * s.channels; }
};

bool try_naive(const InvertCall& c) {
  const dim3 block(32, 8);
  const dim3 grid((c.row_bytes() + 31) / 32, std::min((c.s.height + 7) / 8, kMaxGridY));
  invert_naive_kernel<<<grid, block, 0, c.stream>>>(c.s.data, c.s.pitch_bytes, c.d.data, c.d.pitch_bytes, c.row_bytes(), c.s.height);
  WK_CUDA_CHECK_LAUNCH();
  return true;
}

bool aligned16(const void* p, std::size_t pitch) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && pitch % 16 == 0; }

bool try_vectorized(const InvertCall& c) {
  if (!aligned16(c.s.data, c.s.pitch_bytes) || !aligned16(c.d.data, c.d.pitch_bytes)) return false;
  constexpr int kThreads = 256;
  const int groups = (c.row_bytes() + 15) / 16;
  const dim3 grid((groups + kThreads - 1) / kThreads, std::min(c.s.height, kMaxGridY));
  invert_vector_kernel<<<grid, kThreads, 0, c.stream>>>(c.s.data, c.s.pitch_bytes, c.d.data, c.d.pitch_bytes, c.row_bytes(),
                                                        c.s.height);
  WK_CUDA_CHECK_LAUNCH();
  return true;
}

constexpr wk::detail::Rung<InvertCall> kRungs[] = {
    {{"naive", "1 byte/thread"}, &try_naive},
    {{"vectorized", "16 bytes/thread, 128-bit loads/stores (16-byte aligned rows)"}, &try_vectorized},
};

// ---- Tuning. A streaming op: vectorized moves bytes as gray's vectorized rung does (about the
// copy rate on sm_90, docs/apod/gray.md); unaligned rows take naive.
constexpr const char* kSm90[] = {"vectorized", "naive"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<InvertCall> kLadder{"invert", kRungs, kTuning};

}  // namespace

std::span<const RungInfo> detail::invert_rungs() { return kLadder.infos(); }

const char* invert(ConstImageView d_src, ImageView d_dst, cudaStream_t stream, std::string_view rung) {
  if (d_src.width != d_dst.width || d_src.height != d_dst.height || d_src.channels != d_dst.channels)
    throw Error(ErrorCategory::usage, "invert: source and destination differ in size or channels");
  if (d_src.channels != 1 && d_src.channels != 3 && d_src.channels != 4)
    throw Error(ErrorCategory::usage, "invert: images have 1, 3 or 4 channels, not " + std::to_string(d_src.channels));
  if (d_src.empty()) return kLadder.none(rung);
  const InvertCall call{d_src, d_dst, stream};
  return kLadder.run(rung, call);
}

}  // namespace wk::image
