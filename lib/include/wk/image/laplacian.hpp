#pragma once
// laplacian: cv::convertScaleAbs(cv::Laplacian(src, CV_16S, 1)) on 8-bit images, i.e. |v| of the
// 3 x 3 kernel [0 1 0; 1 -4 1; 0 1 0] (integer sums, exact), saturated; float images give
// cv::Laplacian(src, CV_32F, 1).
#include <cuda_runtime_api.h>

#include "wk/image/filter.hpp"

namespace wk::image {

// vectorized_3x3 (gray 8-bit, aligned rows); other images take register_blocked (the kernel is
// not rank 1, so separable means register_blocked too).
ConvVariant laplacian_default_variant();

void laplacian(ConstImageView d_src, ImageView d_dst, const Border& border, cudaStream_t stream,
               ConvVariant variant = laplacian_default_variant());
void laplacian(ConstImageViewF32 d_src, ImageViewF32 d_dst, const Border& border, cudaStream_t stream,
               ConvVariant variant = laplacian_default_variant());

void laplacian_cpu(ConstImageView src, ImageView dst, const Border& border);
void laplacian_cpu(ConstImageViewF32 src, ImageViewF32 dst, const Border& border);

}  // namespace wk::image
