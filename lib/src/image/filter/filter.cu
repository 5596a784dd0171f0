// The convolution family's generic GPU kernels: the APOD ladder of a 2-D correlation with any
// kernel up to 31x31 (naive -> constant weights -> shared tiles -> halos from cache -> register
// blocking) and the generic two-pass separable kernel, for u8 -> u8, u8 -> s16 and f32 -> f32.
// Channels are processed as planes (blockIdx.z); accumulation is always fp32, and the epilogue
// (filter_gpu.hpp) turns the sum into exactly what OpenCV stores.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstdint>

#include "image/filter/filter_device.cuh"
#include "image/filter/filter_gpu.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/filter_formula.hpp"

namespace wk::image::detail {

namespace {

constexpr int kMaxGridY = 65535;

// ---- Rungs 1 and 2: one output per thread, every tap read from global memory (through the
// read-only cache) with its border test. Rung 1 reads the weights from global memory too; rung 2
// from the kernel's parameter space, the constant bank: one broadcast per warp, cached.
template <class Tin, class Tout, bool kConstantWeights>
__global__ void __launch_bounds__(256) conv_direct_kernel(Src<Tin> src, Dst<Tout> dst, const __grid_constant__ Taps2D taps,
                                                          const float* __restrict__ global_weights, BorderArgs b, Epilogue e) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.z;
  if (x >= dst.width || y >= dst.height) return;
  float sum = 0.f;
  for (int i = 0; i < taps.height; ++i) {
    const int yy = border_index(y + i - taps.anchor_y, src.height, b.mode);
    for (int j = 0; j < taps.width; ++j) {
      const int xx = border_index(x + j - taps.anchor_x, src.width, b.mode);
      const float v = (xx < 0 || yy < 0) ? b.value : src.at(xx, yy, c);
      const float w = kConstantWeights ? taps.w[i * taps.width + j] : global_weights[i * taps.width + j];
      sum = fmaf(w, v, sum);
    }
  }
  dst.store(x, y, c, sum, e);
}

// ---- Rung 3: the block stages its tile plus the halo in shared memory, resolving the border
// while loading, then every tap is a shared-memory read.
template <class Tin, class Tout>
__global__ void __launch_bounds__(256) conv_shared_tile_kernel(Src<Tin> src, Dst<Tout> dst, const __grid_constant__ Taps2D taps,
                                                               BorderArgs b, Epilogue e) {
  extern __shared__ float tile[];
  const int tw = blockDim.x + taps.width - 1, th = blockDim.y + taps.height - 1;
  const int x0 = blockIdx.x * blockDim.x, y0 = blockIdx.y * blockDim.y, c = blockIdx.z;
  for (int r = threadIdx.y; r < th; r += blockDim.y)
    for (int q = threadIdx.x; q < tw; q += blockDim.x)
      tile[r * tw + q] = src.at_border(x0 + q - taps.anchor_x, y0 + r - taps.anchor_y, c, b);
  __syncthreads();
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= dst.width || y >= dst.height) return;
  float sum = 0.f;
  for (int i = 0; i < taps.height; ++i) {
    const float* row = tile + (threadIdx.y + i) * tw + threadIdx.x;
    for (int j = 0; j < taps.width; ++j) sum = fmaf(taps.w[i * taps.width + j], row[j], sum);
  }
  dst.store(x, y, c, sum, e);
}

