// Resize kernels and their rung table. Every rung computes each output pixel with the arithmetic
// of resize_math.cuh (the same functions the host tests compare with cv::resize), so the rungs
// differ only in where the per-coordinate work happens and how the bytes move:
//   naive     one thread per output pixel; the source indices and weights of both axes are
//             computed by every pixel (a Lanczos weight set costs a double sin and cos).
//   tables    a block owns a 32 x 32 output tile; the x and y indices and weights of its 32
//             columns and 32 rows are computed once into shared memory, then every pixel of the
//             tile reads them there. No device allocation: the tables live only in the block.
//   gather    linear and cubic: the tiles and tables of `tables`, but each tap row's K x C bytes
//             come from the aligned 32-bit words that cover them (cubic RGB: 12 bytes from at
//             most 4 word loads instead of 12 byte loads), the bytes taken out with funnel
//             shifts; the horizontal step is the model's own on those bytes. Applies only when
//             the source rows start 4-byte aligned and the pitch holds the row rounded up to
//             whole words, so that no word load reaches past a row's allocation.
//   separable the fixed-point taps (linear, cubic, lanczos, area enlarging) in OpenCV's two
//             passes: a block owns a 32-column x 16-row output tile, computes the horizontal sums
//             of its columns on exactly the source rows its vertical taps read into shared
//             memory (each row once per tile), then forms every output pixel from there. Per
//             output channel: K vertical multiply-adds plus K horizontal ones per staged row
//             (about min(scale, K) + K / 16 rows per output row) instead of K * K.
//   area_2x2  the integer ratio 2:1 in both axes (area, and linear, which OpenCV computes as area
//             there): each thread reads 16-byte chunks of two input rows and writes 8 output
//             pixels as 8-byte stores. Applies only when the window's first input pixel and the
//             rows are 16-byte aligned and the output rows 8-byte aligned.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "core/rung_table.hpp"
#include "image/resize/resize_math.cuh"
#include "image/rungs.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/resize.hpp"

namespace wk::image {

namespace {

namespace rm = resize_math;
using rm::Mode;

constexpr int kMaxGridY = 65535;
constexpr int kTile = 32;      // tables: output tile side
constexpr int kTileRows = 8;   // tables: thread rows per block (each thread does kTile / kTileRows rows)
constexpr int kSepCols = 32;   // separable: output tile columns (one per thread of a warp)
constexpr int kSepRows = 16;   // separable: output tile rows
constexpr int kSepWarps = 8;   // separable: warps per block
constexpr int kSepSpan = 128;  // separable: the most source rows a tile may span (first to last tap)
constexpr int kSepSlots = 80;  // separable: the most distinct source rows a tile may stage (lanczos at 4.1:1 needs 71)
constexpr int kGroup = 8;      // area_2x2: output pixels per thread
constexpr int kGroupThreads = 128;

struct ResizeArgs {
  const std::uint8_t* src;
  std::size_t src_pitch;
  std::uint8_t* dst;
  std::size_t dst_pitch;
  int width, height;  // output (the window)
  rm::Params p;
};

// ---- naive: one output pixel per thread, coordinates computed per pixel; rows strided over
// gridDim.y.
template <int CN, Mode M>
__global__ void resize_naive_kernel(const ResizeArgs a) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= a.width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < a.height; y += gridDim.y * blockDim.y) {
    const rm::Coord cx = rm::make_coord(a.p, true, x), cy = rm::make_coord(a.p, false, y);
    rm::pixel<CN, M>(a.p, cx, cy, a.src, a.src_pitch, a.dst + std::size_t(y) * a.dst_pitch + std::size_t(x) * CN);
  }
}

