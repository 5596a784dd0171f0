// Geometry on the host (OpenCV, the reference and the fallback), and crop's region syntax.
#include <opencv2/core.hpp>

#include <charconv>
#include <string>

#include "image/geometry/geometry_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/geometry.hpp"

namespace wk::image {

namespace {

cv::Mat mat(ConstImageView v) { return cv::Mat(v.height, v.width, CV_8UC(v.channels), const_cast<std::uint8_t*>(v.data), v.pitch_bytes); }
cv::Mat mat(ImageView v) { return cv::Mat(v.height, v.width, CV_8UC(v.channels), v.data, v.pitch_bytes); }

// OpenCV's result into the caller's memory, which check_geometry_destination has sized.
void into(const cv::Mat& result, ImageView d) { result.copyTo(mat(d)); }

[[noreturn]] void bad_crop(std::string_view text) {
  throw Error(ErrorCategory::usage, "crop: '" + std::string(text) + "' is not a region: expected WxH+X+Y or center:WxH");
}

// Reads an unsigned decimal at `pos`, moving past it; -1 when there is none.
int read_number(std::string_view t, std::size_t& pos) {
  int v = 0;
  const auto [end, ec] = std::from_chars(t.data() + pos, t.data() + t.size(), v);
  if (ec != std::errc() || end == t.data() + pos || v < 0) return -1;
  pos = static_cast<std::size_t>(end - t.data());
  return v;
}

}  // namespace

void detail::check_geometry_destination(const char* op, ConstImageView s, ImageView d, int w, int h) {
  if (d.width != w || d.height != h || d.channels != s.channels)
    throw Error(ErrorCategory::usage, std::string(op) + ": the destination must be " + std::to_string(w) + "x" + std::to_string(h) +
                                          " with " + std::to_string(s.channels) + " channels");
}

CropRegion parse_crop(std::string_view text) {
  CropRegion r;
  std::string_view t = text;
  for (std::string_view prefix : {"center:", "centre:"})
    if (t.substr(0, prefix.size()) == prefix) {
      r.centred = true;
      t.remove_prefix(prefix.size());
    }
  std::size_t pos = 0;
  r.width = read_number(t, pos);
  if (r.width <= 0 || pos >= t.size() || t[pos] != 'x') bad_crop(text);
  ++pos;
  r.height = read_number(t, pos);
  if (r.height <= 0) bad_crop(text);
  if (r.centred) {
    if (pos != t.size()) bad_crop(text);
    return r;
  }
  if (pos >= t.size() || t[pos] != '+') bad_crop(text);
  ++pos;
  r.x = read_number(t, pos);
  if (r.x < 0 || pos >= t.size() || t[pos] != '+') bad_crop(text);
  ++pos;
  r.y = read_number(t, pos);
  if (r.y < 0 || pos != t.size()) bad_crop(text);
  return r;
}

CropRegion place_crop(const CropRegion& region, int width, int height) {
  CropRegion r = region;
  if (r.centred) {
    r.x = (width - r.width) / 2;
    r.y = (height - r.height) / 2;
    r.centred = false;
  }
  if (r.width <= 0 || r.height <= 0 || r.x < 0 || r.y < 0 || long(r.x) + r.width > width || long(r.y) + r.height > height)
    throw Error(ErrorCategory::usage, "crop: the " + std::to_string(region.width) + "x" + std::to_string(region.height) +
                                          (region.centred ? " centred" : "+" + std::to_string(region.x) + "+" + std::to_string(region.y)) +
                                          " region is outside the " + std::to_string(width) + "x" + std::to_string(height) + " image");
  return r;
}

void flip_cpu(ConstImageView src, ImageView dst, FlipAxis axis) {
  detail::check_geometry_destination("flip", src, dst, src.width, src.height);
  if (src.empty()) return;
  cv::Mat out;
  cv::flip(mat(src), out, axis == FlipAxis::horizontal ? 1 : 0);
  into(out, dst);
}

void rotate_cpu(ConstImageView src, ImageView dst, int degrees) {
  if (degrees != 90 && degrees != 180 && degrees != 270)
    throw Error(ErrorCategory::usage, "rotate: the angle must be 90, 180 or 270, not " + std::to_string(degrees));
  const bool swap = degrees != 180;
  detail::check_geometry_destination("rotate", src, dst, swap ? src.height : src.width, swap ? src.width : src.height);
  if (src.empty()) return;
  cv::Mat out;
  cv::rotate(mat(src), out, degrees == 90 ? cv::ROTATE_90_CLOCKWISE : degrees == 180 ? cv::ROTATE_180 : cv::ROTATE_90_COUNTERCLOCKWISE);
  into(out, dst);
}

void transpose_cpu(ConstImageView src, ImageView dst) {
  detail::check_geometry_destination("transpose", src, dst, src.height, src.width);
  if (src.empty()) return;
  cv::Mat out;
  cv::transpose(mat(src), out);
  into(out, dst);
}

void crop_cpu(ConstImageView src, ImageView dst, int x, int y) {
  place_crop({dst.width, dst.height, x, y, false}, src.width, src.height);
  if (dst.empty()) return;
  mat(src)(cv::Rect(x, y, dst.width, dst.height)).copyTo(mat(dst));
}

}  // namespace wk::image