// ---- Rung 4: only the block's own pixels go to shared memory; taps that fall outside the tile
// (the halo) are read from global memory, where neighbouring blocks' loads left them in L1/L2.
template <class Tin, class Tout>
__global__ void __launch_bounds__(256) conv_cached_halo_kernel(Src<Tin> src, Dst<Tout> dst, const __grid_constant__ Taps2D taps,
                                                               BorderArgs b, Epilogue e) {
  __shared__ float tile[8][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 8, c = blockIdx.z;
  tile[ty][tx] = src.at_border(x0 + tx, y0 + ty, c, b);
  __syncthreads();
  const int x = x0 + tx, y = y0 + ty;
  if (x >= dst.width || y >= dst.height) return;
  float sum = 0.f;
  for (int i = 0; i < taps.height; ++i) {
    const int py = ty + i - taps.anchor_y;
    for (int j = 0; j < taps.width; ++j) {
      const int px = tx + j - taps.anchor_x;
      const float v = (px >= 0 && px < 32 && py >= 0 && py < 8) ? tile[py][px] : src.at_border(x0 + px, y0 + py, c, b);
      sum = fmaf(taps.w[i * taps.width + j], v, sum);
    }
  }
  dst.store(x, y, c, sum, e);
}

// ---- Rung 5: register blocking. A 256-thread block computes a 256 x 16 tile; each thread 16
// consecutive outputs of one row. Per kernel row it loads a window of 16 + KW - 1 inputs from
// shared memory into registers with 128-bit loads and does 16 * KW FMAs on it, so each shared
// load feeds ~KW FMAs. The tile is stored with 4 floats of padding after every 16 so that the 8
// lanes of a quarter warp, 16 floats apart, hit 8 disjoint bank groups. KW is a compile-time
// width: kernels are padded with zero columns to the next instantiated one (weights laid out
// with row stride KW). 8-bit inputs multiply the zeros (finite pixels: no effect, no branch);
// float inputs skip them, so an inf or NaN outside the kernel's true reach stays outside.
constexpr int kBlockPx = 16;       // outputs per thread (one row)
constexpr int kBlockX = 16;        // threads across: 256 outputs
constexpr int kBlockY = 16;        // rows
constexpr int kTileW = kBlockX * kBlockPx;

__host__ __device__ constexpr int padded_index(int e) { return e + (e >> 4) * 4; }
__host__ __device__ constexpr int round_up16(int v) { return (v + 15) & ~15; }

template <int KW>
__host__ __device__ constexpr int tile_row_floats() {
  return padded_index(round_up16(kTileW - kBlockPx + ((kBlockPx + KW - 1 + 3) & ~3)));
}

template <class Tin, class Tout, int KW>
__global__ void __launch_bounds__(kBlockX* kBlockY) conv_register_kernel(Src<Tin> src, Dst<Tout> dst, const __grid_constant__ Taps2D taps,
                                                                         BorderArgs b, Epilogue e) {
  extern __shared__ float4 smem4[];
  constexpr int kW4 = (KW + 3) & ~3;  // weight row stride (host-padded with zeros)
  float* weights = reinterpret_cast<float*>(smem4);
  float* tile = weights + taps.height * kW4;  // 16-byte aligned: kW4 is a multiple of 4
  constexpr int kRow = tile_row_floats<KW>();
  constexpr int kWin = (kBlockPx + KW - 1 + 3) & ~3;  // a thread's window, whole float4s
  constexpr int kIn = kTileW - kBlockPx + kWin;        // inputs staged per tile row (>= kTileW + KW - 1)
  const int kh = taps.height, kw = taps.width;
  const int th = kBlockY + kh - 1;
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kBlockY, c = blockIdx.z;
  const int tid = threadIdx.y * kBlockX + threadIdx.x, lane = tid & 31, warp = tid >> 5;
  // The weights go to shared memory too: a 128-bit broadcast load fetches 4 of them.
  for (int t = tid; t < kh * kW4; t += kBlockX * kBlockY) weights[t] = taps.w[t];
  // Stage the tile: one warp per row, lanes along it. Interior blocks skip the border logic.
  const bool interior = x0 - taps.anchor_x >= 0 && x0 - taps.anchor_x + kIn <= src.width && y0 - taps.anchor_y >= 0 &&
                        y0 - taps.anchor_y + th <= src.height;
  for (int r = warp; r < th; r += kBlockX * kBlockY / 32) {
    const int gy = y0 + r - taps.anchor_y;
    float* row = tile + r * kRow;
    if (interior) {
      for (int q = lane; q < kIn; q += 32) row[padded_index(q)] = src.at(x0 + q - taps.anchor_x, gy, c);
    } else {
      for (int q = lane; q < kIn; q += 32) row[padded_index(q)] = src.at_border(x0 + q - taps.anchor_x, gy, c, b);
    }
  }
  __syncthreads();

  float acc[kBlockPx];
#pragma unroll
  for (int p = 0; p < kBlockPx; ++p) acc[p] = 0.f;
  const int chunk = threadIdx.x * kBlockPx;  // first tile column of this thread
  for (int i = 0; i < kh; ++i) {
    const float* row = tile + (threadIdx.y + i) * kRow + padded_index(chunk);
    float win[kWin];
#pragma unroll
    for (int m = 0; m < kWin / 4; ++m) {
      // Window element q = 4m sits at padded offset q + (q / 16) * 4 from the chunk start.
      const float4 f = *reinterpret_cast<const float4*>(row + 4 * m + ((4 * m) >> 4) * 4);
      win[4 * m] = f.x;
      win[4 * m + 1] = f.y;
      win[4 * m + 2] = f.z;
      win[4 * m + 3] = f.w;
    }
    float w[kW4];
#pragma unroll
    for (int m = 0; m < kW4 / 4; ++m) {
      const float4 f = reinterpret_cast<const float4*>(weights + i * kW4)[m];
      w[4 * m] = f.x;
      w[4 * m + 1] = f.y;
      w[4 * m + 2] = f.z;
      w[4 * m + 3] = f.w;
    }
#pragma unroll
    for (int j = 0; j < KW; ++j) {
      if (sizeof(Tin) == 1 || j < kw) {
        const float wj = w[j];
#pragma unroll
        for (int p = 0; p < kBlockPx; ++p) acc[p] = fmaf(wj, win[p + j], acc[p]);
      }
    }
  }
  const int y = y0 + threadIdx.y;
  if (y >= dst.height) return;
  const int x = x0 + chunk;
  if constexpr (sizeof(Tout) == 1) {
    // 8-bit gray, whole and 16-byte aligned: one 128-bit store.
    std::uint8_t* out = dst.data + std::size_t(y) * dst.pitch + x;
    if (dst.cn == 1 && x + kBlockPx <= dst.width && (reinterpret_cast<std::uintptr_t>(out) & 15) == 0) {
      union {
        uint4 v;
        std::uint8_t b[16];
      } pack;
#pragma unroll
      for (int p = 0; p < kBlockPx; ++p) pack.b[p] = to_output<std::uint8_t>(acc[p], e);
      *reinterpret_cast<uint4*>(out) = pack.v;
      return;
    }
  }
#pragma unroll
  for (int p = 0; p < kBlockPx; ++p)
    if (x + p < dst.width) dst.store(x + p, y, c, acc[p], e);
}

// ---- Rung 6 (generic): the two-pass separable filter in one kernel. A 32 x 32 tile: the input
// tile with halo in shared memory, the row pass over all its rows into a second shared array,
// then the column pass; 4 outputs per thread.
template <class Tin, class Tout>
__global__ void __launch_bounds__(256) conv_separable_kernel(Src<Tin> src, Dst<Tout> dst, const __grid_constant__ Taps1D taps,
                                                             BorderArgs b, Epilogue e) {
  extern __shared__ float sep[];
  constexpr int kT = 32;
  const int kw = taps.width, kh = taps.height;
  const int tw = kT + kw - 1, th = kT + kh - 1;
  float* in = sep;             // th x tw
  float* mid = sep + th * tw;  // th x kT
  const int x0 = blockIdx.x * kT, y0 = blockIdx.y * kT, c = blockIdx.z;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int r = ty; r < th; r += 8)
    for (int q = tx; q < tw; q += 32) in[r * tw + q] = src.at_border(x0 + q - taps.anchor_x, y0 + r - taps.anchor_y, c, b);
  __syncthreads();
  for (int r = ty; r < th; r += 8) {
    const float* row = in + r * tw + tx;
    float s = 0.f;
    for (int j = 0; j < kw; ++j) s = fmaf(taps.row[j], row[j], s);
    mid[r * kT + tx] = s;
  }
  __syncthreads();
  const int x = x0 + tx;
  if (x >= dst.width) return;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int ly = ty + 8 * k, y = y0 + ly;
    if (y >= dst.height) break;
    float s = 0.f;
    for (int i = 0; i < kh; ++i) s = fmaf(taps.col[i], mid[(ly + i) * kT + tx], s);
    dst.store(x, y, c, s, e);
  }
}

