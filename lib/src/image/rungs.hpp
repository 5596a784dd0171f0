#pragma once
// The rung tables of the image ops, as names and lines (the op declarations list them; the tables
// themselves live next to each op's dispatch).
#include <span>

#include "wk/core/rung.hpp"

namespace wk::image::detail {

std::span<const RungInfo> gray_rungs();       // gray/gray.cu
std::span<const RungInfo> histogram_rungs();  // histogram/histogram.cu
std::span<const RungInfo> equalize_rungs();   // equalize/equalize.cu
std::span<const RungInfo> taps_rung_infos();  // filter/filter.cpp: conv and box
std::span<const RungInfo> gauss_rungs();      // gauss/gauss.cpp
std::span<const RungInfo> sobel_rungs();      // sobel/sobel.cpp
std::span<const RungInfo> laplacian_rungs();  // laplacian/laplacian.cpp
std::span<const RungInfo> sharpen_rungs();    // sharpen/sharpen.cpp
std::span<const RungInfo> invert_rungs();     // invert/invert.cu
std::span<const RungInfo> geometry_rungs();   // geometry/geometry.cu: flip, rotate, transpose, crop
std::span<const RungInfo> resize_rungs();     // resize/resize.cu: resize, thumbnail

}  // namespace wk::image::detail