// ---- tables: a 32 x 32 output tile per block; warp 0 computes the tile's 32 column
// coordinates, warp 1 its 32 row coordinates, into shared memory; then each thread forms one
// column's pixels in 4 rows.
// The tile's column and row coordinates into shared memory (warp 0: columns, warp 1: rows), for
// a block of kTile x kTileRows threads owning the kTile x kTile output tile at (x0, y0).
__device__ __forceinline__ void tile_coords(const ResizeArgs& a, int x0, int y0, rm::Coord* xs, rm::Coord* ys) {
  const int t = threadIdx.y * kTile + threadIdx.x;
  if (t < kTile) {
    if (x0 + t < a.width) xs[t] = rm::make_coord(a.p, true, x0 + t);
  } else if (t < 2 * kTile) {
    const int r = t - kTile;
    if (y0 + r < a.height) ys[r] = rm::make_coord(a.p, false, y0 + r);
  }
  __syncthreads();
}

template <int CN, Mode M>
__global__ void __launch_bounds__(kTile* kTileRows) resize_tables_kernel(const ResizeArgs a) {
  __shared__ rm::Coord xs[kTile], ys[kTile];
  const int x0 = blockIdx.x * kTile, y0 = blockIdx.y * kTile;
  tile_coords(a, x0, y0, xs, ys);
  const int x = x0 + threadIdx.x;
  if (x >= a.width) return;
  const rm::Coord cx = xs[threadIdx.x];
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const int y = y0 + r;
    if (y >= a.height) break;
    rm::pixel<CN, M>(a.p, cx, ys[r], a.src, a.src_pitch, a.dst + std::size_t(y) * a.dst_pitch + std::size_t(x) * CN);
  }
}

// ---- gather (taps2 and taps4): the tiles and tables of `tables`. A column whose K taps lie inside
// the row (no clamping) reads, per tap row, the aligned 32-bit words that cover its K * CN bytes
// [first * CN, (first + K) * CN) (only those: n_raw of them, at most kRaw), funnel-shifts them so
// that word i holds the span's bytes 4i .. 4i + 3, and runs the model's horizontal step on those
// bytes (taps_horizontal_bytes, the function taps_horizontal runs on byte loads). Every word read
// contains a byte of the row's pixels and is 4-byte aligned within the row, so under the host's
// rule (aligned rows, pitch >= the row rounded up to 4 bytes) it lies inside the row's pitch.
// Edge columns (clamped taps) read bytes as `tables` does.
template <int CN, Mode M>
__global__ void __launch_bounds__(kTile* kTileRows) resize_gather_kernel(const ResizeArgs a) {
  static_assert(M == Mode::taps2 || M == Mode::taps4);
  constexpr int K = M == Mode::taps2 ? 2 : 4;
  constexpr int kBytes = K * CN;                           // the bytes of one tap row
  constexpr int kWords = (kBytes + 3) / 4;                 // words of the span, once shifted
  constexpr int kRaw = CN % 4 == 0 ? kWords : kWords + 1;  // aligned words that may cover it
  __shared__ rm::Coord xs[kTile], ys[kTile];
  const int x0 = blockIdx.x * kTile, y0 = blockIdx.y * kTile;
  tile_coords(a, x0, y0, xs, ys);
  const int x = x0 + threadIdx.x;
  if (x >= a.width) return;
  const rm::Coord cx = xs[threadIdx.x];
  const int last_x = a.p.x.in - 1, last_y = a.p.y.in - 1;
  const bool inside = cx.first >= 0 && cx.first + K - 1 <= last_x;
  const int b0 = inside ? cx.first * CN : 0;  // the span's first byte in the row
  const int w0 = b0 >> 2;                     // the aligned word holding it
  const int shift = CN % 4 == 0 ? 0 : 8 * (b0 & 3);
  const int n_raw = CN % 4 == 0 ? kWords : ((b0 & 3) + kBytes + 3) >> 2;
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const int y = y0 + r;
    if (y >= a.height) break;
    const int first_y = ys[r].first;
    int acc[CN] = {};
    if (inside) {
      unsigned raw[K][kRaw];
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const unsigned* wp =
            reinterpret_cast<const unsigned*>(a.src + std::size_t(rm::clamp_int(first_y + j, 0, last_y)) * a.src_pitch) + w0;
#pragma unroll
        for (int i = 0; i < kRaw; ++i) raw[j][i] = i < kWords || i < n_raw ? __ldg(wp + i) : 0u;
      }
#pragma unroll
      for (int j = 0; j < K; ++j) {
        unsigned word[kWords];
#pragma unroll
        for (int i = 0; i < kWords; ++i)
          word[i] = CN % 4 == 0 ? raw[j][i] : __funnelshift_r(raw[j][i], raw[j][i + 1 < kRaw ? i + 1 : i], shift);
        int h[CN];
        rm::taps_horizontal_bytes<CN, K>(cx, [&](int i) { return (word[i >> 2] >> (8 * (i & 3))) & 0xffu; }, h);
        rm::taps_vertical_add<CN>(ys[r].c[j], h, acc);
      }
    } else {
#pragma unroll
      for (int j = 0; j < K; ++j) {
        int h[CN];
        rm::taps_horizontal<CN, K>(cx, a.src + std::size_t(rm::clamp_int(first_y + j, 0, last_y)) * a.src_pitch, last_x, h);
        rm::taps_vertical_add<CN>(ys[r].c[j], h, acc);
      }
    }
    rm::taps_store<CN>(acc, a.dst + std::size_t(y) * a.dst_pitch + std::size_t(x) * CN);
  }
}

