// Resize on the host (OpenCV, the reference and the fallback), its size syntax and its plan.
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "image/resize/resize_cpu.hpp"
#include "wk/core/error.hpp"
#include "wk/image/resize.hpp"

namespace wk::image {

namespace {

[[noreturn]] void bad_size(std::string_view text, const char* op, const std::string& why = {}) {
  throw Error(ErrorCategory::usage, std::string(op) + ": '" + std::string(text) + "' is not a size" +
                                        (why.empty() ? ": expected WxH, W, xH or N%" : ": " + why));
}

// A side of at least 1 pixel from a scaled length.
int side(double v) { return std::max(1, static_cast<int>(std::lround(v))); }

constexpr int kMaxSide = 1 << 16;

int cv_interp(Interp i) {
  switch (i) {
    case Interp::nearest: return cv::INTER_NEAREST;
    case Interp::linear: return cv::INTER_LINEAR;
    case Interp::cubic: return cv::INTER_CUBIC;
    case Interp::area: return cv::INTER_AREA;
    case Interp::lanczos: return cv::INTER_LANCZOS4;
  }
  return cv::INTER_LINEAR;
}

}  // namespace

const char* interp_name(Interp i) {
  switch (i) {
    case Interp::nearest: return "nearest";
    case Interp::linear: return "linear";
    case Interp::cubic: return "cubic";
    case Interp::area: return "area";
    case Interp::lanczos: return "lanczos";
  }
  return "?";
}

ResizeSize parse_resize_size(std::string_view text, const char* op) {
  ResizeSize s;
  if (text.empty()) bad_size(text, op);
  if (text.back() == '%') {
    const std::string_view num = text.substr(0, text.size() - 1);
    double p = 0;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), p);
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !std::isfinite(p)) bad_size(text, op);
    if (p <= 0 || p > 10000) bad_size(text, op, "the percentage must be above 0 and at most 10000");
    s.percent = p;
    return s;
  }
  auto number = [&](std::string_view t) {
    int v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size()) bad_size(text, op);
    if (v < 1 || v > kMaxSide) bad_size(text, op, "each side must be from 1 to " + std::to_string(kMaxSide) + " pixels");
    return v;
  };
  const auto x = text.find('x');
  if (x == std::string_view::npos) {
    s.width = number(text);
  } else {
    if (x > 0) s.width = number(text.substr(0, x));
    s.height = number(text.substr(x + 1));
  }
  return s;
}

ResizePlan plan_resize(const ResizeSize& size, FitMode mode, int in_w, int in_h, bool no_enlarge) {
  ResizePlan p;
  const double w = in_w, h = in_h;
  if (size.percent > 0) {
    p.scaled_width = side(w * size.percent / 100);
    p.scaled_height = side(h * size.percent / 100);
  } else if (size.width == 0 || size.height == 0) {  // one side given: the other follows
    const double scale = size.width ? size.width / w : size.height / h;
    p.scaled_width = size.width ? size.width : side(w * scale);
    p.scaled_height = size.height ? size.height : side(h * scale);
  } else if (mode == FitMode::exact) {
    p.scaled_width = size.width;
    p.scaled_height = size.height;
  } else {
    // fit: the tighter side meets the box exactly; fill: the looser one.
    const double sx = size.width / w, sy = size.height / h;
    const bool by_width = mode == FitMode::fit ? sx <= sy : sx >= sy;
    p.scaled_width = by_width ? size.width : side(w * sy);
    p.scaled_height = by_width ? side(h * sx) : size.height;
  }
  if (no_enlarge && (p.scaled_width > in_w || p.scaled_height > in_h)) {
    p.scaled_width = in_w;
    p.scaled_height = in_h;
  }
  p.width = p.scaled_width;
  p.height = p.scaled_height;
  if (mode == FitMode::fill && size.width && size.height && size.percent == 0) {
    p.width = std::min(size.width, p.scaled_width);
    p.height = std::min(size.height, p.scaled_height);
    p.x = (p.scaled_width - p.width) / 2;
    p.y = (p.scaled_height - p.height) / 2;
  }
  return p;
}

Interp default_interp(const ResizePlan& plan, int in_w, int in_h) {
  return plan.scaled_width <= in_w && plan.scaled_height <= in_h ? Interp::area : Interp::cubic;
}

void resize_cpu(ConstImageView src, ImageView dst, const ResizePlan& plan, Interp interp) {
  if (dst.width != plan.width || dst.height != plan.height || dst.channels != src.channels)
    throw Error(ErrorCategory::usage, "resize: the destination must be " + std::to_string(plan.width) + "x" +
                                          std::to_string(plan.height) + " with " + std::to_string(src.channels) + " channels");
  if (src.empty() || dst.empty()) return;
  const cv::Mat in(src.height, src.width, CV_8UC(src.channels), const_cast<std::uint8_t*>(src.data), src.pitch_bytes);
  cv::Mat out(dst.height, dst.width, CV_8UC(dst.channels), dst.data, dst.pitch_bytes);
  const bool whole = plan.x == 0 && plan.y == 0 && plan.width == plan.scaled_width && plan.height == plan.scaled_height;
  if (whole) {
    cv::resize(in, out, out.size(), 0, 0, cv_interp(interp));
    return;
  }
  detail::resize_mat(in, plan, interp).copyTo(out);
}

cv::Mat detail::resize_mat(const cv::Mat& in, const ResizePlan& plan, Interp interp) {
  cv::Mat scaled;
  cv::resize(in, scaled, cv::Size(plan.scaled_width, plan.scaled_height), 0, 0, cv_interp(interp));
  const bool whole = plan.x == 0 && plan.y == 0 && plan.width == plan.scaled_width && plan.height == plan.scaled_height;
  return whole ? scaled : scaled(cv::Rect(plan.x, plan.y, plan.width, plan.height)).clone();
}

}  // namespace wk::image
