// equalize kernels: luma histogram -> LUT (one block, CUB block scan, OpenCV's float rule from
// equalize_formula.hpp) -> LUT application. Gray reuses the histogram ladder; colour computes Y
// of YCrCb on the fly in both passes and never stores the YCrCb image.
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/rung_table.hpp"
#include "core/tuning.hpp"
#include "image/rungs.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/equalize.hpp"
#include "wk/image/equalize_formula.hpp"

namespace wk::image {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxGridY = 65535;

// A stream-ordered device temporary: allocated and freed on the caller's stream, so a call
// without a workspace still never synchronizes.
template <class T>
class StreamTemp {
 public:
  StreamTemp(std::size_t count, cudaStream_t s) : stream_(s) {
    WK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), count * sizeof(T), s));
  }
  ~StreamTemp() { cudaFreeAsync(ptr_, stream_); }
  StreamTemp(const StreamTemp&) = delete;
  StreamTemp& operator=(const StreamTemp&) = delete;
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
  cudaStream_t stream_;
};

int sm_count() {
  int device = 0, sms = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  WK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Y histogram of a BGR(A) image: block histogram in shared memory, merged with global atomics
// into `hist` (zeroed by the caller).
template <int CN>
__global__ void __launch_bounds__(kThreads) luma_histogram_kernel(const std::uint8_t* __restrict__ src, std::size_t pitch,
                                                                   int width, int height, std::uint32_t* hist) {
  __shared__ std::uint32_t h[kHistogramBins];
  h[threadIdx.x] = 0;
  __syncthreads();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < width)
    for (int y = blockIdx.y; y < height; y += gridDim.y) {
      const std::uint8_t* p = src + std::size_t(y) * pitch + std::size_t(x) * CN;
      atomicAdd(&h[bgr_to_ycc(p[0], p[1], p[2]).y], 1u);
    }
  __syncthreads();
  if (h[threadIdx.x]) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

// One block of 256 threads, thread v computes lut[v] exactly as cv::equalizeHist.
__global__ void __launch_bounds__(kHistogramBins) equalize_lut_kernel(const std::uint32_t* __restrict__ hist,
                                                                        std::uint8_t* __restrict__ lut, int total) {
  using Scan = cub::BlockScan<int, kHistogramBins>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ int first;
  const int v = threadIdx.x;
  if (v == 0) first = kHistogramBins;
  __syncthreads();
  const int count = static_cast<int>(hist[v]);
  if (count) atomicMin(&first, v);
  __syncthreads();
  const int f = first;
  int cumulative = 0;
  Scan(scan_storage).InclusiveSum(v > f ? count : 0, cumulative);
  std::uint8_t out = 0;
  if (f < kHistogramBins) {
    const int first_count = static_cast<int>(hist[f]);
    if (first_count == total) out = static_cast<std::uint8_t>(f);  // one value only: cv::equalizeHist sets every pixel to it
    else if (v > f) out = equalize_lut_value(cumulative, equalize_scale(total, first_count));
  }
  lut[v] = out;
}

// Gray LUT application, rungs naive (LUT in global memory) and shared_lut: one pixel per thread.
template <bool kSharedLut>
__global__ void __launch_bounds__(kThreads) apply_lut_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch,
                                                             std::uint8_t* __restrict__ dst, std::size_t dst_pitch, int width,
                                                             int height, const std::uint8_t* __restrict__ lut) {
  __shared__ std::uint8_t s_lut[kHistogramBins];
  if constexpr (kSharedLut) {
    s_lut[threadIdx.x] = lut[threadIdx.x];
    __syncthreads();
  }
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const std::uint8_t v = src[std::size_t(y) * src_pitch + x];
    dst[std::size_t(y) * dst_pitch + x] = kSharedLut ? s_lut[v] : lut[v];
  }
}