// ---- separable: a kSepCols x kSepRows output tile per block of kSepWarps warps; lane = tile
// column. 1. warp 0 computes the tile's column coordinates, warp 1 its row coordinates. 2. warp 0
// marks the source rows (relative to the first row's first tap) that some tile row's taps read,
// and numbers them: slot_of[row] = the row's slot, row_of[slot] = its clamped source row. 3. the
// horizontal step (resize_math::taps_horizontal) of every staged row for every tile column into
// hsum[slot][channel][column]. 4. the vertical steps of every tile pixel from hsum. A tile whose
// rows span more than kSepSpan source rows or stage more than kSepSlots (the host's bound rules
// these out; kept as a guard) forms its pixels directly, as `tables` does.
template <int CN, Mode M>
__global__ void __launch_bounds__(kSepCols* kSepWarps) resize_separable_kernel(const ResizeArgs a) {
  constexpr int K = M == Mode::taps2 ? 2 : M == Mode::taps4 ? 4 : 8;
  __shared__ rm::Coord xs[kSepCols], ys[kSepRows];
  __shared__ short slot_of[kSepSpan];
  __shared__ int row_of[kSepSlots];
  __shared__ int n_slots, span;
  __shared__ int hsum[kSepSlots * CN * kSepCols];
  const int x0 = blockIdx.x * kSepCols, y0 = blockIdx.y * kSepRows;
  const int lane = threadIdx.x, warp = threadIdx.y;
  const int rows = min(kSepRows, a.height - y0);
  if (warp == 0) {
    if (x0 + lane < a.width) xs[lane] = rm::make_coord(a.p, true, x0 + lane);
  } else if (warp == 1) {
    if (lane < rows) ys[lane] = rm::make_coord(a.p, false, y0 + lane);
  }
  __syncthreads();
  const int base = ys[0].first;  // the tile's first tap row (the first taps grow with the row)
  if (warp == 0) {
    const int n = ys[rows - 1].first + K - base;
    int count = 0;
    if (n <= kSepSpan) {
      for (int i0 = 0; i0 < n; i0 += 32) {
        const int i = i0 + lane;
        bool used = false;
        for (int r = 0; r < rows; ++r) {
          const int f = ys[r].first - base;
          used |= i >= f && i < f + K;
        }
        used &= i < n;
        const unsigned mask = __ballot_sync(0xffffffffu, used);
        const int slot = count + __popc(mask & ((1u << lane) - 1u));
        if (i < n) slot_of[i] = static_cast<short>(used ? slot : -1);
        if (used && slot < kSepSlots) row_of[slot] = rm::clamp_int(base + i, 0, a.p.y.in - 1);
        count += __popc(mask);
      }
    }
    if (lane == 0) n_slots = count, span = n;
  }
  __syncthreads();
  const int x = x0 + lane;
  const rm::Coord cx = xs[lane];
  std::uint8_t* out_col = a.dst + std::size_t(x) * CN;
  if (span > kSepSpan || n_slots > kSepSlots) {  // guard: the tile's rows do not fit the buffer
    if (x >= a.width) return;
    for (int r = warp; r < rows; r += kSepWarps)
      rm::pixel<CN, M>(a.p, cx, ys[r], a.src, a.src_pitch, out_col + std::size_t(y0 + r) * a.dst_pitch);
    return;
  }
  if (x < a.width) {
    const int last_x = a.p.x.in - 1;
    for (int s = warp; s < n_slots; s += kSepWarps) {
      int h[CN];
      rm::taps_horizontal<CN, K>(cx, a.src + std::size_t(row_of[s]) * a.src_pitch, last_x, h);
#pragma unroll
      for (int ch = 0; ch < CN; ++ch) hsum[(s * CN + ch) * kSepCols + lane] = h[ch];
    }
  }
  __syncthreads();
  if (x >= a.width) return;
  for (int r = warp; r < rows; r += kSepWarps) {
    const int f = ys[r].first - base;
    int acc[CN] = {};
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const int s = slot_of[f + j];
      int h[CN];
#pragma unroll
      for (int ch = 0; ch < CN; ++ch) h[ch] = hsum[(s * CN + ch) * kSepCols + lane];
      rm::taps_vertical_add<CN>(ys[r].c[j], h, acc);
    }
    rm::taps_store<CN>(acc, out_col + std::size_t(y0 + r) * a.dst_pitch);
  }
}

