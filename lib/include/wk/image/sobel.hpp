#pragma once
// sobel: 3 x 3 Sobel derivatives, exactly cv::Sobel(src, CV_16S, 1, 0) / (0, 1) (integer sums,
// exact), and from them
//   sobel      gradient magnitude saturate(cvRound(sqrt(dx^2 + dy^2))), 8-bit
//   sobel:dx   cv::convertScaleAbs(cv::Sobel(src, CV_16S, 1, 0)), 8-bit
//   sobel:dy   cv::convertScaleAbs(cv::Sobel(src, CV_16S, 0, 1)), 8-bit
// The library also gives the signed 16-bit derivatives and float32 images.
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/image/filter.hpp"

namespace wk::image {

enum class SobelDerivative { dx, dy };
enum class SobelOutput { magnitude, dx, dy };

// GPU, 8-bit in, 8-bit out (1, 3 or 4 channels). Asynchronous on `stream`. `rung`: a rung of
// find_operation("sobel")->rungs() by name, empty for the tuned default; one that does not apply
// gives way to the default. Each returns the name of the rung that ran ("" for an empty image).
const char* sobel(ConstImageView d_src, ImageView d_dst, SobelOutput output, const Border& border, cudaStream_t stream,
                  std::string_view rung = {});
// GPU, 8-bit in, signed 16-bit derivative out.
const char* sobel_s16(ConstImageView d_src, ImageViewS16 d_dst, SobelDerivative derivative, const Border& border,
                      cudaStream_t stream, std::string_view rung = {});
// GPU, float in, float derivative out (cv::Sobel(src, CV_32F, ...)).
const char* sobel(ConstImageViewF32 d_src, ImageViewF32 d_dst, SobelDerivative derivative, const Border& border,
                  cudaStream_t stream, std::string_view rung = {});

void sobel_cpu(ConstImageView src, ImageView dst, SobelOutput output, const Border& border);
void sobel_s16_cpu(ConstImageView src, ImageViewS16 dst, SobelDerivative derivative, const Border& border);
void sobel_cpu(ConstImageViewF32 src, ImageViewF32 dst, SobelDerivative derivative, const Border& border);

}  // namespace wk::image
