#pragma once
// Device-side pieces the convolution family's generic kernels share (filter.cu, filter_mma.cu):
// typed views of a GpuImage with OpenCV's border rule, and the epilogues that turn a float sum
// into exactly what OpenCV stores.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "image/filter/filter_gpu.hpp"
#include "wk/image/filter_formula.hpp"

namespace wk::image::detail {

template <class T>
struct Src {
  const std::uint8_t* data;
  std::size_t pitch;
  int width, height, cn;
  __device__ __forceinline__ float at(int x, int y, int c) const {
    return static_cast<float>(__ldg(reinterpret_cast<const T*>(data + std::size_t(y) * pitch) + std::size_t(x) * cn + c));
  }
  // The pixel at (x, y) of channel c with the border applied.
  __device__ __forceinline__ float at_border(int x, int y, int c, const BorderArgs& b) const {
    const int xx = border_index(x, width, b.mode), yy = border_index(y, height, b.mode);
    return (xx < 0 || yy < 0) ? b.value : at(xx, yy, c);
  }
};

template <class T>
__device__ __forceinline__ T to_output(float v, const Epilogue& e);

// The 8-bit epilogue of kind K. to_output<uint8_t> picks K at run time for each value; kernels
// that convert many values per thread pick it once (epilogue_dispatch) and call this.
template <EpilogueKind K>
__device__ __forceinline__ std::uint8_t to_u8(float v, const Epilogue& e) {
  int r;
  if constexpr (K == EpilogueKind::fixed16) r = static_cast<int>(floorf(fmaf(v, 1.f / 65536.f, 0.5f)));  // exact: v < 2^24
  else if constexpr (K == EpilogueKind::box_fixed) r = static_cast<int>(box_divide(static_cast<unsigned>(v), {unsigned(e.add), e.mul}));
  else if constexpr (K == EpilogueKind::box_float) r = __float2int_rn(v * e.scale);
  else if constexpr (K == EpilogueKind::abs_round) r = abs(__float2int_rn(v));
  else r = __float2int_rn(v);
  return static_cast<std::uint8_t>(min(max(r, 0), 255));
}

// (v + 2^15) >> 16 of an exact integer v < 2^24 held in a float (OpenCV's 8-bit Gaussian), in the
// low byte of the result's bits: v 2^-16 + 1/2 is exact, and adding 2^23 rounding down leaves
// its floor in the low mantissa bits. Two instructions; the streaming kernels' fast fixed16.
__device__ __forceinline__ unsigned fixed16_floor_bits(float v) {
  return __float_as_uint(__fadd_rd(fmaf(v, 1.f / 65536.f, 0.5f), 8388608.f));
}

// cv::addWeighted on 8-bit pixels as sharpen uses it: saturate(cvRound(fma(src, alpha, fma(blur,
// beta, gamma)))) in fp32; cvt.rni.sat rounds half to even and saturates to 0..255 in one step.
__device__ __forceinline__ unsigned add_weighted_u8(float src, float blur, float alpha, float beta, float gamma) {
  unsigned short r;
  asm("cvt.rni.sat.u8.f32 %0, %1;" : "=h"(r) : "f"(fmaf(src, alpha, fmaf(blur, beta, gamma))));
  return r;
}

// Calls f(std::integral_constant<EpilogueKind, K>{}) with K = e.kind.
template <class F>
__device__ __forceinline__ void epilogue_dispatch(const Epilogue& e, F&& f) {
  switch (e.kind) {
    case EpilogueKind::fixed16: f(std::integral_constant<EpilogueKind, EpilogueKind::fixed16>{}); break;
    case EpilogueKind::box_fixed: f(std::integral_constant<EpilogueKind, EpilogueKind::box_fixed>{}); break;
    case EpilogueKind::box_float: f(std::integral_constant<EpilogueKind, EpilogueKind::box_float>{}); break;
    case EpilogueKind::abs_round: f(std::integral_constant<EpilogueKind, EpilogueKind::abs_round>{}); break;
    default: f(std::integral_constant<EpilogueKind, EpilogueKind::round_even>{}); break;
  }
}

template <>
__device__ __forceinline__ std::uint8_t to_output<std::uint8_t>(float v, const Epilogue& e) {
  std::uint8_t r = 0;
  epilogue_dispatch(e, [&](auto k) { r = to_u8<decltype(k)::value>(v, e); });
  return r;
}

template <>
__device__ __forceinline__ std::int16_t to_output<std::int16_t>(float v, const Epilogue&) {
  return static_cast<std::int16_t>(min(max(__float2int_rn(v), -32768), 32767));
}

template <>
__device__ __forceinline__ float to_output<float>(float v, const Epilogue& e) {
  return e.kind == EpilogueKind::box_float ? v * e.scale : v;
}

template <class T>
struct Dst {
  std::uint8_t* data;
  std::size_t pitch;
  int width, height, cn;
  __device__ __forceinline__ void store(int x, int y, int c, float v, const Epilogue& e) const {
    reinterpret_cast<T*>(data + std::size_t(y) * pitch)[std::size_t(x) * cn + c] = to_output<T>(v, e);
  }
};

// Whether every row of a Src or Dst starts on a multiple of `bytes` (a power of two).
template <class View>
__device__ __forceinline__ bool rows_aligned(const View& v, unsigned bytes) {
  return ((reinterpret_cast<std::uintptr_t>(v.data) | v.pitch) & (bytes - 1)) == 0;
}

template <class T>
inline Src<T> src_of(const GpuImage& g) {
  return {static_cast<const std::uint8_t*>(g.data), g.pitch, g.width, g.height, g.channels};
}
template <class T>
inline Dst<T> dst_of(const GpuImage& g) {
  return {static_cast<std::uint8_t*>(g.data), g.pitch, g.width, g.height, g.channels};
}

}  // namespace wk::image::detail
