#pragma once
// gray: 8-bit RGB/BGR(A) -> 8-bit gray, bit-identical to cv::cvtColor(..., COLOR_BGR2GRAY).
// 1-channel input passes through unchanged; 4-channel input ignores alpha.
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/core/image_view.hpp"

namespace wk::image {

enum class ChannelOrder { bgr, rgb };

// GPU: d_src and d_dst are device memory of the same size; d_dst has 1 channel. Asynchronous
// on `stream`; throws wk::Error{usage} on mismatched views, wk::Error{cuda} on launch errors.
// `rung`: a rung of find_operation("gray")->rungs() by name, empty for the tuned default. The
// vectorized rungs need 16-byte aligned rows (cudaMallocPitch gives 512); on other rows they give
// way to the default, which takes every pitch. Returns the name of the rung that ran ("" for an
// empty image).
const char* gray(ConstImageView d_src, ImageView d_dst, ChannelOrder order, cudaStream_t stream, std::string_view rung = {});

// CPU: OpenCV's cv::cvtColor on host memory (the reference and the fallback).
void gray_cpu(ConstImageView src, ImageView dst, ChannelOrder order);

}  // namespace wk::image
