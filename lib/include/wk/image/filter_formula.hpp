#pragma once
// The convolution family's integer rounding rules, written once for host and device: the GPU
// epilogues use them, and tests/image/test_box.cpp / test_gauss.cpp check them against OpenCV
// on CI (no GPU).
#include <cmath>

#include "wk/core/hd.hpp"

namespace wk::image {

// cv::blur on 8-bit images with K * K <= 256 sums in 16 bits and divides by multiplying with a
// 23-bit reciprocal (box_filter.simd.hpp, ColumnSum<ushort, uchar>): out = ((sum + add) * mul) >> 23,
// with OpenCV's choice of mul (2^23 / area rounded) and add (area / 2, plus 1 when mul was
// rounded down).
struct BoxDivision {
  unsigned add = 0, mul = 0;
};

inline BoxDivision box_division(int area) {
  double scalef = double(1 << 23) / area;
  unsigned mul = static_cast<unsigned>(std::floor(scalef));
  scalef -= mul;
  unsigned add = static_cast<unsigned>(area / 2);
  if (scalef < 0.5) ++add;
  else ++mul;
  return {add, mul};
}

WK_HD unsigned box_divide(unsigned sum, BoxDivision d) {
  return static_cast<unsigned>((static_cast<unsigned long long>(sum + d.add) * d.mul) >> 23);
}

// cv::GaussianBlur on 8-bit images (its bit-exact path): the kernels are integers with 8 fraction
// bits summing to 256, the row pass is exact in 16 bits, the column pass exact in 32 bits, and
// out = (v + 2^15) >> 16 (ufixedpoint32 -> uint8, round half up).
WK_HD unsigned gauss_fixed_round(unsigned v) { return (v + (1u << 15)) >> 16; }

}  // namespace wk::image
