#pragma once
// The arithmetic of resize, written once for host and device (WK_HD): which source pixels an
// output coordinate reads, with which weights, and how one output pixel is formed from them. The
// GPU kernels (resize.cu) call these functions; tests/image/test_resize.cpp runs the very same
// functions on the host over whole images and compares them with cv::resize, so the tolerance
// contract is proved without a GPU.
//
// The model follows OpenCV's cv::resize for 8-bit images step by step:
// - nearest: sx = min(floor(dx * ifx), sw - 1), ifx = 1 / (dw / sw), in double.
// - linear, cubic, lanczos (and area when enlarging): centre-aligned source coordinate
//   fx = (float)((dx + 0.5) * scale - 0.5) (area: OpenCV's own rule, below), taps from OpenCV's
//   coefficient formulas in float, quantized to 11 fractional bits (short); a horizontal integer
//   sum per tap row, a vertical integer sum, then (v + 2^21) >> 22 saturated. Source indices are
//   clamped (replicated border). In x, linear and area also move taps left of or right of the
//   image onto the edge pixel with weight 1, as OpenCV does.
// - area, integer ratios (OpenCV's "area fast"): the integer sum of the kx * ky box, then
//   (sum + 2) >> 2 for 2 x 2 and rint(sum * (1.f / area)) otherwise. cv::resize also takes this
//   path for linear at exactly 2:1 in both axes.
// - area, other shrinks: OpenCV's fractional-coverage weights (computeResizeAreaTab), summed in
//   float in OpenCV's order, rounded half to even.
// - same size in both axes: a copy (cv::resize copies; nearest at scale 1 is the identity).
// Float and double operations go through fmul/fadd/... so that nvcc cannot fuse them into FMAs:
// the device then rounds exactly as the host does.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "wk/core/hd.hpp"

