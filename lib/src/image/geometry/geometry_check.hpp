#pragma once
// Internal: the destination check the geometry ops' CPU and GPU paths share.
#include "wk/core/image_view.hpp"

namespace wk::image::detail {

// Throws wk::Error{usage} "OP: the destination must be WxH with N channels" unless `dst` is
// width x height with src's channels.
void check_geometry_destination(const char* op, ConstImageView src, ImageView dst, int width, int height);

}  // namespace wk::image::detail
