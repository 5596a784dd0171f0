// Proves the GPU can run this build's code: cudaGetDeviceCount alone says yes for a GPU whose
// architecture the fat binary has no code for, or a driver too old for this runtime's PTX.
#include <cuda_runtime.h>

#include <string>

namespace wk::detail {

namespace {
__global__ void probe_kernel(int* out) { *out = 42; }

std::string describe(cudaError_t e) {
  switch (e) {
    case cudaErrorNoDevice: return "no CUDA device found";
    case cudaErrorInsufficientDriver: return "the NVIDIA driver is missing or older than this CUDA runtime";
    case cudaErrorNoKernelImageForDevice: return "this build has no code for the GPU's architecture (set CMAKE_CUDA_ARCHITECTURES)";
    default: return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  }
}
}  // namespace

int probe_kernel_launch(std::string* reason) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    *reason = describe(e == cudaSuccess ? cudaErrorNoDevice : e);
    (void)cudaGetLastError();
    return 0;
  }
  int* d_out = nullptr;
  int h_out = 0;
  e = cudaMalloc(&d_out, sizeof(int));
  if (e == cudaSuccess) {
    probe_kernel<<<1, 1>>>(d_out);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemcpy(&h_out, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_out);
  }
  if (e == cudaSuccess && h_out != 42) *reason = "the probe kernel did not run";
  else if (e != cudaSuccess) *reason = describe(e);
  (void)cudaGetLastError();
  return count;
}

}  // namespace wk::detail