// ---- Element-wise helpers.
__global__ void sobel_magnitude_kernel(Src<std::int16_t> dx, Src<std::int16_t> dy, Dst<std::uint8_t> out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  for (int c = 0; c < out.cn; ++c) {
    const int a = static_cast<int>(dx.at(x, y, c)), g = static_cast<int>(dy.at(x, y, c));
    // a^2 + g^2 < 2^22 is exact in float; sqrtf is correctly rounded, and no sqrt of an integer
    // below 2^22 lies within float rounding of a .5 below 256, so this is OpenCV's result.
    const int r = __float2int_rn(sqrtf(static_cast<float>(a * a + g * g)));
    reinterpret_cast<std::uint8_t*>(out.data + std::size_t(y) * out.pitch)[std::size_t(x) * out.cn + c] =
        static_cast<std::uint8_t>(min(r, 255));
  }
}

template <class T>
__global__ void add_weighted_kernel(Src<T> a, Src<T> b, Dst<T> out, float alpha, float beta, float gamma) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  for (int c = 0; c < out.cn; ++c) out.store(x, y, c, fmaf(a.at(x, y, c), alpha, fmaf(b.at(x, y, c), beta, gamma)), Epilogue{});
}

// ---- Launchers.
void check_grid(const GpuImage& img, int rows_per_block) {
  if ((img.height + rows_per_block - 1) / rows_per_block > kMaxGridY)
    throw Error(ErrorCategory::unsupported, "image too tall for the convolution kernels (" + std::to_string(img.height) + " rows)");
}