// ---- area_2x2: output (x, y) = (a + b + c + d + 2) >> 2 of the input 2 x 2 block at (2x, 2y),
// per channel (OpenCV's 2 x 2 area rounding). A thread owns 8 output pixels of a row: CN 16-byte
// loads from each of the two input rows (16 * CN bytes = 8 pixel pairs), CN 8-byte stores.
__device__ __forceinline__ unsigned byte_at(const uint4* v, int i) {
  const uint4& q = v[i >> 4];
  const int k = (i >> 2) & 3;
  const unsigned w = k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w;
  return (w >> (8 * (i & 3))) & 0xffu;
}

template <int CN>
__global__ void __launch_bounds__(kGroupThreads) resize_area_2x2_kernel(const std::uint8_t* src, std::size_t src_pitch,
                                                                         std::uint8_t* dst, std::size_t dst_pitch, int width,
                                                                         int height) {
  const int x0 = (blockIdx.x * kGroupThreads + threadIdx.x) * kGroup;
  if (x0 >= width) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const std::uint8_t* r0 = src + std::size_t(2 * y) * src_pitch;
    const std::uint8_t* r1 = r0 + src_pitch;
    std::uint8_t* out = dst + std::size_t(y) * dst_pitch;
    if (x0 + kGroup <= width) {
      uint4 a[CN], b[CN];
      const uint4* p0 = reinterpret_cast<const uint4*>(r0 + std::size_t(x0) * 2 * CN);
      const uint4* p1 = reinterpret_cast<const uint4*>(r1 + std::size_t(x0) * 2 * CN);
#pragma unroll
      for (int i = 0; i < CN; ++i) a[i] = __ldg(p0 + i);
#pragma unroll
      for (int i = 0; i < CN; ++i) b[i] = __ldg(p1 + i);
      unsigned words[2 * CN];
#pragma unroll
      for (int w = 0; w < 2 * CN; ++w) {
        unsigned word = 0;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const int j = 4 * w + k;  // output byte: pixel j / CN, channel j % CN
          const int i0 = 2 * (j / CN) * CN + j % CN, i1 = i0 + CN;
          const unsigned s = byte_at(a, i0) + byte_at(a, i1) + byte_at(b, i0) + byte_at(b, i1);
          word |= ((s + 2) >> 2) << (8 * k);
        }
        words[w] = word;
      }
      uint2* q = reinterpret_cast<uint2*>(out + std::size_t(x0) * CN);
#pragma unroll
      for (int i = 0; i < CN; ++i) q[i] = make_uint2(words[2 * i], words[2 * i + 1]);
    } else {
      for (int x = x0; x < width; ++x)
#pragma unroll
        for (int c = 0; c < CN; ++c) {
          const int i0 = 2 * x * CN + c, i1 = i0 + CN;
          out[x * CN + c] = static_cast<std::uint8_t>((r0[i0] + r0[i1] + r1[i0] + r1[i1] + 2) >> 2);
        }
    }
  }
}

