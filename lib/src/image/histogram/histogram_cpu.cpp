// histogram on the CPU: cv::calcHist is the reference and the fallback. Also the side outputs
// (CSV table, PNG bar chart) that wk-image writes next to each image.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <string>

#include "wk/core/error.hpp"
#include "wk/image/histogram.hpp"

namespace wk::image {

void check_histogram_view(ConstImageView src) {
  if (src.channels != 1 && src.channels != 3 && src.channels != 4)
    throw Error(ErrorCategory::usage, "histogram: input must have 1, 3 or 4 channels, not " + std::to_string(src.channels));
  if (src.width < 0 || src.height < 0) throw Error(ErrorCategory::usage, "histogram: negative image size");
  if (!src.empty() && src.pitch_bytes < src.row_bytes()) throw Error(ErrorCategory::usage, "histogram: pitch smaller than a row");
}

void histogram_cpu(ConstImageView src, std::span<std::uint32_t> hist) {
  check_histogram_view(src);
  const int cn = src.channels;
  if (hist.size() < std::size_t(kHistogramBins) * cn)
    throw Error(ErrorCategory::usage, "histogram: output holds fewer than channels * 256 counts");
  std::fill(hist.begin(), hist.end(), 0u);
  if (src.empty()) return;
  const cv::Mat in(src.height, src.width, CV_8UC(cn), const_cast<std::uint8_t*>(src.data), src.pitch_bytes);
  // cv::calcHist counts in integers but returns float bins, exact up to 2^24: count bands of at
  // most 2^24 pixels and add them up, so every total is exact.
  const int band_rows = std::max(1, (1 << 24) / std::max(1, src.width));
  const int hist_size = kHistogramBins;
  const float range[] = {0.f, 256.f};
  const float* ranges[] = {range};
  for (int y0 = 0; y0 < src.height; y0 += band_rows) {
    const cv::Mat band = in.rowRange(y0, std::min(src.height, y0 + band_rows));
    for (int c = 0; c < cn; ++c) {
      cv::Mat h;
      cv::calcHist(&band, 1, &c, cv::Mat(), h, 1, &hist_size, ranges, true, false);
      for (int b = 0; b < kHistogramBins; ++b) hist[std::size_t(c) * kHistogramBins + b] += static_cast<std::uint32_t>(h.at<float>(b));
    }
  }
}

std::string histogram_csv(std::span<const std::uint32_t> hist, int channels) {
  static const char* const kHeaders[] = {"", "bin,count\n", "", "bin,b,g,r\n", "bin,b,g,r,a\n"};
  if (channels != 1 && channels != 3 && channels != 4)
    throw Error(ErrorCategory::usage, "histogram: 1, 3 or 4 channels, not " + std::to_string(channels));
  std::string out = kHeaders[channels];
  out.reserve(out.size() + 256 * 12 * channels);
  for (int b = 0; b < kHistogramBins; ++b) {
    out += std::to_string(b);
    for (int c = 0; c < channels; ++c) {
      out += ',';
      out += std::to_string(hist[std::size_t(c) * kHistogramBins + b]);
    }
    out += '\n';
  }
  return out;
}

std::vector<std::uint8_t> histogram_plot_png(std::span<const std::uint32_t> hist, int channels) {
  // One panel per channel, 2 px per bin, bars scaled to the panel's tallest bin.
  constexpr int kPanelH = 160, kMargin = 10, kBinW = 2;
  const int width = kHistogramBins * kBinW + 2 * kMargin;
  const int height = channels * (kPanelH + kMargin) + kMargin;
  cv::Mat canvas(height, width, CV_8UC3, cv::Scalar(255, 255, 255));
  const cv::Scalar colours[] = {cv::Scalar(200, 60, 40), cv::Scalar(40, 160, 40), cv::Scalar(40, 40, 200), cv::Scalar(90, 90, 90)};
  for (int c = 0; c < channels; ++c) {
    const std::uint32_t* h = hist.data() + std::size_t(c) * kHistogramBins;
    const std::uint32_t peak = std::max<std::uint32_t>(1, *std::max_element(h, h + kHistogramBins));
    const int bottom = kMargin + (c + 1) * (kPanelH + kMargin) - kMargin;
    const cv::Scalar colour = channels == 1 ? cv::Scalar(60, 60, 60) : colours[c];
    cv::rectangle(canvas, cv::Point(kMargin - 1, bottom - kPanelH - 1), cv::Point(width - kMargin, bottom + 1),
                  cv::Scalar(200, 200, 200), 1);
    for (int b = 0; b < kHistogramBins; ++b) {
      const int bar = static_cast<int>(double(h[b]) / peak * kPanelH + 0.5);
      if (bar > 0)
        cv::rectangle(canvas, cv::Point(kMargin + b * kBinW, bottom - bar), cv::Point(kMargin + b * kBinW + kBinW - 1, bottom - 1),
                      colour, cv::FILLED);
    }
  }
  std::vector<std::uint8_t> png;
  if (!cv::imencode(".png", canvas, png)) throw Error(ErrorCategory::internal, "histogram: PNG encoding of the plot failed");
  return png;
}

}  // namespace wk::image