template <class Tin, class Tout, int KW>
void launch_register(dim3 grid, dim3 block, const Src<Tin>& src, const Dst<Tout>& dst, const Taps2D& taps, const BorderArgs& b,
                     const Epilogue& e, cudaStream_t stream) {
  constexpr int kRowFloats = tile_row_floats<KW>();
  constexpr int kW4 = (KW + 3) & ~3;
  // Up to 70 KB for 31 x 31: above the 48 KB default, so opt in, once per instantiation and
  // device (the attribute belongs to the current device; worker threads may use several).
  static std::atomic<unsigned long long> done_devices{0};
  int device = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  const unsigned long long bit = 1ull << (device & 63);
  if (!(done_devices.load(std::memory_order_acquire) & bit)) {
    WK_CUDA_CHECK(cudaFuncSetAttribute(conv_register_kernel<Tin, Tout, KW>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(sizeof(float) * (kRowFloats * (kBlockY + kMaxKernelSize - 1) + kMaxKernelSize * kW4))));
    done_devices.fetch_or(bit, std::memory_order_release);
  }
  const std::size_t smem = sizeof(float) * (kRowFloats * (kBlockY + taps.height - 1) + taps.height * kW4);
  // Weights with row stride kW4 (KW rounded up to whole float4s), zero-padded on the right.
  Taps2D padded = taps;
  std::fill(std::begin(padded.w), std::end(padded.w), 0.f);
  for (int i = 0; i < taps.height; ++i)
    for (int j = 0; j < taps.width; ++j) padded.w[i * kW4 + j] = taps.w[i * taps.width + j];
  conv_register_kernel<Tin, Tout, KW><<<grid, block, smem, stream>>>(src, dst, padded, b, e);
}

