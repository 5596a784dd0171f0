#pragma once
// WK_HD marks code written once for host and device: nvcc compiles it for both, the host
// compiler sees plain inline functions, so CI (no GPU) tests exactly what the GPU runs.
#if defined(__CUDACC__)
#define WK_HD __host__ __device__ __forceinline__
#else
#define WK_HD inline
#endif