// Gray LUT application, rung vectorized: 16 pixels per thread, one 128-bit load and store.
__global__ void __launch_bounds__(kThreads) apply_lut_vector_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch,
                                                                    std::uint8_t* __restrict__ dst, std::size_t dst_pitch, int width,
                                                                    int height, const std::uint8_t* __restrict__ lut) {
  __shared__ std::uint8_t s_lut[kHistogramBins];
  s_lut[threadIdx.x] = lut[threadIdx.x];
  __syncthreads();
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (x0 >= width) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const std::uint8_t* in = src + std::size_t(y) * src_pitch;
    std::uint8_t* out = dst + std::size_t(y) * dst_pitch;
    if (x0 + 16 <= width) {
      union {
        uint4 v;
        std::uint8_t b[16];
      } a, r;
      a.v = __ldg(reinterpret_cast<const uint4*>(in + x0));
#pragma unroll
      for (int i = 0; i < 16; ++i) r.b[i] = s_lut[a.b[i]];
      *reinterpret_cast<uint4*>(out + x0) = r.v;
    } else {
      for (int x = x0; x < width; ++x) out[x] = s_lut[in[x]];
    }
  }
}

// Colour: Y -> lut[Y], chroma kept, back to BGR; alpha (CN == 4) copied.
template <int CN>
__global__ void __launch_bounds__(kThreads) apply_lut_colour_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch,
                                                                    std::uint8_t* __restrict__ dst, std::size_t dst_pitch, int width,
                                                                    int height, const std::uint8_t* __restrict__ lut) {
  __shared__ std::uint8_t s_lut[kHistogramBins];
  s_lut[threadIdx.x] = lut[threadIdx.x];
  __syncthreads();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const std::uint8_t* p = src + std::size_t(y) * src_pitch + std::size_t(x) * CN;
    std::uint8_t* q = dst + std::size_t(y) * dst_pitch + std::size_t(x) * CN;
    const std::uint8_t alpha = CN == 4 ? p[3] : 0;
    const Ycc ycc = bgr_to_ycc(p[0], p[1], p[2]);
    const Bgr bgr = ycc_to_bgr(s_lut[ycc.y], ycc.cr, ycc.cb);
    q[0] = bgr.b;
    q[1] = bgr.g;
    q[2] = bgr.r;
    if constexpr (CN == 4) q[3] = alpha;
  }
}

dim3 pixel_grid(int width, int height, int px_per_thread) {
  const int bx = (width + kThreads * px_per_thread - 1) / (kThreads * px_per_thread);
  const int by = std::clamp(32 * sm_count() / std::max(1, bx), 1, std::min(height, kMaxGridY));
  return dim3(bx, by);
}

enum class EqualizeKernel { naive, shared_lut, vectorized };

struct EqualizeCall {
  ConstImageView s;
  ImageView d;
  EqualizeWorkspace* workspace;
  cudaStream_t stream;
  bool aligned;  // both images' rows 16-byte aligned
};

void run_kernels(EqualizeKernel kernel, const EqualizeCall& c);

// Colour images run the same luma histogram and LUT pass on every rung; gray ones differ in the
// histogram rung and the LUT pass, and the vectorized pass needs 16-byte aligned rows.
template <EqualizeKernel K>
bool try_kernels(const EqualizeCall& c) {
  if (K == EqualizeKernel::vectorized && c.s.channels == 1 && !c.aligned) return false;
  run_kernels(K, c);
  return true;
}

constexpr wk::detail::Rung<EqualizeCall> kRungs[] = {
    {{"naive", "global-atomics histogram, LUT in global memory"}, &try_kernels<EqualizeKernel::naive>},
    {{"shared_lut", "shared-privatized histogram, LUT in shared memory"}, &try_kernels<EqualizeKernel::shared_lut>},
    {{"vectorized", "fastest histogram, 16 px/thread 128-bit LUT pass"}, &try_kernels<EqualizeKernel::vectorized>},
};

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192, docs/apod/equalize.md): vectorized ahead of
// every other rung; unaligned gray rows take shared_lut. Older architectures: the sm_90 order.
constexpr const char* kSm90[] = {"vectorized", "shared_lut"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<EqualizeCall> kLadder{"equalize", kRungs, kTuning};

}  // namespace

