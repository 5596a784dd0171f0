#pragma once
// The arithmetic of equalize, written once for host and device so CI (no GPU) tests exactly what
// the GPU runs:
//  - OpenCV's 8-bit BGR <-> YCrCb fixed point (14-bit coefficients, CV_DESCALE rounding), which
//    tests/image/test_equalize.cpp checks against cv::cvtColor for all 2^24 inputs each way;
//  - cv::equalizeHist's LUT rule: scale = 255.f / float(total - hist[first]) in float, and
//    lut[v] = saturate(cvRound(float(cumulative(v)) * scale)), round half to even.
#include <cstdint>

#include "wk/core/hd.hpp"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace wk::image {

inline constexpr int kYccShift = 14;
// BGR -> YCrCb (OpenCV's sRGB2YCrCbCoeffs_i): Y weights of B, G, R, then the Cr and Cb scales.
inline constexpr int kYccB = 1868, kYccG = 9617, kYccR = 4899, kYccCr = 11682, kYccCb = 9241;
// YCrCb -> BGR (OpenCV's sYCrCb2RGBCoeffs_i): R from Cr, G from Cr, G from Cb, B from Cb.
inline constexpr int kYccCr2R = 22987, kYccCr2G = -11698, kYccCb2G = -5636, kYccCb2B = 29049;

WK_HD int ycc_descale(int x) { return (x + (1 << (kYccShift - 1))) >> kYccShift; }  // arithmetic shift
WK_HD std::uint8_t ycc_saturate(int v) { return static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v); }

struct Ycc {
  std::uint8_t y, cr, cb;
};

WK_HD Ycc bgr_to_ycc(int b, int g, int r) {
  const int y = ycc_descale(b * kYccB + g * kYccG + r * kYccR);
  const int cr = ycc_descale((r - y) * kYccCr + (128 << kYccShift));
  const int cb = ycc_descale((b - y) * kYccCb + (128 << kYccShift));
  return {ycc_saturate(y), ycc_saturate(cr), ycc_saturate(cb)};
}

struct Bgr {
  std::uint8_t b, g, r;
};

WK_HD Bgr ycc_to_bgr(int y, int cr, int cb) {
  cr -= 128;
  cb -= 128;
  return {ycc_saturate(y + ycc_descale(cb * kYccCb2B)), ycc_saturate(y + ycc_descale(cb * kYccCb2G + cr * kYccCr2G)),
          ycc_saturate(y + ycc_descale(cr * kYccCr2R))};
}

// cv::equalizeHist's float scale for an image of `total` pixels whose first non-empty bin holds
// `first_count` of them (total > first_count).
WK_HD float equalize_scale(int total, int first_count) { return 255.f / static_cast<float>(total - first_count); }

// The LUT entry of a bin above the first non-empty one; `cumulative` sums the bins after the
// first one up to this one. cvRound on float rounds half to even, as __float2int_rn does.
WK_HD std::uint8_t equalize_lut_value(int cumulative, float scale) {
  const float x = static_cast<float>(cumulative) * scale;
#if defined(__CUDA_ARCH__)
  const int r = __float2int_rn(x);
#else
  const int r = static_cast<int>(std::lrintf(x));
#endif
  return static_cast<std::uint8_t>(r < 0 ? 0 : r > 255 ? 255 : r);
}

}  // namespace wk::image
