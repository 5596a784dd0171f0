// The geometry operations: flip, rotate, transpose and crop. The output's size follows from the
// input's, so each binds through sized_operation.
#include <opencv2/core.hpp>

#include <functional>
#include <utility>

#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/image/geometry.hpp"

namespace wk::image::detail {

namespace {

using Size = std::pair<int, int>;  // width, height

Size same(int w, int h) { return {w, h}; }
Size swapped(int w, int h) { return {h, w}; }

constexpr OpArg kFlipArgs[] = {
    {"AXIS", ArgKind::choice, "h (left-right) or v (top-bottom)", nullptr, 0, 0, false, "h|v"},
};

Operation bind_flip(const OpValues& v, const PipelineOptions&) {
  const FlipAxis axis = v.choice == "h" ? FlipAxis::horizontal : FlipAxis::vertical;
  Operation op = sized_operation(
      "flip", same, [axis](ConstImageView in, ImageView out) { flip_cpu(in, out, axis); },
      [axis](ConstImageView in, ImageView out, cudaStream_t s) { flip(in, out, axis, s); });
  op.any_depth = [axis](cv::Mat& img) { cv::flip(img, img, axis == FlipAxis::horizontal ? 1 : 0); };
  return op;
}

constexpr OpArg kRotateArgs[] = {
    {"DEGREES", ArgKind::choice, "90, 180 or 270, clockwise", nullptr, 0, 0, false, "90|180|270"},
};

Operation bind_rotate(const OpValues& v, const PipelineOptions&) {
  const int degrees = std::stoi(v.choice);
  Operation op = sized_operation(
      "rotate", degrees == 180 ? same : swapped, [degrees](ConstImageView in, ImageView out) { rotate_cpu(in, out, degrees); },
      [degrees](ConstImageView in, ImageView out, cudaStream_t s) { rotate(in, out, degrees, s); });
  const int code = degrees == 90 ? cv::ROTATE_90_CLOCKWISE : degrees == 180 ? cv::ROTATE_180 : cv::ROTATE_90_COUNTERCLOCKWISE;
  op.any_depth = [code](cv::Mat& img) {
    cv::Mat out;
    cv::rotate(img, out, code);
    img = out;
  };
  return op;
}

Operation bind_transpose(const OpValues&, const PipelineOptions&) {
  Operation op = sized_operation(
      "transpose", swapped, [](ConstImageView in, ImageView out) { transpose_cpu(in, out); },
      [](ConstImageView in, ImageView out, cudaStream_t s) { transpose(in, out, s); });
  op.any_depth = [](cv::Mat& img) {
    cv::Mat out;
    cv::transpose(img, out);
    img = out;
  };
  return op;
}

constexpr OpArg kCropArgs[] = {
    {"REGION", ArgKind::text, "WxH+X+Y, or center:WxH (centred); inside the image"},
};

Operation bind_crop(const OpValues& v, const PipelineOptions&) {
  const CropRegion region = parse_crop(v.text);  // the syntax now; the fit per image
  auto placed = [region](int w, int h) { return place_crop(region, w, h); };
  Operation op = sized_operation(
      "crop", [placed](int w, int h) { const CropRegion r = placed(w, h); return Size{r.width, r.height}; },
      [placed](ConstImageView in, ImageView out) {
        const CropRegion r = placed(in.width, in.height);
        crop_cpu(in, out, r.x, r.y);
      },
      [placed](ConstImageView in, ImageView out, cudaStream_t s) {
        const CropRegion r = placed(in.width, in.height);
        crop(in, out, r.x, r.y, s);
      });
  op.any_depth = [placed](cv::Mat& img) {
    const CropRegion r = placed(img.cols, img.rows);
    img = img(cv::Rect(r.x, r.y, r.width, r.height)).clone();
  };
  return op;
}

}  // namespace

const OpDecl kFlipOp{{"flip", nullptr, "mirror the image (cv::flip)", kFlipArgs, &geometry_rungs}, &bind_flip};
const OpDecl kRotateOp{{"rotate", nullptr, "rotate by quarter turns, clockwise (cv::rotate)", kRotateArgs, &geometry_rungs},
                       &bind_rotate};
const OpDecl kTransposeOp{{"transpose", nullptr, "swap rows and columns (cv::transpose)", {}, &geometry_rungs}, &bind_transpose};
const OpDecl kCropOp{{"crop", nullptr, "cut a region out (its size and place, or centred)", kCropArgs, &geometry_rungs}, &bind_crop};

}  // namespace wk::image::detail
