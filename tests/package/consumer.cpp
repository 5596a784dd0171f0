#include <cstdio>

#include "wk/core/backend.hpp"
#include "wk/image/gray.hpp"
#include "wk/image/gray_formula.hpp"

int main() {
  unsigned char bgr[3] = {10, 200, 30};
  unsigned char y = 0;
  wk::image::gray_cpu({bgr, 1, 1, 3, 3}, {&y, 1, 1, 1, 1}, wk::image::ChannelOrder::bgr);
  const bool ok = y == wk::image::gray_pixel_bgr(10, 200, 30);
  std::printf("consumer: gray=%d backend probe: %s\n%s\n", y, wk::probe_gpu().usable ? "gpu" : "cpu", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