struct ResizeCall {
  ConstImageView s;
  ImageView d;
  rm::Params p;
  cudaStream_t stream;
  ResizeArgs args() const { return {s.data, s.pitch_bytes, d.data, d.pitch_bytes, d.width, d.height, p}; }
};

// Calls f(channels, mode) with both as compile-time constants, then checks the launch.
template <class F>
void by_channels_and_mode(int cn, Mode m, F&& f) {
  auto with_mode = [&](auto cn_c) {
    switch (m) {
      case Mode::nearest: f(cn_c, std::integral_constant<Mode, Mode::nearest>{}); break;
      case Mode::area_fast: f(cn_c, std::integral_constant<Mode, Mode::area_fast>{}); break;
      case Mode::area: f(cn_c, std::integral_constant<Mode, Mode::area>{}); break;
      case Mode::taps2: f(cn_c, std::integral_constant<Mode, Mode::taps2>{}); break;
      case Mode::taps4: f(cn_c, std::integral_constant<Mode, Mode::taps4>{}); break;
      case Mode::taps8: f(cn_c, std::integral_constant<Mode, Mode::taps8>{}); break;
    }
  };
  switch (cn) {
    case 1: with_mode(std::integral_constant<int, 1>{}); break;
    case 3: with_mode(std::integral_constant<int, 3>{}); break;
    default: with_mode(std::integral_constant<int, 4>{}); break;
  }
  WK_CUDA_CHECK_LAUNCH();
}

bool try_naive(const ResizeCall& c) {
  const dim3 block(32, 8), grid((c.d.width + 31) / 32, std::min((c.d.height + 7) / 8, kMaxGridY));
  by_channels_and_mode(c.s.channels, c.p.mode, [&](auto cn, auto mode) {
    resize_naive_kernel<decltype(cn)::value, decltype(mode)::value><<<grid, block, 0, c.stream>>>(c.args());
  });
  return true;
}

// Grid rows of 32-row tiles: at most 65535 of them (any side up to 2^21 rows).
bool try_tables(const ResizeCall& c) {
  if ((c.d.height + kTile - 1) / kTile > kMaxGridY) return false;
  const dim3 block(kTile, kTileRows), grid((c.d.width + kTile - 1) / kTile, (c.d.height + kTile - 1) / kTile);
  by_channels_and_mode(c.s.channels, c.p.mode, [&](auto cn, auto mode) {
    resize_tables_kernel<decltype(cn)::value, decltype(mode)::value><<<grid, block, 0, c.stream>>>(c.args());
  });
  return true;
}