template <class Tin, class Tout>
void launch_filter2d(Filter2D rung, const GpuImage& s, const GpuImage& d, const Taps2D& taps, const BorderArgs& b,
                     const Epilogue& e, cudaStream_t stream) {
  const Src<Tin> src = src_of<Tin>(s);
  const Dst<Tout> dst = dst_of<Tout>(d);
  switch (rung) {
    case Filter2D::naive:
    case Filter2D::constant_weights:
    case Filter2D::shared_tiles:
    case Filter2D::cached_halo: {
      check_grid(d, 8);
      const dim3 block(32, 8), grid((d.width + 31) / 32, (d.height + 7) / 8, d.channels);
      if (rung == Filter2D::naive) {
        // Weights in global memory: a stream-ordered copy, freed after the kernel.
        float* d_w = nullptr;
        const std::size_t bytes = sizeof(float) * taps.width * taps.height;
        WK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_w), bytes, stream));
        WK_CUDA_CHECK(cudaMemcpyAsync(d_w, taps.w, bytes, cudaMemcpyHostToDevice, stream));
        conv_direct_kernel<Tin, Tout, false><<<grid, block, 0, stream>>>(src, dst, taps, d_w, b, e);
        WK_CUDA_CHECK_LAUNCH();
        WK_CUDA_CHECK(cudaFreeAsync(d_w, stream));
      } else if (rung == Filter2D::constant_weights) {
        conv_direct_kernel<Tin, Tout, true><<<grid, block, 0, stream>>>(src, dst, taps, nullptr, b, e);
      } else if (rung == Filter2D::shared_tiles) {
        const std::size_t smem = sizeof(float) * (32 + taps.width - 1) * (8 + taps.height - 1);
        conv_shared_tile_kernel<Tin, Tout><<<grid, block, smem, stream>>>(src, dst, taps, b, e);
      } else {
        conv_cached_halo_kernel<Tin, Tout><<<grid, block, 0, stream>>>(src, dst, taps, b, e);
      }
      break;
    }
    case Filter2D::register_blocked: {
      check_grid(d, kBlockY);
      const dim3 block(kBlockX, kBlockY), grid((d.width + kTileW - 1) / kTileW, (d.height + kBlockY - 1) / kBlockY, d.channels);
      // Instantiated widths; a kernel runs on the narrowest one that holds it.
      const int w = taps.width;
      if (w <= 3) launch_register<Tin, Tout, 3>(grid, block, src, dst, taps, b, e, stream);
      else if (w <= 5) launch_register<Tin, Tout, 5>(grid, block, src, dst, taps, b, e, stream);
      else if (w <= 7) launch_register<Tin, Tout, 7>(grid, block, src, dst, taps, b, e, stream);
      else if (w <= 9) launch_register<Tin, Tout, 9>(grid, block, src, dst, taps, b, e, stream);
      else if (w <= 11) launch_register<Tin, Tout, 11>(grid, block, src, dst, taps, b, e, stream);
      else if (w <= 15) launch_register<Tin, Tout, 15>(grid, block, src, dst, taps, b, e, stream);
      else if (w <= 19) launch_register<Tin, Tout, 19>(grid, block, src, dst, taps, b, e, stream);
      else if (w <= 23) launch_register<Tin, Tout, 23>(grid, block, src, dst, taps, b, e, stream);
      else launch_register<Tin, Tout, 31>(grid, block, src, dst, taps, b, e, stream);
      break;
    }
  }
  WK_CUDA_CHECK_LAUNCH();
}

template <class Tin, class Tout>
void launch_separable(const GpuImage& s, const GpuImage& d, const Taps1D& taps, const BorderArgs& b, const Epilogue& e,
                      cudaStream_t stream) {
  check_grid(d, 32);
  const int tw = 32 + taps.width - 1, th = 32 + taps.height - 1;
  const std::size_t smem = sizeof(float) * (th * tw + th * 32);
  const dim3 block(32, 8), grid((d.width + 31) / 32, (d.height + 31) / 32, d.channels);
  conv_separable_kernel<Tin, Tout><<<grid, block, smem, stream>>>(src_of<Tin>(s), dst_of<Tout>(d), taps, b, e);
  WK_CUDA_CHECK_LAUNCH();
}

[[noreturn]] void unsupported_pair(const GpuImage& s, const GpuImage& d) {
  throw Error(ErrorCategory::internal, "convolution: unsupported type pair " + std::to_string(int(s.type)) + " -> " +
                                           std::to_string(int(d.type)));
}

dim3 elementwise_grid(const GpuImage& d) { return dim3((d.width + 31) / 32, (d.height + 7) / 8); }

}  // namespace

int rolling_rows_per_block(int strips, int height, int resident, int halo_rows) {
  int best_rows = 16;
  double best = -1;
  for (int rows : {16, 24, 32, 48, 64, 96, 128, 192, 256}) {
    if ((height + rows - 1) / rows > 65535) continue;
    const long blocks = long(strips) * ((height + rows - 1) / rows);
    const double waves = double(blocks) / resident;
    const double tail = waves / std::ceil(waves);
    const double halo = double(rows) / (rows + 2 * halo_rows);
    const double score = tail * halo;
    if (score > best + 1e-9) {
      best = score;
      best_rows = rows;
    }
  }
  return best_rows;
}

