// Sample: a 1-D box blur with a shared-memory tile and halo, plus two deliberate bugs behind a
// flag, to see what compute-sanitizer reports (the book's ch. 10 debugging exercise, runnable).
//
//   wk-sample-halo-bug [--bug none|halo|sync] [N]
//     none  correct kernel: prints PASS
//     halo  off-by-one halo load: reads one element past the input (memcheck: invalid read)
//     sync  missing __syncthreads() between filling the tile and reading it (racecheck: hazards)
//
//   compute-sanitizer --tool memcheck  ./wk-sample-halo-bug --bug halo
//   compute-sanitizer --tool racecheck ./wk-sample-halo-bug --bug sync
// Standalone on purpose (CUDA runtime only), so it also builds with `nvcc -G -g` for cuda-gdb.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kRadius = 3;
constexpr int kBlock = 256;

enum Bug { kNone = 0, kHalo = 1, kSync = 2 };

__global__ void box_blur_1d(const float* __restrict__ in, float* __restrict__ out, int n, int bug) {
  __shared__ float tile[kBlock + 2 * kRadius];
  const int g = blockIdx.x * kBlock + threadIdx.x;  // global index
  const int l = threadIdx.x + kRadius;              // index in the tile
  tile[l] = g < n ? in[g] : 0.f;
  if (threadIdx.x < kRadius) {
    const int left = g - kRadius;
    const int right = g + kBlock;
    tile[l - kRadius] = left >= 0 ? in[left] : 0.f;
    // The halo bug: `<=` lets the last block read in[n], one past the end.
    const bool inside = bug == kHalo ? right <= n : right < n;
    tile[l + kBlock] = inside ? in[right] : 0.f;
  }
  // The sync bug: without this barrier a thread may read tile cells that another warp has not
  // written yet.
  if (bug != kSync) __syncthreads();
  if (g < n) {
    float sum = 0.f;
    for (int k = -kRadius; k <= kRadius; ++k) sum += tile[l + k];
    out[g] = sum / (2 * kRadius + 1);
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\nFAIL\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int bug = kNone;
  int n = 4 * kBlock + 1;  // the last block's halo thread 1 lands exactly on index n
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bug") && i + 1 < argc) {
      const char* b = argv[++i];
      bug = !std::strcmp(b, "halo") ? kHalo : !std::strcmp(b, "sync") ? kSync : kNone;
    } else {
      n = std::atoi(argv[i]);
    }
  }
  std::vector<float> h_in(n), h_out(n), expected(n);
  for (int i = 0; i < n; ++i) h_in[i] = float((i * 37) % 101);
  for (int i = 0; i < n; ++i) {
    float sum = 0.f;
    for (int k = -kRadius; k <= kRadius; ++k) sum += (i + k >= 0 && i + k < n) ? h_in[i + k] : 0.f;
    expected[i] = sum / (2 * kRadius + 1);
  }
  float *d_in = nullptr, *d_out = nullptr;
  check(cudaMalloc(&d_in, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&d_out, n * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice), "upload");
  box_blur_1d<<<(n + kBlock - 1) / kBlock, kBlock>>>(d_in, d_out, n, bug);
  check(cudaGetLastError(), "launch");
  check(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost), "download");
  cudaFree(d_in);
  cudaFree(d_out);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += std::fabs(h_out[i] - expected[i]) > 1e-4f;
  std::printf("box_blur_1d n=%d bug=%s: %d of %d outputs differ from the CPU\n%s\n", n,
              bug == kHalo ? "halo" : bug == kSync ? "sync" : "none", wrong, n, wrong ? "FAIL" : "PASS");
  return wrong ? 1 : 0;
}