// Linear and cubic only (area enlarging, also taps2, declines with every other mode); the source
// rows must start 4-byte aligned (data and pitch) and the pitch hold the row's bytes rounded up
// to whole words (the gather's word loads stay inside each row's pitch); grid rows of 32-row
// tiles at most 65535.
bool try_gather(const ResizeCall& c) {
  const bool linear = c.p.mode == Mode::taps2 && c.p.kernel == rm::Kernel::linear && !c.p.area_mode;
  if (!linear && c.p.mode != Mode::taps4) return false;
  const std::size_t row = std::size_t(c.s.width) * c.s.channels;
  if (reinterpret_cast<std::uintptr_t>(c.s.data) % 4 != 0 || c.s.pitch_bytes % 4 != 0 || c.s.pitch_bytes < (row + 3) / 4 * 4)
    return false;
  if ((c.d.height + kTile - 1) / kTile > kMaxGridY) return false;
  const dim3 block(kTile, kTileRows), grid((c.d.width + kTile - 1) / kTile, (c.d.height + kTile - 1) / kTile);
  by_channels_and_mode(c.s.channels, c.p.mode, [&](auto cn, auto mode) {
    constexpr Mode m = decltype(mode)::value;
    if constexpr (m == Mode::taps2 || m == Mode::taps4)
      resize_gather_kernel<decltype(cn)::value, m><<<grid, block, 0, c.stream>>>(c.args());
  });
  return true;
}

// The taps modes only (nearest and area shrinking decline), tiles whose rows span at most
// kSepSpan source rows (a vertical shrink up to about 7.8 for linear and cubic, 4.6 for lanczos)
// and stage at most kSepSlots (bounded by both the span and 16 rows x K taps), grid rows of
// 16-row tiles at most 65535.
bool try_separable(const ResizeCall& c) {
  const int K = rm::taps_of(c.p.mode);
  if (K == 0) return false;
  const int rows = std::min(kSepRows, c.d.height);
  const int span = rm::taps_row_span_bound(c.p, rows);
  if (span > kSepSpan || std::min(span, rows * K) > kSepSlots) return false;
  if ((c.d.height + kSepRows - 1) / kSepRows > kMaxGridY) return false;
  const dim3 block(kSepCols, kSepWarps), grid((c.d.width + kSepCols - 1) / kSepCols, (c.d.height + kSepRows - 1) / kSepRows);
  by_channels_and_mode(c.s.channels, c.p.mode, [&](auto cn, auto mode) {
    constexpr Mode m = decltype(mode)::value;
    if constexpr (m == Mode::taps2 || m == Mode::taps4 || m == Mode::taps8)
      resize_separable_kernel<decltype(cn)::value, m><<<grid, block, 0, c.stream>>>(c.args());
  });
  return true;
}

bool try_area_2x2(const ResizeCall& c) {
  if (c.p.mode != Mode::area_fast || c.p.x.iscale != 2 || c.p.y.iscale != 2) return false;
  const int cn = c.s.channels;
  const std::uint8_t* first = c.s.data + std::size_t(2 * c.p.win_y) * c.s.pitch_bytes + std::size_t(2 * c.p.win_x) * cn;
  const bool aligned = reinterpret_cast<std::uintptr_t>(first) % 16 == 0 && c.s.pitch_bytes % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(c.d.data) % 8 == 0 && c.d.pitch_bytes % 8 == 0;
  if (!aligned) return false;
  const int groups = (c.d.width + kGroup - 1) / kGroup;
  const dim3 grid((groups + kGroupThreads - 1) / kGroupThreads, std::min(c.d.height, kMaxGridY));
  switch (cn) {
    case 1:
      resize_area_2x2_kernel<1><<<grid, kGroupThreads, 0, c.stream>>>(first, c.s.pitch_bytes, c.d.data, c.d.pitch_bytes, c.d.width, c.d.height);
      break;
    case 3:
      resize_area_2x2_kernel<3><<<grid, kGroupThreads, 0, c.stream>>>(first, c.s.pitch_bytes, c.d.data, c.d.pitch_bytes, c.d.width, c.d.height);
      break;
    default:
      resize_area_2x2_kernel<4><<<grid, kGroupThreads, 0, c.stream>>>(first, c.s.pitch_bytes, c.d.data, c.d.pitch_bytes, c.d.width, c.d.height);
      break;
  }
  WK_CUDA_CHECK_LAUNCH();
  return true;
}

