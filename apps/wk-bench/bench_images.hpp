#pragma once
// Synthetic bench inputs, so benches need no image files.
#include <opencv2/core.hpp>

namespace wk::bench {

// A "natural photo" in 8-bit gray: sky-to-ground gradient, filled shapes, text and sensor-like
// noise (sigma 8), deterministic for a seed. Smooth regions with texture, like a real photo's
// histogram and local statistics.
cv::Mat natural_photo_gray(int width, int height, unsigned seed = 1);


}  // namespace wk::bench