int sm_count() {
  static std::atomic<int> cached[64] = {};
  int device = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  std::atomic<int>& slot = cached[device & 63];
  int sms = slot.load(std::memory_order_relaxed);
  if (!sms) {
    WK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    slot.store(sms, std::memory_order_relaxed);
  }
  return sms;
}

void filter2d(Filter2D rung, const GpuImage& s, const GpuImage& d, const Taps2D& taps, const BorderArgs& b, const Epilogue& e,
              cudaStream_t stream) {
  if (d.width == 0 || d.height == 0) return;
  if (s.type == PixelType::u8 && d.type == PixelType::u8) launch_filter2d<std::uint8_t, std::uint8_t>(rung, s, d, taps, b, e, stream);
  else if (s.type == PixelType::u8 && d.type == PixelType::s16) launch_filter2d<std::uint8_t, std::int16_t>(rung, s, d, taps, b, e, stream);
  else if (s.type == PixelType::f32 && d.type == PixelType::f32) launch_filter2d<float, float>(rung, s, d, taps, b, e, stream);
  else unsupported_pair(s, d);
}

void separable_filter(const GpuImage& s, const GpuImage& d, const Taps1D& taps, const BorderArgs& b, const Epilogue& e,
                      cudaStream_t stream) {
  if (d.width == 0 || d.height == 0) return;
  if (s.type == PixelType::u8 && d.type == PixelType::u8) launch_separable<std::uint8_t, std::uint8_t>(s, d, taps, b, e, stream);
  else if (s.type == PixelType::u8 && d.type == PixelType::s16) launch_separable<std::uint8_t, std::int16_t>(s, d, taps, b, e, stream);
  else if (s.type == PixelType::f32 && d.type == PixelType::f32) launch_separable<float, float>(s, d, taps, b, e, stream);
  else unsupported_pair(s, d);
}

void sobel_magnitude(const GpuImage& dx, const GpuImage& dy, const GpuImage& d, cudaStream_t stream) {
  if (d.width == 0 || d.height == 0) return;
  check_grid(d, 8);
  sobel_magnitude_kernel<<<elementwise_grid(d), dim3(32, 8), 0, stream>>>(src_of<std::int16_t>(dx), src_of<std::int16_t>(dy),
                                                                          dst_of<std::uint8_t>(d));
  WK_CUDA_CHECK_LAUNCH();
}

void add_weighted(const GpuImage& a, const GpuImage& b, const GpuImage& d, float alpha, float beta, float gamma, cudaStream_t stream) {
  if (d.width == 0 || d.height == 0) return;
  check_grid(d, 8);
  if (d.type == PixelType::u8)
    add_weighted_kernel<std::uint8_t><<<elementwise_grid(d), dim3(32, 8), 0, stream>>>(
        src_of<std::uint8_t>(a), src_of<std::uint8_t>(b), dst_of<std::uint8_t>(d), alpha, beta, gamma);
  else if (d.type == PixelType::f32)
    add_weighted_kernel<float><<<elementwise_grid(d), dim3(32, 8), 0, stream>>>(src_of<float>(a), src_of<float>(b),
                                                                                dst_of<float>(d), alpha, beta, gamma);
  else
    unsupported_pair(a, d);
  WK_CUDA_CHECK_LAUNCH();
}

TempImage::TempImage(int width, int height, int channels, PixelType type, cudaStream_t stream) : stream_(stream) {
  image_.width = width;
  image_.height = height;
  image_.channels = channels;
  image_.type = type;
  image_.pitch = (std::size_t(width) * channels * pixel_bytes(type) + 255) & ~std::size_t(255);
  WK_CUDA_CHECK(cudaMallocAsync(&image_.data, std::max<std::size_t>(1, image_.pitch * height), stream));
}

TempImage::~TempImage() { cudaFreeAsync(image_.data, stream_); }

}  // namespace wk::image::detail