constexpr wk::detail::Rung<ResizeCall> kRungs[] = {
    {{"naive", "1 px/thread, source indices and weights computed by every pixel"}, &try_naive},
    {{"tables", "32x32 output tile: column and row indices/weights computed once per block in shared memory"}, &try_tables},
    {{"gather", "linear/cubic: the tiles of tables, each tap row's bytes from a few aligned 32-bit loads; "
                "aligned source rows only"},
     &try_gather},
    {{"separable", "linear/cubic/lanczos: 32x16 output tile, horizontal sums of its source rows staged in shared memory once, "
                   "then the vertical pass; declines area shrinks, nearest and vertical shrinks past its buffer"},
     &try_separable},
    {{"area_2x2", "2:1 box mean (area; linear at 2:1): 8 px/thread from 16-byte loads of two rows; aligned rows only"},
     &try_area_2x2},
};

// ---- Tuning. Measured on sm_90 (H200, 8192x8192 RGB, docs/apod/resize.md, 2026-11-27): the 2:1
// rung wherever it applies (area 4096x4096: 0.065 ms, 94 % of the copy rate, against tables 0.130);
// for lanczos separable (3000x2000: 0.272 ms against tables 0.324), whose 8 + 8 taps share staged
// rows; for linear and cubic tables (0.048 and 0.112 ms against separable 0.088 and 0.164: at a
// 4:1 shrink their 2 or 4 vertical taps share no source rows, and staging only adds a pass).
// naive applies to every call. gather (linear and cubic) goes ahead of tables, to be measured: it
// forms the same pixels as tables from a third of the load instructions or fewer (cubic RGB: 16 word
// loads a pixel instead of 48 byte loads). Older architectures: the sm_90 orders.
constexpr const char* kSm90[] = {"area_2x2", "gather", "tables", "separable", "naive"};
constexpr const char* kSm90Lanczos[] = {"area_2x2", "separable", "tables", "naive"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
constexpr wk::detail::ArchOrder kTuningLanczos[] = {{0, kSm90Lanczos}};
const wk::detail::Ladder<ResizeCall> kLadder{"resize", kRungs, kTuning};

void check_call(ConstImageView s, ImageView d, const ResizePlan& plan) {
  if (s.channels != 1 && s.channels != 3 && s.channels != 4)
    throw Error(ErrorCategory::usage, "resize: images have 1, 3 or 4 channels, not " + std::to_string(s.channels));
  if (d.width != plan.width || d.height != plan.height || d.channels != s.channels)
    throw Error(ErrorCategory::usage, "resize: the destination must be " + std::to_string(plan.width) + "x" +
                                          std::to_string(plan.height) + " with " + std::to_string(s.channels) + " channels");
  if (plan.scaled_width < 1 || plan.scaled_height < 1 || plan.x < 0 || plan.y < 0 || plan.width < 0 || plan.height < 0 ||
      plan.x + plan.width > plan.scaled_width || plan.y + plan.height > plan.scaled_height)
    throw Error(ErrorCategory::usage, "resize: the window " + std::to_string(plan.width) + "x" + std::to_string(plan.height) + "+" +
                                          std::to_string(plan.x) + "+" + std::to_string(plan.y) + " is not inside the scaled size " +
                                          std::to_string(plan.scaled_width) + "x" + std::to_string(plan.scaled_height));
}

}  // namespace

std::span<const RungInfo> detail::resize_rungs() { return kLadder.infos(); }

const char* resize(ConstImageView d_src, ImageView d_dst, const ResizePlan& plan, Interp interp, cudaStream_t stream,
                   std::string_view rung) {
  check_call(d_src, d_dst, plan);
  if (d_src.empty() || d_dst.empty()) return kLadder.none(rung);
  const rm::Params p = rm::make_params(d_src.width, d_src.height, {plan.scaled_width, plan.scaled_height, plan.x, plan.y},
                                       static_cast<rm::Interpolation>(interp));
  const auto order = interp == Interp::lanczos ? wk::detail::tuning_for<std::span<const char* const>>(kTuningLanczos) : kLadder.order();
  return kLadder.run(rung, order, ResizeCall{d_src, d_dst, p, stream});
}

}  // namespace wk::image
