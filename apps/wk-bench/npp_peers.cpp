// NPP as a benchmark peer. Built only when the toolkit has NPP (the GPU machine does).
#include <npp.h>

#include <string>

#include "benches.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::bench {

namespace {
NppStreamContext make_context(cudaStream_t stream) {
  NppStreamContext ctx{};
  ctx.hStream = stream;
  WK_CUDA_CHECK(cudaGetDevice(&ctx.nCudaDeviceId));
  cudaDeviceProp prop{};
  WK_CUDA_CHECK(cudaGetDeviceProperties(&prop, ctx.nCudaDeviceId));
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  WK_CUDA_CHECK(cudaStreamGetFlags(stream, &ctx.nStreamFlags));
  return ctx;
}

void check_npp(NppStatus st, const char* what) {
  if (st != NPP_SUCCESS) throw Error(ErrorCategory::cuda, std::string(what) + " failed with NppStatus " + std::to_string(int(st)));
}
}  // namespace

void npp_rgb_to_gray(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch,
                     int width, int height, cudaStream_t stream) {
  static thread_local NppStreamContext ctx{};
  static thread_local cudaStream_t ctx_stream = nullptr;
  if (ctx_stream != stream || ctx.nMultiProcessorCount == 0) {
    ctx = make_context(stream);
    ctx_stream = stream;
  }
  check_npp(nppiRGBToGray_8u_C3C1R_Ctx(d_src, int(src_pitch), d_dst, int(dst_pitch), NppiSize{width, height}, ctx),
            "nppiRGBToGray_8u_C3C1R_Ctx");
}

}  // namespace wk::bench
// ---- Peers of the image kernels (histogram, convolution family).
namespace wk::bench {

namespace {

// One context per (thread, stream), built on first use.
const NppStreamContext& context_for(cudaStream_t stream) {
  static thread_local NppStreamContext ctx{};
  static thread_local cudaStream_t ctx_stream = nullptr;
  static thread_local bool valid = false;
  if (!valid || ctx_stream != stream) {
    ctx = make_context(stream);
    ctx_stream = stream;
    valid = true;
  }
  return ctx;
}

// NPP's scratch-size queries return int in older releases and size_t in newer ones: deduce it.
template <class T>
std::size_t histogram_scratch_bytes(NppStatus (*query)(NppiSize, int, T*, NppStreamContext), NppiSize roi, int levels,
                                    const NppStreamContext& ctx) {
  T bytes{};
  check_npp(query(roi, levels, &bytes, ctx), "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx");
  return static_cast<std::size_t>(bytes);
}

constexpr int kHistogramLevels = 257;  // 256 bins [0,1), [1,2), ..., [255,256)

}  // namespace

NppHistogram::NppHistogram(int width, int height, cudaStream_t stream) : width_(width), height_(height) {
  const std::size_t bytes = histogram_scratch_bytes(nppiHistogramEvenGetBufferSize_8u_C1R_Ctx, NppiSize{width, height},
                                                    kHistogramLevels, context_for(stream));
  WK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_scratch_), bytes ? bytes : 1));
  WK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_hist_), 256 * sizeof(std::int32_t)));
}

NppHistogram::~NppHistogram() {
  cudaFree(d_scratch_);
  cudaFree(d_hist_);
}

void NppHistogram::run(const std::uint8_t* d_src, std::size_t pitch, cudaStream_t stream) {
  check_npp(nppiHistogramEven_8u_C1R_Ctx(d_src, static_cast<int>(pitch), NppiSize{width_, height_}, d_hist_, kHistogramLevels, 0, 256,
                                         d_scratch_, context_for(stream)),
            "nppiHistogramEven_8u_C1R_Ctx");
}

}  // namespace wk::bench

