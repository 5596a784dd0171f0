#pragma once
// Geometry without resampling: flip, rotate by quarter turns, transpose and crop, on 8-bit images
// of 1, 3 or 4 channels, exactly cv::flip, cv::rotate, cv::transpose and a cv::Mat region copy.
// Each output pixel is one input pixel: the GPU and CPU paths agree bit for bit.
#include <cuda_runtime_api.h>

#include <string_view>

#include "wk/core/image_view.hpp"

namespace wk::image {

enum class FlipAxis {
  horizontal,  // mirror left-right (cv::flip code 1)
  vertical,    // mirror top-bottom (cv::flip code 0)
};

// A region of an image: width x height pixels from (x, y).
struct CropRegion {
  int width = 0, height = 0, x = 0, y = 0;
  bool centred = false;  // x, y: centre the region in the image (crop:center:WxH)
};

// "WxH+X+Y" or "center:WxH" (also "centre:WxH"). Throws wk::Error{usage} naming the form
// otherwise.
CropRegion parse_crop(std::string_view text);
// The region in a width x height image (a centred region placed); throws wk::Error{usage}
// "crop: the WxH+X+Y region is outside the AxB image" when it does not fit.
CropRegion place_crop(const CropRegion& region, int width, int height);

// GPU: device images; d_dst has the output's size (rotate by 90 or 270 and transpose swap width
// and height; crop: the region's) and d_src's channels; no overlap. Asynchronous on `stream`.
// `rung`: a rung of find_operation("flip")->rungs() (the geometry ops share one table: naive,
// tiled) by name, empty for the tuned default. Each returns the name of the rung that ran (""
// for an empty image). Throws wk::Error{usage} for views of the wrong size.
const char* flip(ConstImageView d_src, ImageView d_dst, FlipAxis axis, cudaStream_t stream, std::string_view rung = {});
// degrees: 90, 180 or 270, clockwise (cv::ROTATE_90_CLOCKWISE, ROTATE_180, ROTATE_90_COUNTERCLOCKWISE).
const char* rotate(ConstImageView d_src, ImageView d_dst, int degrees, cudaStream_t stream, std::string_view rung = {});
const char* transpose(ConstImageView d_src, ImageView d_dst, cudaStream_t stream, std::string_view rung = {});
// The region of d_src at (x, y) of d_dst's size.
const char* crop(ConstImageView d_src, ImageView d_dst, int x, int y, cudaStream_t stream, std::string_view rung = {});

// CPU: OpenCV.
void flip_cpu(ConstImageView src, ImageView dst, FlipAxis axis);
void rotate_cpu(ConstImageView src, ImageView dst, int degrees);
void transpose_cpu(ConstImageView src, ImageView dst);
void crop_cpu(ConstImageView src, ImageView dst, int x, int y);

}  // namespace wk::image
