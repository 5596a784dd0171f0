#pragma once
// gray: 8-bit RGB/BGR(A) -> 8-bit gray, bit-identical to cv::cvtColor(..., COLOR_BGR2GRAY).
// 1-channel input passes through unchanged; 4-channel input ignores alpha.
#include <cuda_runtime_api.h>

#include <span>
#include <string_view>

#include "wk/core/image_view.hpp"

namespace wk::image {

enum class ChannelOrder { bgr, rgb };

// The APOD ladder of the gray kernel in the order it was built; every rung stays selectable.
// docs/apod/gray.md has the measurements: `vectorized` is the fastest, `streaming` was the next
// step tried and measured slower, so it stays as a documented dead end.
enum class GrayVariant {
  naive,        // one pixel per thread, byte loads (Parallelize)
  vectorized,   // 16 pixels per thread, 128-bit loads and stores (Optimize: vector loads, coarsening)
  streaming,    // 32 pixels per thread and evict-first cache hints (tried: slower than vectorized)
};

struct GrayVariantInfo {
  GrayVariant variant;
  const char* name;
  const char* description;
};

std::span<const GrayVariantInfo> gray_variants();
// The fastest rung measured on the H100 (see docs/apod/gray.md); the library's default.
GrayVariant gray_default_variant();
// Accepts the names in gray_variants(); throws wk::Error{usage} otherwise.
GrayVariant parse_gray_variant(std::string_view name);

// GPU: d_src and d_dst are device memory of the same size; d_dst has 1 channel. Asynchronous
// on `stream`; throws wk::Error{usage} on mismatched views, wk::Error{cuda} on launch errors.
// Vectorized rungs need 16-byte aligned rows (cudaMallocPitch gives 512); other rows take the
// naive rung, so every pitch works.
void gray(ConstImageView d_src, ImageView d_dst, ChannelOrder order, cudaStream_t stream,
          GrayVariant variant = gray_default_variant());

// CPU: OpenCV's cv::cvtColor on host memory (the reference and the fallback).
void gray_cpu(ConstImageView src, ImageView dst, ChannelOrder order);

}  // namespace wk::image
