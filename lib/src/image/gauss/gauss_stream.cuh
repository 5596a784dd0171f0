#pragma once
// Internal: what the two streaming Gaussian rungs share (gauss_vectorized.cu: 3 x 3 and 5 x 5;
// gauss_wide.cu: 5 x 5 .. 15 x 15) -- their tuning policy, the borders resolved on the host, and
// the device helpers that load a row's 8-column chunk with the border applied and store one.
// `Args` is each kernel's parameter struct, a StreamArgs with its weights added.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "image/filter/filter_gpu.hpp"

namespace wk::image::detail::gauss_stream {

constexpr int kChunkPx = 8;  // columns per chunk: one 64-bit load and store
constexpr int kMaxGridY = 65535;
constexpr int kNone = -2;  // a column no stored output reads (or one that comes from a shuffle)

// Tuning policy (plain data; docs/apod/gauss.md). Rows per warp: each lane reads
// (rows + 2R) / rows input rows (the overlap hits L2); rows ahead: loads in flight per lane.
template <int kWarps, int kRowsPerWarp, int kRowsAhead, int kMinBlocks>
struct Policy {
  static constexpr int warps = kWarps;                // warps per block, stacked down
  static constexpr int rows_per_warp = kRowsPerWarp;  // output rows per lane
  static constexpr int rows_ahead = kRowsAhead;       // input rows loaded ahead of their use
  static constexpr int min_blocks = kMinBlocks;       // blocks per SM asked of __launch_bounds__
  static constexpr int threads = 32 * kWarps;
  static constexpr int block_rows = kWarps * kRowsPerWarp;
};

// The parameters both kernels take: the image and its border resolved on the host (each kernel's
// Args adds its weights).
template <int kMaxR>
struct StreamArgs {
  const std::uint8_t* src;
  std::size_t src_pitch;
  std::uint8_t* dst;
  std::size_t dst_pitch;
  int width, height;
  unsigned border_value;  // 0..255 (constant border), else 0
  int left_cols[kMaxR];   // source columns of -R .. -1; -1 stands for border_value
  int right_cols[kMaxR];  // W .. W + R - 1
  int top_rows[kMaxR];    // -R .. -1
  int bottom_rows[kMaxR];  // H .. H + R - 1
};

// True for a 1-channel u8 -> u8 call with 8-byte aligned rows, an odd K in [min_k, max_k] whose
// weights are symmetric, non-negative, at most max_weight and sum to 256 (the 16-bit lanes hold at
// most 256 * 255), and a grid of at most 65535 blocks down.
inline bool supported(const GpuImage& src, const GpuImage& dst, const std::vector<int>& k, int min_k, int max_k,
                      int max_weight, int block_rows) {
  const int ksize = static_cast<int>(k.size());
  if (src.type != PixelType::u8 || dst.type != PixelType::u8 || src.channels != 1 || dst.channels != 1) return false;
  if (ksize % 2 == 0 || ksize < min_k || ksize > max_k) return false;
  int sum = 0;
  for (int i = 0; i < ksize; ++i) {
    if (k[i] < 0 || k[i] > max_weight || k[i] != k[ksize - 1 - i]) return false;
    sum += k[i];
  }
  if (sum != 256) return false;
  const auto aligned8 = [](const void* p, std::size_t pitch) {
    return reinterpret_cast<std::uintptr_t>(p) % 8 == 0 && pitch % 8 == 0;
  };
  return aligned8(src.data, src.pitch) && aligned8(dst.data, dst.pitch) &&
         (long(src.height) + block_rows - 1) / block_rows <= kMaxGridY;
}

// The image, border value and the border's source columns and rows of a kernel's Args.
template <class Args>
void set_borders(Args& a, int R, const GpuImage& src, const GpuImage& dst, const BorderArgs& border) {
  set_byte_io(a, src, dst);
  a.border_value = border.mode == BorderMode::constant ? static_cast<unsigned>(border.value) : 0u;
  for (int q = 0; q < R; ++q) {
    a.left_cols[q] = border_index(q - R, src.width, border.mode);
    a.right_cols[q] = border_index(src.width + q, src.width, border.mode);
    a.top_rows[q] = border_index(q - R, src.height, border.mode);
    a.bottom_rows[q] = border_index(src.height + q, src.height, border.mode);
  }
}

// Column c of the input row as the stencil sees it: -1 (constant border), kNone (unused), or a
// column inside the row.
template <int R, class Args>
__device__ __forceinline__ int resolve_col(const Args& a, int c) {
  if (c < -R) return kNone;
  if (c < 0) return a.left_cols[c + R];
  if (c < a.width) return c;
  return c < a.width + R ? a.right_cols[c - a.width] : kNone;
}

__device__ __forceinline__ unsigned load_byte(const std::uint8_t* row, int col, unsigned border_value) {
  if (col >= 0) return __ldg(row + col);
  return col == -1 ? border_value : 0u;
}

// The 8 columns x0 .. x0 + 7 of a row, byte by byte (a chunk not wholly inside the row).
template <int R, class Args>
__device__ __noinline__ uint2 load_partial_chunk(const Args& a, const std::uint8_t* row, int x0) {
  unsigned w[2] = {0u, 0u};
#pragma unroll
  for (int q = 0; q < kChunkPx; ++q)
    w[q >> 2] |= load_byte(row, resolve_col<R>(a, x0 + q), a.border_value) << (8 * (q & 3));
  return make_uint2(w[0], w[1]);
}

// The source row of input row r (-R <= r < H + rows per warp + R): -1 for a constant border row;
// rows past H + R - 1 only feed outputs that are not stored (they read row H - 1).
template <int R, class Args>
__device__ __forceinline__ int source_row(const Args& a, int r) {
  if (r < 0) return a.top_rows[r + R];
  if (r >= a.height) return r < a.height + R ? a.bottom_rows[r - a.height] : a.height - 1;
  return r;
}

// Byte 2 of each of 8 sums, packed in order (the streaming rungs' output bytes).
__device__ __forceinline__ uint2 pack_byte2(const unsigned (&s)[kChunkPx]) {
  return make_uint2(__byte_perm(__byte_perm(s[0], s[1], 0x0062), __byte_perm(s[2], s[3], 0x0062), 0x5410),
                    __byte_perm(__byte_perm(s[4], s[5], 0x0062), __byte_perm(s[6], s[7], 0x0062), 0x5410));
}

// Stores the 8 output bytes of columns x0 .. x0 + 7 of row y (x0 < W): one 64-bit store, or byte
// by byte up to the row's end. kInterior: the caller knows the chunk lies inside the row.
template <bool kInterior = false, class Args>
__device__ __forceinline__ void store_bytes(const Args& a, int x0, int y, uint2 bytes) {
  std::uint8_t* dst = a.dst + std::size_t(y) * a.dst_pitch + x0;
  if (kInterior || x0 + kChunkPx <= a.width) {
    *reinterpret_cast<uint2*>(dst) = bytes;
  } else {
#pragma unroll
    for (int q = 0; q < kChunkPx; ++q)
      if (x0 + q < a.width) dst[q] = static_cast<std::uint8_t>((q < 4 ? bytes.x : bytes.y) >> (8 * (q & 3)));
  }
}

}  // namespace wk::image::detail::gauss_stream