namespace wk::image::resize_math {

constexpr int kCoefBits = 11;
constexpr int kCoefScale = 1 << kCoefBits;  // OpenCV's INTER_RESIZE_COEF_SCALE
constexpr int kMaxTaps = 8;

// ---- IEEE operations, rounded to nearest, never contracted (nvcc would fuse a * b + c into an
// FMA, which rounds once where the host rounds twice).
#if defined(__CUDA_ARCH__)
#define WK_RESIZE_IEEE_OP(name, T, op, intrinsic) \
  WK_HD T name(T a, T b) { return intrinsic(a, b); }
#else
#define WK_RESIZE_IEEE_OP(name, T, op, intrinsic) \
  WK_HD T name(T a, T b) { return a op b; }
#endif
WK_RESIZE_IEEE_OP(fmul, float, *, __fmul_rn)
WK_RESIZE_IEEE_OP(fadd, float, +, __fadd_rn)
WK_RESIZE_IEEE_OP(fsub, float, -, __fsub_rn)
WK_RESIZE_IEEE_OP(fdiv, float, /, __fdiv_rn)
WK_RESIZE_IEEE_OP(dmul, double, *, __dmul_rn)
WK_RESIZE_IEEE_OP(dadd, double, +, __dadd_rn)
WK_RESIZE_IEEE_OP(dsub, double, -, __dsub_rn)
WK_RESIZE_IEEE_OP(ddiv, double, /, __ddiv_rn)
#undef WK_RESIZE_IEEE_OP

// cvRound: to nearest, ties to even.
WK_HD int round_even(float v) {
#if defined(__CUDA_ARCH__)
  return __float2int_rn(v);
#else
  return static_cast<int>(std::nearbyint(v));
#endif
}
WK_HD int round_even(double v) {
#if defined(__CUDA_ARCH__)
  return __double2int_rn(v);
#else
  return static_cast<int>(std::nearbyint(v));
#endif
}
WK_HD int floor_int(float v) { return static_cast<int>(floorf(v)); }
WK_HD int floor_int(double v) { return static_cast<int>(floor(v)); }
WK_HD int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
WK_HD std::uint8_t sat_u8(int v) { return static_cast<std::uint8_t>(clamp_int(v, 0, 255)); }
WK_HD short sat_s16(float v) { return static_cast<short>(clamp_int(round_even(v), -32768, 32767)); }

// ---- What a call computes, decided once on the host (make_params).
enum class Mode : int {
  nearest,    // one source pixel (also the same-size copy)
  area_fast,  // integer ratio box mean
  area,       // fractional coverage (shrinking)
  taps2,      // linear, or area when enlarging: 2 x 2 fixed-point taps
  taps4,      // cubic: 4 x 4
  taps8,      // lanczos: 8 x 8
};

enum class Kernel : int { linear, cubic, lanczos };  // the tap formula of the taps modes

struct Axis {
  int in = 1, out = 1;     // source side, scaled side
  double inv_scale = 1;    // out / in (OpenCV's inv_scale)
  double scale = 1;        // 1 / inv_scale (OpenCV's scale)
  int iscale = 1;          // rounded scale (area_fast)
};

struct Params {
  Mode mode = Mode::nearest;
  Kernel kernel = Kernel::linear;
  bool area_mode = false;  // taps2 with OpenCV's area-enlarging coordinate rule
  Axis x, y;
  int win_x = 0, win_y = 0;  // the window's corner in the scaled image
};

// One output coordinate's source pixels and weights (one axis).
//   nearest:    first
//   area_fast:  first .. first + count - 1, unit weights
//   area:       first .. first + count - 1: weight w_lead for the first when `lead`, w_tail for
//               the last when `tail`, w_mid otherwise
//   taps:       first + k for k < K (clamped when read), weights c[k] (11-bit fixed point)
struct Coord {
  int first = 0;
  int count = 1;
  float w_lead = 0, w_mid = 0, w_tail = 0;
  int lead = 0, tail = 0;
  short c[kMaxTaps] = {};
};

WK_HD int taps_of(Mode m) { return m == Mode::taps2 ? 2 : m == Mode::taps4 ? 4 : m == Mode::taps8 ? 8 : 0; }

// OpenCV's cubic weights, A = -0.75.
WK_HD void cubic_weights(float x, float* w) {
  const float A = -0.75f;
  const float x1 = fadd(x, 1.f);
  w[0] = fsub(fmul(fadd(fmul(fsub(fmul(A, x1), 5 * A), x1), 8 * A), x1), 4 * A);
  w[1] = fadd(fmul(fmul(fsub(fmul(A + 2, x), A + 3), x), x), 1.f);
  const float y = fsub(1.f, x);
  w[2] = fadd(fmul(fmul(fsub(fmul(A + 2, y), A + 3), y), y), 1.f);
  w[3] = fsub(fsub(fsub(1.f, w[0]), w[1]), w[2]);
}

// OpenCV's Lanczos-4 weights, normalized to sum 1 in float.
WK_HD void lanczos_weights(float x, float* w) {
  constexpr double kPi = 3.1415926535897932384626433832795;
  constexpr double s45 = 0.70710678118654752440084436210485;
  // The (sin, cos) factors of tap i: {1, 0}, {-s45, -s45}, {0, 1}, {s45, -s45}, {-1, 0}, {s45, s45},
  // {0, -1}, {-s45, s45}, as selects so that the unrolled loop keeps them in registers.
  auto cs = [](int i, int j) -> double {
    const int k = 2 * i + j;
    return k == 0 ? 1.0 : k == 1 ? 0.0 : k == 2 || k == 3 ? -s45 : k == 4 ? 0.0 : k == 5 ? 1.0 : k == 6 ? s45 : k == 7 ? -s45
         : k == 8 ? -1.0 : k == 9 ? 0.0 : k == 10 || k == 11 ? s45 : k == 12 ? 0.0 : k == 13 ? -1.0 : k == 14 ? -s45 : s45;
  };
  const float x3 = fadd(x, 3.f);
  const double y0 = dmul(dmul(-static_cast<double>(x3), kPi), 0.25);
  const double s0 = sin(y0), c0 = cos(y0);
  float sum = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float yi = fsub(x3, static_cast<float>(i));
    if (fabsf(yi) >= 1e-6f) {
      const double y = dmul(dmul(-static_cast<double>(yi), kPi), 0.25);
      w[i] = static_cast<float>(ddiv(dadd(dmul(cs(i, 0), s0), dmul(cs(i, 1), c0)), dmul(y, y)));
    } else {
      w[i] = 1e30f;
    }
    sum = fadd(sum, w[i]);
  }
  sum = fdiv(1.f, sum);
  for (int i = 0; i < 8; ++i) w[i] = fmul(w[i], sum);
}