// ---- Filter peers: replicate border, whole image, 8-bit gray.
namespace wk::bench {

namespace {
NppiMaskSize mask_size(int ksize) {
  switch (ksize) {
    case 3: return NPP_MASK_SIZE_3_X_3;
    case 5: return NPP_MASK_SIZE_5_X_5;
    case 7: return NPP_MASK_SIZE_7_X_7;
    case 9: return NPP_MASK_SIZE_9_X_9;
    case 11: return NPP_MASK_SIZE_11_X_11;
    case 13: return NPP_MASK_SIZE_13_X_13;
    case 15: return NPP_MASK_SIZE_15_X_15;
    default: throw Error(ErrorCategory::unsupported, "NPP's Gaussian has no " + std::to_string(ksize) + "x" + std::to_string(ksize) + " mask");
  }
}
}  // namespace

void npp_gauss(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width, int height,
               int ksize, cudaStream_t stream) {
  const NppiSize size{width, height};
  check_npp(nppiFilterGaussBorder_8u_C1R_Ctx(d_src, static_cast<Npp32s>(src_pitch), size, NppiPoint{0, 0}, d_dst,
                                             static_cast<Npp32s>(dst_pitch), size, mask_size(ksize), NPP_BORDER_REPLICATE,
                                             context_for(stream)),
            "nppiFilterGaussBorder_8u_C1R_Ctx");
}

void npp_filter32f(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width,
                   int height, const float* d_kernel, int kernel_width, int kernel_height, cudaStream_t stream) {
  const NppiSize size{width, height};
  check_npp(nppiFilterBorder32f_8u_C1R_Ctx(d_src, static_cast<int>(src_pitch), size, NppiPoint{0, 0}, d_dst, static_cast<int>(dst_pitch),
                                           size, d_kernel, NppiSize{kernel_width, kernel_height},
                                           NppiPoint{kernel_width / 2, kernel_height / 2}, NPP_BORDER_REPLICATE, context_for(stream)),
            "nppiFilterBorder32f_8u_C1R_Ctx");
}

void npp_box(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width, int height,
             int ksize, cudaStream_t stream) {
  const NppiSize size{width, height};
  check_npp(nppiFilterBoxBorder_8u_C1R_Ctx(d_src, static_cast<int>(src_pitch), size, NppiPoint{0, 0}, d_dst, static_cast<int>(dst_pitch),
                                           size, NppiSize{ksize, ksize}, NppiPoint{ksize / 2, ksize / 2}, NPP_BORDER_REPLICATE,
                                           context_for(stream)),
            "nppiFilterBoxBorder_8u_C1R_Ctx");
}

void npp_sobel_dx_s16(const std::uint8_t* d_src, std::size_t src_pitch, std::int16_t* d_dst, std::size_t dst_pitch, int width,
                      int height, cudaStream_t stream) {
  const NppiSize size{width, height};
  check_npp(nppiFilterSobelVertBorder_8u16s_C1R_Ctx(d_src, static_cast<Npp32s>(src_pitch), size, NppiPoint{0, 0}, d_dst,
                                                    static_cast<Npp32s>(dst_pitch), size, NPP_MASK_SIZE_3_X_3, NPP_BORDER_REPLICATE,
                                                    context_for(stream)),
            "nppiFilterSobelVertBorder_8u16s_C1R_Ctx");
}

void npp_laplace(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width, int height,
                 cudaStream_t stream) {
  const NppiSize size{width, height};
  check_npp(nppiFilterLaplaceBorder_8u_C1R_Ctx(d_src, static_cast<Npp32s>(src_pitch), size, NppiPoint{0, 0}, d_dst,
                                               static_cast<Npp32s>(dst_pitch), size, NPP_MASK_SIZE_3_X_3, NPP_BORDER_REPLICATE,
                                               context_for(stream)),
            "nppiFilterLaplaceBorder_8u_C1R_Ctx");
}

}  // namespace wk::bench

// ---- Resize peer: whole image to whole image, 8-bit, 3 channels. Needs NPP's geometry library
// (nppig), so it is built only where the build links it and defines WK_HAVE_NPP_RESIZE.
#if defined(WK_HAVE_NPP_RESIZE)
namespace wk::bench {

namespace {
// wk::image::Interp's order: nearest, linear, cubic, area, lanczos. Area is NPP's
// supersampling (shrinking only), the same box coverage as OpenCV's INTER_AREA.
int npp_interpolation(int interp) {
  switch (interp) {
    case 0: return NPPI_INTER_NN;
    case 1: return NPPI_INTER_LINEAR;
    case 2: return NPPI_INTER_CUBIC;
    case 3: return NPPI_INTER_SUPER;
    case 4: return NPPI_INTER_LANCZOS;
    default: throw Error(ErrorCategory::internal, "npp_resize_8u_c3: no interpolation " + std::to_string(interp));
  }
}
}  // namespace

void npp_resize_8u_c3(const std::uint8_t* d_src, std::size_t src_pitch, int src_width, int src_height, std::uint8_t* d_dst,
                      std::size_t dst_pitch, int dst_width, int dst_height, int interp, cudaStream_t stream) {
  const NppiSize src_size{src_width, src_height}, dst_size{dst_width, dst_height};
  const NppiRect src_roi{0, 0, src_width, src_height}, dst_roi{0, 0, dst_width, dst_height};
  check_npp(nppiResize_8u_C3R_Ctx(d_src, static_cast<int>(src_pitch), src_size, src_roi, d_dst, static_cast<int>(dst_pitch), dst_size,
                                  dst_roi, npp_interpolation(interp), context_for(stream)),
            "nppiResize_8u_C3R_Ctx");
}

}  // namespace wk::bench
#endif
