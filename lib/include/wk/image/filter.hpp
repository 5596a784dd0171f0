#pragma once
// What the convolution family (conv, gauss, box, sobel, laplacian, sharpen) shares: border
// modes, kernels (parsing, rank-1 factors), and the views of 16-bit and float images.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/hd.hpp"
#include "wk/core/image_view.hpp"

namespace wk::image {

using ImageViewS16 = ImageViewT<std::int16_t>;
using ConstImageViewS16 = ImageViewT<const std::int16_t>;
using ImageViewF32 = ImageViewT<float>;
using ConstImageViewF32 = ImageViewT<const float>;

// ---- Borders: how pixels outside the image are made up (OpenCV's names and meanings).
enum class BorderMode {
  replicate,   // aaaaaa|abcdefgh|hhhhhhh
  reflect,     // fedcba|abcdefgh|hgfedcb
  reflect101,  // gfedcb|abcdefgh|gfedcba   (OpenCV's default)
  constant,    // vvvvvv|abcdefgh|vvvvvvv
  wrap,        // cdefgh|abcdefgh|abcdefg   (no OpenCV filter supports it: see each _cpu path)
};

struct Border {
  BorderMode mode = BorderMode::reflect101;
  double value = 0;  // constant only; saturated to the image type as OpenCV's Scalar is
};

// "replicate" | "reflect" | "reflect101" | "constant" | "constant:V" | "wrap"; throws
// wk::Error{usage} naming the choices otherwise.
Border parse_border(std::string_view text);
std::string to_string(const Border& border);

// The pixel that stands for position p in a row of n pixels (n >= 1), exactly OpenCV's
// cv::borderInterpolate (any p, folding as often as needed); -1 for constant.
WK_HD int border_index(int p, int n, BorderMode mode) {
  if (static_cast<unsigned>(p) < static_cast<unsigned>(n)) return p;
  switch (mode) {
    case BorderMode::replicate: return p < 0 ? 0 : n - 1;
    case BorderMode::reflect:
    case BorderMode::reflect101: {
      if (n == 1) return 0;
      const int delta = mode == BorderMode::reflect101;
      do {
        p = p < 0 ? -p - 1 + delta : n - 1 - (p - n) - delta;
      } while (static_cast<unsigned>(p) >= static_cast<unsigned>(n));
      return p;
    }
    case BorderMode::wrap:
      if (p < 0) p -= ((p - n + 1) / n) * n;
      if (p >= n) p %= n;
      return p;
    case BorderMode::constant: return -1;
  }
  return -1;
}

// ---- Kernels.
inline constexpr int kMaxKernelSize = 31;

// A correlation kernel as cv::filter2D takes it: out(x, y) = sum over (i, j) of
// weights[i * width + j] * in(x + j - anchor_x, y + i - anchor_y), anchor = (width / 2, height / 2).
struct FilterKernel {
  int width = 0, height = 0;
  std::vector<float> weights;  // row-major, height * width
  int anchor_x() const { return width / 2; }
  int anchor_y() const { return height / 2; }
  float at(int y, int x) const { return weights[static_cast<std::size_t>(y) * width + x]; }
};

// Inline kernel "[a b c; d e f; g h i]": values separated by spaces (or commas), rows by ';'.
// `what` names the operation in messages. Throws wk::Error{usage} for an empty kernel, a
// non-numeric or non-finite weight, rows of different lengths or a side above 31.
FilterKernel parse_kernel_text(std::string_view text, std::string_view what);
// Kernel file: one row per line, values separated by spaces or commas, '#' starts a comment,
// blank lines ignored. Throws wk::Error{io} when unreadable, {usage} as parse_kernel_text with
// the file name and line number in the message.
FilterKernel load_kernel_file(const std::filesystem::path& path);

// Rank-1 factors: kernel(y, x) == column[y] * row[x] up to float rounding. The row factor is 1 at
// the largest weight's column, so it is never a "smooth" kernel with a fractional sum and
// cv::sepFilter2D stays on its float path (the GPU's arithmetic). nullopt for rank > 1 or an
// all-zero kernel.
struct SeparableKernel {
  std::vector<float> row, column;
};
std::optional<SeparableKernel> separate(const FilterKernel& kernel);

// Throws wk::Error{usage} "OP: the K1xK2 kernel is larger than the WxH image" when it is.
void check_kernel_fits(std::string_view op, int kernel_width, int kernel_height, int image_width, int image_height);

}  // namespace wk::image