std::span<const RungInfo> detail::equalize_rungs() { return kLadder.infos(); }

void check_equalize_views(ConstImageView src, ImageView dst);

const char* equalize(ConstImageView d_src, ImageView d_dst, cudaStream_t stream, EqualizeWorkspace* workspace,
                     std::string_view rung) {
  check_equalize_views(d_src, d_dst);
  if (d_src.empty()) return kLadder.none(rung);
  const bool aligned = reinterpret_cast<std::uintptr_t>(d_src.data) % 16 == 0 && d_src.pitch_bytes % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(d_dst.data) % 16 == 0 && d_dst.pitch_bytes % 16 == 0;
  const EqualizeCall call{d_src, d_dst, workspace, stream, aligned};
  return kLadder.run(rung, call);
}

namespace {

void run_kernels(EqualizeKernel kernel, const EqualizeCall& c) {
  const ConstImageView d_src = c.s;
  const ImageView d_dst = c.d;
  EqualizeWorkspace* ws = c.workspace;
  const cudaStream_t stream = c.stream;
  const int w = d_src.width, h = d_src.height, cn = d_src.channels;
  std::uint32_t* d_hist;
  std::uint8_t* d_lut;
  HistogramWorkspace* hist_ws = nullptr;
  // Temporaries live until the end of this function; their frees are ordered after the kernels.
  std::optional<StreamTemp<std::uint32_t>> own_hist;
  std::optional<StreamTemp<std::uint8_t>> own_lut;
  if (ws) {
    d_hist = ws->histogram.get();
    d_lut = ws->lut.get();
    hist_ws = &ws->histogram_workspace;
  } else {
    own_hist.emplace(kHistogramBins, stream);
    own_lut.emplace(kHistogramBins, stream);
    d_hist = own_hist->get();
    d_lut = own_lut->get();
  }

  const char* hist_rung = kernel == EqualizeKernel::naive        ? "global_atomics"
                          : kernel == EqualizeKernel::shared_lut ? "shared_privatized"
                                                                 : "";  // the histogram's default
  if (cn == 1) {
    histogram(d_src, d_hist, stream, hist_ws, hist_rung);
  } else {
    WK_CUDA_CHECK(cudaMemsetAsync(d_hist, 0, kHistogramBins * sizeof(std::uint32_t), stream));
    const dim3 grid = pixel_grid(w, h, 1);
    if (cn == 3) luma_histogram_kernel<3><<<grid, kThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, w, h, d_hist);
    else luma_histogram_kernel<4><<<grid, kThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, w, h, d_hist);
    WK_CUDA_CHECK_LAUNCH();
  }
  equalize_lut_kernel<<<1, kHistogramBins, 0, stream>>>(d_hist, d_lut, w * h);
  WK_CUDA_CHECK_LAUNCH();

  if (cn == 1) {
    if (kernel == EqualizeKernel::vectorized && c.aligned)
      apply_lut_vector_kernel<<<pixel_grid(w, h, 16), kThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, d_dst.data,
                                                                             d_dst.pitch_bytes, w, h, d_lut);
    else if (kernel == EqualizeKernel::naive)
      apply_lut_kernel<false><<<pixel_grid(w, h, 1), kThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, d_dst.data,
                                                                            d_dst.pitch_bytes, w, h, d_lut);
    else
      apply_lut_kernel<true><<<pixel_grid(w, h, 1), kThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, d_dst.data,
                                                                           d_dst.pitch_bytes, w, h, d_lut);
  } else if (cn == 3) {
    apply_lut_colour_kernel<3><<<pixel_grid(w, h, 1), kThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, d_dst.data,
                                                                              d_dst.pitch_bytes, w, h, d_lut);
  } else {
    apply_lut_colour_kernel<4><<<pixel_grid(w, h, 1), kThreads, 0, stream>>>(d_src.data, d_src.pitch_bytes, d_dst.data,
                                                                              d_dst.pitch_bytes, w, h, d_lut);
  }
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace

}  // namespace wk::image
