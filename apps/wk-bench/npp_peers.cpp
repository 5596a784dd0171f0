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
// ---- Peers of the image kernels of issue 3 (histogram, convolution family).
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
