#include <cstdio>

#include "wk/core/backend.hpp"
#include "wk/image/gray.hpp"
#include "wk/image/gray_formula.hpp"
#include "wk/version.hpp"

static_assert(WK_VERSION == WK_VERSION_MAJOR * 10000 + WK_VERSION_MINOR * 100 + WK_VERSION_PATCH);

int main() {
  unsigned char bgr[3] = {10, 200, 30};
  unsigned char y = 0;
  wk::image::gray_cpu({bgr, 1, 1, 3, 3}, {&y, 1, 1, 1, 1}, wk::image::ChannelOrder::bgr);
  const bool ok = y == wk::image::gray_pixel_bgr(10, 200, 30);
  std::printf("consumer: warpkit %s (%s) gray=%d backend probe: %s\n%s\n", WK_VERSION_STRING, WK_GIT_COMMIT, y,
              wk::probe_gpu().usable ? "gpu" : "cpu", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
