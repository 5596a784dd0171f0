#pragma once
// The sizes the resize tests run on (tests/image/test_resize.cpp on the host model,
// test_resize_gpu.cpp on the GPU): odd sizes, 1-pixel images, extreme ratios, integer shrinks,
// mixed shrink and enlarge, a copy, and fill windows.
#include <utility>
#include <vector>

#include "wk/image/resize.hpp"

namespace wk::test {

struct ResizeCase {
  int in_w, in_h;
  image::ResizePlan plan;
};

inline image::ResizePlan whole(int w, int h) { return {w, h, 0, 0, w, h}; }

inline std::vector<ResizeCase> resize_cases() {
  std::vector<ResizeCase> cases = {
      {37, 23, whole(11, 7)},    {37, 23, whole(101, 67)},  // odd sizes, shrink and enlarge
      {1, 1, whole(5, 3)},       {7, 1, whole(1, 1)},       // 1-pixel images
      {1000, 3, whole(2, 1)},    {2, 2, whole(500, 400)},   // extreme ratios
      {64, 48, whole(32, 24)},   {50, 30, whole(25, 15)},   // 2:1
      {99, 60, whole(33, 20)},   {96, 64, whole(32, 32)},   // 3:1, 3:1 x 2:1
      {40, 30, whole(20, 45)},   {30, 40, whole(45, 20)},   // shrink one side, enlarge the other
      {17, 9, whole(17, 9)},     {53, 41, whole(24, 19)},   // same size (a copy), a shrink by 2.2
  };
  // Fill windows: the centre of the scaled image.
  const image::ResizeSize box = image::parse_resize_size("30x30");
  for (const auto& [w, h] : {std::pair{61, 37}, std::pair{37, 61}, std::pair{100, 20}})
    cases.push_back({w, h, image::plan_resize(box, image::FitMode::fill, w, h)});
  return cases;
}

constexpr image::Interp kResizeInterps[] = {image::Interp::nearest, image::Interp::linear, image::Interp::cubic,
                                            image::Interp::area, image::Interp::lanczos};

}  // namespace wk::test