// The taps of scaled coordinate d on one axis. `is_x`: OpenCV moves linear/area taps outside
// the image onto the edge in x only (in y the clamped row indices give the same pixels).
WK_HD Coord taps_coord(const Params& p, const Axis& a, int d, bool is_x) {
  Coord c;
  const int K = taps_of(p.mode);
  int s;
  float f;
  if (!p.area_mode) {
    f = static_cast<float>(dsub(dmul(d + 0.5, a.scale), 0.5));
    s = floor_int(f);
    f = fsub(f, static_cast<float>(s));
  } else {
    s = floor_int(dmul(static_cast<double>(d), a.scale));
    f = static_cast<float>(dsub(static_cast<double>(d + 1), dmul(static_cast<double>(s + 1), a.inv_scale)));
    f = f <= 0 ? 0.f : fsub(f, floorf(f));
  }
  if (is_x && p.kernel == Kernel::linear) {
    if (s < 0) f = 0, s = 0;
    if (s >= a.in - 1) f = 0, s = a.in - 1;
  }
  float w[kMaxTaps];
  if (p.kernel == Kernel::cubic)
    cubic_weights(f, w);
  else if (p.kernel == Kernel::lanczos)
    lanczos_weights(f, w);
  else
    w[0] = fsub(1.f, f), w[1] = f;
  for (int k = 0; k < K; ++k) c.c[k] = sat_s16(fmul(w[k], static_cast<float>(kCoefScale)));
  c.first = s - K / 2 + 1;
  c.count = K;
  return c;
}

// OpenCV's area coverage of scaled coordinate d (computeResizeAreaTab), scale >= 1.
WK_HD Coord area_coord(const Axis& a, int d) {
  Coord c;
  const double fs1 = dmul(static_cast<double>(d), a.scale);
  const double fs2 = dadd(fs1, a.scale);
  const double rest = dsub(static_cast<double>(a.in), fs1);
  const double cell = a.scale < rest ? a.scale : rest;
  int s1 = static_cast<int>(ceil(fs1)), s2 = floor_int(fs2);
  s2 = s2 < a.in - 1 ? s2 : a.in - 1;
  s1 = s1 < s2 ? s1 : s2;
  c.lead = dsub(static_cast<double>(s1), fs1) > 1e-3;
  c.tail = dsub(fs2, static_cast<double>(s2)) > 1e-3;
  c.w_lead = static_cast<float>(ddiv(dsub(static_cast<double>(s1), fs1), cell));
  c.w_mid = static_cast<float>(ddiv(1.0, cell));
  double t = dsub(fs2, static_cast<double>(s2));
  t = t < 1.0 ? t : 1.0;
  t = t < cell ? t : cell;
  c.w_tail = static_cast<float>(ddiv(t, cell));
  c.first = c.lead ? s1 - 1 : s1;
  c.count = c.lead + (s2 - s1) + c.tail;
  return c;
}

// The coordinate of output pixel `o` (window coordinates) on one axis.
WK_HD Coord make_coord(const Params& p, bool is_x, int o) {
  const Axis& a = is_x ? p.x : p.y;
  const int d = o + (is_x ? p.win_x : p.win_y);
  Coord c;
  switch (p.mode) {
    case Mode::nearest: {
      if (a.in == a.out) {
        c.first = d;
      } else {
        const int s = floor_int(dmul(static_cast<double>(d), a.scale));
        c.first = s < a.in - 1 ? s : a.in - 1;
      }
      return c;
    }
    case Mode::area_fast:
      c.first = d * a.iscale;
      c.count = a.iscale;
      return c;
    case Mode::area: return area_coord(a, d);
    default: return taps_coord(p, a, d, is_x);
  }
}

