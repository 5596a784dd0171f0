#pragma once
// RGB -> gray in OpenCV's fixed point, so GPU results are bit-identical to
// cv::cvtColor(src, dst, COLOR_BGR2GRAY) on 8-bit images:
//   Y = (B*3735 + G*19235 + R*9798 + 2^14) >> 15
// OpenCV 4.x's 8-bit RGB2Gray uses these 15-bit coefficients (BT.601 0.114, 0.587, 0.299 times
// 2^15, B rounded down so the three sum to exactly 2^15 and white stays 255). The 14-bit set
// (1868, 9617, 4899) that older OpenCV and its YCrCb code use differs on 43864 of the 2^24
// colours; tests/image/test_gray.cpp checks all 2^24 against cv::cvtColor.
#include <cstdint>

#include "wk/core/hd.hpp"

namespace wk::image {

inline constexpr int kGrayShift = 15;
inline constexpr int kGrayB = 3735;
inline constexpr int kGrayG = 19235;
inline constexpr int kGrayR = 9798;

// c0/c2: weights of the first and third channel in memory (BGR: B then R; RGB: R then B).
WK_HD std::uint8_t gray_pixel(unsigned c0, unsigned c1, unsigned c2, unsigned w0, unsigned w2) {
  return static_cast<std::uint8_t>((c0 * w0 + c1 * unsigned(kGrayG) + c2 * w2 + (1u << (kGrayShift - 1))) >> kGrayShift);
}

WK_HD std::uint8_t gray_pixel_bgr(unsigned b, unsigned g, unsigned r) { return gray_pixel(b, g, r, kGrayB, kGrayR); }

}  // namespace wk::image
