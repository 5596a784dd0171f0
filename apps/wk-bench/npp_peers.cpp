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