WK_HD std::uint8_t load_u8(const std::uint8_t* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// ---- The fixed-point taps (linear, cubic, lanczos, area enlarging) in OpenCV's two steps. An
// output pixel is taps_store of the sum, over its K tap rows j, of taps_vertical_add(cy.c[j], h_j),
// where h_j is taps_horizontal of source row clamp(cy.first + j). pixel() below runs the steps
// per pixel; the separable kernel runs taps_horizontal once per (tile row, column) into shared
// memory and the vertical steps from there: the same integers either way.

// Horizontal step from the K x CN tap bytes: h[ch] = sum over k of byte(k * CN + ch) * cx.c[k],
// where byte(i) returns byte i of the taps' pixels in tap order (the clamped source pixels).
template <int CN, int K, class Bytes>
WK_HD void taps_horizontal_bytes(const Coord& cx, const Bytes& byte, int* h) {
#pragma unroll
  for (int ch = 0; ch < CN; ++ch) h[ch] = 0;
#pragma unroll
  for (int k = 0; k < K; ++k)
#pragma unroll
    for (int ch = 0; ch < CN; ++ch) h[ch] += static_cast<int>(byte(k * CN + ch)) * cx.c[k];
}

// Horizontal step: h[ch] = sum over k of row[clamp(cx.first + k)] * cx.c[k]. row: one source row;
// last_x: the last source column.
template <int CN, int K>
WK_HD void taps_horizontal(const Coord& cx, const std::uint8_t* row, int last_x, int* h) {
  taps_horizontal_bytes<CN, K>(cx, [&](int i) {
    return load_u8(row + static_cast<std::size_t>(clamp_int(cx.first + i / CN, 0, last_x)) * CN + i % CN);
  }, h);
}

// Vertical step, one tap row: acc[ch] += c * h[ch].
template <int CN>
WK_HD void taps_vertical_add(short c, const int* h, int* acc) {
#pragma unroll
  for (int ch = 0; ch < CN; ++ch) acc[ch] += c * h[ch];
}

// The vertical sum to 8 bits: (acc + 2^21) >> 22, saturated.
template <int CN>
WK_HD void taps_store(const int* acc, std::uint8_t* out) {
  constexpr int kShift = 2 * kCoefBits;
#pragma unroll
  for (int ch = 0; ch < CN; ++ch) out[ch] = sat_u8((acc[ch] + (1 << (kShift - 1))) >> kShift);
}

// The source rows a tile of `rows` consecutive output rows may read in the taps modes, counted
// from the first tap row of its first output row (clamped indices aside): an upper bound over
// every tile of the call. The first tap row is floor of a coordinate that grows by scale per
// output row, rounded to float (taps) or computed in double (area enlarging); 2 covers the floor
// and the float rounding, K the taps of the last row.
inline int taps_row_span_bound(const Params& p, int rows) {
  return static_cast<int>(std::floor((rows - 1) * p.y.scale)) + 2 + taps_of(p.mode);
}

// One output pixel (CN channels) from its two coordinates. src: the whole source image.
template <int CN, Mode M>
WK_HD void pixel(const Params& p, const Coord& cx, const Coord& cy, const std::uint8_t* src, std::size_t pitch, std::uint8_t* out) {
  if constexpr (M == Mode::nearest) {
    const std::uint8_t* q = src + static_cast<std::size_t>(cy.first) * pitch + static_cast<std::size_t>(cx.first) * CN;
#pragma unroll
    for (int ch = 0; ch < CN; ++ch) out[ch] = load_u8(q + ch);
  } else if constexpr (M == Mode::area_fast) {
    int sum[CN] = {};
    for (int j = 0; j < cy.count; ++j) {
      const std::uint8_t* r = src + static_cast<std::size_t>(cy.first + j) * pitch + static_cast<std::size_t>(cx.first) * CN;
      for (int i = 0; i < cx.count * CN; i += CN)
#pragma unroll
        for (int ch = 0; ch < CN; ++ch) sum[ch] += load_u8(r + i + ch);
    }
    const int area = cx.count * cy.count;
    if (cx.count == 2 && cy.count == 2) {
#pragma unroll
      for (int ch = 0; ch < CN; ++ch) out[ch] = static_cast<std::uint8_t>((sum[ch] + 2) >> 2);
    } else {
      const float scale = fdiv(1.f, static_cast<float>(area));
#pragma unroll
      for (int ch = 0; ch < CN; ++ch) out[ch] = sat_u8(round_even(fmul(static_cast<float>(sum[ch]), scale)));
    }
  } else if constexpr (M == Mode::area) {
    float sum[CN] = {};
    for (int j = 0; j < cy.count; ++j) {
      const float beta = (j == 0 && cy.lead) ? cy.w_lead : (j == cy.count - 1 && cy.tail) ? cy.w_tail : cy.w_mid;
      const std::uint8_t* r = src + static_cast<std::size_t>(cy.first + j) * pitch + static_cast<std::size_t>(cx.first) * CN;
      float buf[CN] = {};
      for (int i = 0; i < cx.count; ++i) {
        const float alpha = (i == 0 && cx.lead) ? cx.w_lead : (i == cx.count - 1 && cx.tail) ? cx.w_tail : cx.w_mid;
#pragma unroll
        for (int ch = 0; ch < CN; ++ch) buf[ch] = fadd(buf[ch], fmul(static_cast<float>(load_u8(r + i * CN + ch)), alpha));
      }
#pragma unroll
      for (int ch = 0; ch < CN; ++ch) sum[ch] = j == 0 ? fmul(beta, buf[ch]) : fadd(sum[ch], fmul(beta, buf[ch]));
    }
#pragma unroll
    for (int ch = 0; ch < CN; ++ch) out[ch] = sat_u8(round_even(sum[ch]));
  } else {
    constexpr int K = M == Mode::taps2 ? 2 : M == Mode::taps4 ? 4 : 8;
    const int last_y = p.y.in - 1;
    int acc[CN] = {};
#pragma unroll
    for (int j = 0; j < K; ++j) {
      int h[CN];
      taps_horizontal<CN, K>(cx, src + static_cast<std::size_t>(clamp_int(cy.first + j, 0, last_y)) * pitch, p.x.in - 1, h);
      taps_vertical_add<CN>(cy.c[j], h, acc);
    }
    taps_store<CN>(acc, out);
  }
}

// ---- Host side: the call's parameters, OpenCV's choice of path included.
struct PlanWindow {
  int scaled_width, scaled_height, x, y;
};

enum class Interpolation : int { nearest, linear, cubic, area, lanczos };  // wk::image::Interp's order

inline Axis make_axis(int in, int out) {
  Axis a;
  a.in = in;
  a.out = out;
  a.inv_scale = static_cast<double>(out) / in;
  a.scale = 1. / a.inv_scale;
  a.iscale = static_cast<int>(std::nearbyint(a.scale));
  return a;
}

inline Params make_params(int in_w, int in_h, const PlanWindow& w, Interpolation interp) {
  Params p;
  p.x = make_axis(in_w, w.scaled_width);
  p.y = make_axis(in_h, w.scaled_height);
  p.win_x = w.x;
  p.win_y = w.y;
  if ((in_w == w.scaled_width && in_h == w.scaled_height) || interp == Interpolation::nearest) {
    p.mode = Mode::nearest;
    return p;
  }
  constexpr double kEps = 2.220446049250313e-16;  // DBL_EPSILON
  const bool area_fast = std::fabs(p.x.scale - p.x.iscale) < kEps && std::fabs(p.y.scale - p.y.iscale) < kEps;
  if (interp == Interpolation::linear && area_fast && p.x.iscale == 2 && p.y.iscale == 2) interp = Interpolation::area;
  if (interp == Interpolation::area && p.x.scale >= 1 && p.y.scale >= 1) {
    p.mode = area_fast ? Mode::area_fast : Mode::area;
    return p;
  }
  switch (interp) {
    case Interpolation::cubic: p.mode = Mode::taps4, p.kernel = Kernel::cubic; break;
    case Interpolation::lanczos: p.mode = Mode::taps8, p.kernel = Kernel::lanczos; break;
    default: p.mode = Mode::taps2, p.kernel = Kernel::linear, p.area_mode = interp == Interpolation::area; break;
  }
  return p;
}

// The whole window on the host, through the same functions as the GPU kernels (tests).
template <int CN>
void run_host_cn(const Params& p, const std::uint8_t* src, std::size_t src_pitch, std::uint8_t* dst, std::size_t dst_pitch, int width,
                 int height) {
  auto row = [&](auto mode, const Coord& cy, std::uint8_t* out_row) {
    for (int x = 0; x < width; ++x) {
      const Coord cx = make_coord(p, true, x);
      pixel<CN, decltype(mode)::value>(p, cx, cy, src, src_pitch, out_row + static_cast<std::size_t>(x) * CN);
    }
  };
  for (int y = 0; y < height; ++y) {
    const Coord cy = make_coord(p, false, y);
    std::uint8_t* out_row = dst + static_cast<std::size_t>(y) * dst_pitch;
    switch (p.mode) {
      case Mode::nearest: row(std::integral_constant<Mode, Mode::nearest>{}, cy, out_row); break;
      case Mode::area_fast: row(std::integral_constant<Mode, Mode::area_fast>{}, cy, out_row); break;
      case Mode::area: row(std::integral_constant<Mode, Mode::area>{}, cy, out_row); break;
      case Mode::taps2: row(std::integral_constant<Mode, Mode::taps2>{}, cy, out_row); break;
      case Mode::taps4: row(std::integral_constant<Mode, Mode::taps4>{}, cy, out_row); break;
      case Mode::taps8: row(std::integral_constant<Mode, Mode::taps8>{}, cy, out_row); break;
    }
  }
}

inline void run_host(const Params& p, int channels, const std::uint8_t* src, std::size_t src_pitch, std::uint8_t* dst,
                     std::size_t dst_pitch, int width, int height) {
  switch (channels) {
    case 1: run_host_cn<1>(p, src, src_pitch, dst, dst_pitch, width, height); break;
    case 3: run_host_cn<3>(p, src, src_pitch, dst, dst_pitch, width, height); break;
    default: run_host_cn<4>(p, src, src_pitch, dst, dst_pitch, width, height); break;
  }
}

}  // namespace wk::image::resize_math
