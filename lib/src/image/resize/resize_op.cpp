// The resampling operations: resize (any size, fit mode and interpolation) and thumbnail (fit
// inside a box with area averaging, never enlarging; a JPEG input is decoded reduced when the
// box allows it).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "image/op_decl.hpp"
#include "image/resize/resize_cpu.hpp"
#include "image/rungs.hpp"
#include "wk/core/error.hpp"
#include "wk/image/resize.hpp"

namespace wk::image::detail {

namespace {

struct ResizeArgs {
  ResizeSize size;
  FitMode mode = FitMode::fit;
  bool interp_given = false;
  Interp interp = Interp::area;
  bool no_enlarge = false;
};

// "SIZE[:MODE][:INTERP]": the size, then a fit mode and an interpolation in either order.
ResizeArgs parse_resize_args(const std::string& text) {
  struct Word {
    const char* name;
    bool is_mode;
    FitMode mode;
    Interp interp;
  };
  static constexpr Word kWords[] = {
      {"fit", true, FitMode::fit, Interp::area},       {"fill", true, FitMode::fill, Interp::area},
      {"exact", true, FitMode::exact, Interp::area},   {"nearest", false, FitMode::fit, Interp::nearest},
      {"linear", false, FitMode::fit, Interp::linear}, {"cubic", false, FitMode::fit, Interp::cubic},
      {"area", false, FitMode::fit, Interp::area},     {"lanczos", false, FitMode::fit, Interp::lanczos},
  };
  std::vector<std::string_view> parts;
  for (std::string_view t = text;;) {
    const auto colon = t.find(':');
    parts.push_back(t.substr(0, colon));
    if (colon == std::string_view::npos) break;
    t.remove_prefix(colon + 1);
  }
  ResizeArgs a;
  a.size = parse_resize_size(parts[0]);
  bool mode_given = false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const Word* w = nullptr;
    for (const Word& k : kWords)
      if (parts[i] == k.name) w = &k;
    if (!w)
      throw Error(ErrorCategory::usage, "resize: unknown word '" + std::string(parts[i]) +
                                            "': expected a fit mode (fit, fill, exact) or an interpolation (area, linear, "
                                            "cubic, lanczos, nearest)");
    bool& given = w->is_mode ? mode_given : a.interp_given;
    if (given) throw Error(ErrorCategory::usage, std::string("resize: more than one ") + (w->is_mode ? "fit mode" : "interpolation"));
    given = true;
    if (w->is_mode) a.mode = w->mode;
    else a.interp = w->interp;
  }
  return a;
}

Operation resize_operation(const char* name, const ResizeArgs& a) {
  auto plan_for = [a](int w, int h) { return plan_resize(a.size, a.mode, w, h, a.no_enlarge); };
  auto interp_for = [a](const ResizePlan& p, int w, int h) { return a.interp_given ? a.interp : default_interp(p, w, h); };
  Operation op = sized_operation(
      name,
      [plan_for](int w, int h) {
        const ResizePlan p = plan_for(w, h);
        return std::pair<int, int>{p.width, p.height};
      },
      [plan_for, interp_for](ConstImageView in, ImageView out) {
        const ResizePlan p = plan_for(in.width, in.height);
        resize_cpu(in, out, p, interp_for(p, in.width, in.height));
      },
      [plan_for, interp_for](ConstImageView in, ImageView out, cudaStream_t s) {
        const ResizePlan p = plan_for(in.width, in.height);
        resize(in, out, p, interp_for(p, in.width, in.height), s);
      });
  op.any_depth = [plan_for, interp_for](cv::Mat& img) {
    const ResizePlan p = plan_for(img.cols, img.rows);
    img = resize_mat(img, p, interp_for(p, img.cols, img.rows));
  };
  return op;
}

constexpr OpArg kResizeArgs[] = {
    {"SIZE[:MODE][:INTERP]", ArgKind::text,
     "SIZE is WxH, W, xH (the other side keeps the aspect) or N%; MODE fit (inside WxH, the default), fill (cover WxH, "
     "then cut it from the centre) or exact; INTERP area, linear, cubic, lanczos or nearest (default: area when "
     "shrinking, cubic when enlarging). The GPU gives cv::resize's pixels for nearest, within 1 level for the others"},
};

Operation bind_resize(const OpValues& v, const PipelineOptions&) { return resize_operation("resize", parse_resize_args(v.text)); }

constexpr OpArg kThumbnailArgs[] = {
    {"SIZE", ArgKind::text, "the box, WxH (or W, xH); the image fits inside it, aspect kept, and is never enlarged"},
};

// The largest libjpeg scale denominator whose decode (ceil(side / k) pixels a side) is still at
// least the thumbnail on both sides: the area averaging then starts from fewer pixels, as
// vipsthumbnail's shrink-on-load does.
int thumbnail_jpeg_shrink(const ResizeArgs& a, int width, int height) {
  const ResizePlan p = plan_resize(a.size, a.mode, width, height, true);
  for (int k : {8, 4, 2})
    if ((width + k - 1) / k >= p.scaled_width && (height + k - 1) / k >= p.scaled_height) return k;
  return 1;
}

Operation bind_thumbnail(const OpValues& v, const PipelineOptions&) {
  ResizeArgs a;
  a.size = parse_resize_size(v.text, "thumbnail");
  if (a.size.percent > 0) throw Error(ErrorCategory::usage, "thumbnail: the size is a box, WxH (or W, xH), not a percentage");
  a.interp_given = true;
  a.interp = Interp::area;
  a.no_enlarge = true;
  Operation op = resize_operation("thumbnail", a);
  op.jpeg_shrink = [a](int width, int height) { return thumbnail_jpeg_shrink(a, width, height); };
  return op;
}

}  // namespace

const OpDecl kResizeOp{{"resize", nullptr, "scale to a size, a box or a percentage (cv::resize)", kResizeArgs, &resize_rungs},
                       &bind_resize};
const OpDecl kThumbnailOp{
    {"thumbnail", nullptr, "fit inside a box with area averaging; JPEGs decode reduced when the box allows (shrink-on-load)",
     kThumbnailArgs, &resize_rungs},
    &bind_thumbnail};

}  // namespace wk::image::detail
