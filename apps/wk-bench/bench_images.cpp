#include "bench_images.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>

namespace wk::bench {

cv::Mat natural_photo_gray(int w, int h, unsigned seed) {
  cv::RNG rng(seed);
  cv::Mat img(h, w, CV_8UC1);
  const double top = rng.uniform(150, 230), bottom = rng.uniform(20, 90);
  for (int y = 0; y < h; ++y) img.row(y).setTo(cv::Scalar(top + (bottom - top) * (h > 1 ? double(y) / (h - 1) : 0.0)));
  const int scale = std::max(1, std::min(w, h));
  for (int i = 0; i < 40; ++i) {
    const cv::Scalar c(rng.uniform(0, 256));
    const cv::Point p(rng.uniform(0, w), rng.uniform(0, h));
    if (rng.uniform(0, 2))
      cv::circle(img, p, std::max(1, rng.uniform(scale / 40 + 1, scale / 6 + 2)), c, cv::FILLED, cv::LINE_AA);
    else
      cv::rectangle(img, p, p + cv::Point(rng.uniform(1, scale / 4 + 2), rng.uniform(1, scale / 4 + 2)), c, cv::FILLED);
  }
  cv::putText(img, "warpkit", {w / 10, h / 2}, cv::FONT_HERSHEY_SIMPLEX, std::max(0.3, scale / 300.0), cv::Scalar(255),
              std::max(1, scale / 200), cv::LINE_AA);
  cv::Mat noise(h, w, CV_16SC1), out;
  cv::randn(noise, cv::Scalar(0), cv::Scalar(8));
  img.convertTo(out, CV_16SC1);
  out += noise;
  out.convertTo(img, CV_8UC1);
  return img;
}

}  // namespace wk::bench
