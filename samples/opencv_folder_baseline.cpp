// wk-opencv-baseline: the OpenCV peer of `wk-image gray,gauss:5,hist` over a folder, for
// tools/bench-image-folder.sh. N threads, each: read, cv::imdecode, cvtColor BGR2GRAY,
// GaussianBlur 5x5, calcHist (256 bins, written as CSV), imencode, write. With --thumbnail WxH,
// the peer of `wk-image thumbnail:WxH` instead: cv::imdecode at half size (IMREAD_REDUCED_COLOR_2,
// libjpeg's DCT scaling), cv::resize INTER_AREA to fit inside the box, imencode, write.
//
//   wk-opencv-baseline -o OUTDIR [--threads N] [--format jpg|png] [--quality Q] [--thumbnail WxH]
//                      [--decode-only | --encode-only] INPUTDIR
// --decode-only times read + decode alone (the decode bound); --encode-only first computes every
// blurred image (untimed, all held in memory), then times encode + write alone (the encode bound
// of the job's outputs, e.g. zlib's for PNG).
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  CLI::App app{"wk-opencv-baseline: OpenCV's gray + Gaussian 5x5 + histogram over a folder (benchmark peer)"};
  fs::path in, out;
  int threads = int(std::thread::hardware_concurrency());
  std::string format = "jpg";
  int quality = 90;
  bool decode_only = false, encode_only = false;
  std::string thumbnail;
  app.add_option("input", in, "Folder of images")->required()->check(CLI::ExistingDirectory);
  app.add_option("-o,--output", out, "Output folder")->required();
  app.add_option("--threads", threads, "Threads")->check(CLI::Range(1, 1024));
  app.add_option("--format", format, "Output format: jpg or png");
  app.add_option("--quality", quality, "JPEG quality")->check(CLI::Range(1, 100));
  app.add_option("--thumbnail", thumbnail, "Fit inside WxH from a half-size decode, INTER_AREA (no gray, blur or histogram)");
  auto* dec = app.add_flag("--decode-only", decode_only, "Only read and decode (the decode bound)");
  app.add_flag("--encode-only", encode_only, "Time only the encode and write of the job's results (the encode bound)")->excludes(dec);
  CLI11_PARSE(app, argc, argv);
  int box_w = 0, box_h = 0;
  if (!thumbnail.empty() && std::sscanf(thumbnail.c_str(), "%dx%d", &box_w, &box_h) != 2) {
    fmt::print(stderr, "--thumbnail: expected WxH, not '{}'\n", thumbnail);
    return 2;
  }

  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(in))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  fs::create_directories(out);
  cv::setNumThreads(1);
  std::atomic<std::size_t> next{0};
  std::atomic<int> failed{0};
  // PNG: OpenCV's defaults, as wk-image writes it (io::encode_image passes no PNG parameters).
  // Passing IMWRITE_PNG_COMPRESSION 1 + STRATEGY_RLE explicitly, as this peer did until
  // 2026-11-25, made its encode ~1.7x slower than the defaults on the H100 machine
  // (encode-only, 16 threads: 52.0 against 88.6 img/s).
  const std::vector<int> params = format == "png" ? std::vector<int>{} : std::vector<int>{cv::IMWRITE_JPEG_QUALITY, quality};
  // Each file's result: the blurred gray image and its histogram (computed before the clock
  // starts with --encode-only, inside the timed loop otherwise).
  auto compute = [&](std::size_t i, cv::Mat& blur, cv::Mat& hist) {
    std::ifstream f(files[i], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), {});
    const int flags = box_w ? cv::IMREAD_REDUCED_COLOR_2 : cv::IMREAD_COLOR;
    cv::Mat img = cv::imdecode(cv::Mat(1, int(bytes.size()), CV_8UC1, bytes.data()), flags);
    if (img.empty()) return false;
    if (decode_only) return true;
    if (box_w) {  // fit the full-size image's box, aspect kept, never enlarged
      const double scale = std::min({1.0, box_w / (2.0 * img.cols), box_h / (2.0 * img.rows)}) * 2;
      const cv::Size size(std::max(1, int(std::lround(img.cols * scale))), std::max(1, int(std::lround(img.rows * scale))));
      if (size == img.size()) blur = img;
      else cv::resize(img, blur, size, 0, 0, cv::INTER_AREA);
      return true;
    }
    cv::Mat gray;
    cv::cvtColor(img, gray, cv::COLOR_BGR2GRAY);
    cv::GaussianBlur(gray, blur, {5, 5}, 0);
    const int channels[] = {0}, sizes[] = {256};
    const float range[] = {0, 256};
    const float* ranges[] = {range};
    cv::calcHist(&blur, 1, channels, cv::Mat(), hist, 1, sizes, ranges);
    return true;
  };
  auto store = [&](std::size_t i, const cv::Mat& blur, const cv::Mat& hist) {
    std::vector<uchar> enc;
    cv::imencode("." + format, blur, enc, params);
    const fs::path stem = out / files[i].stem();
    std::ofstream(fs::path(stem).concat("." + format), std::ios::binary).write(reinterpret_cast<const char*>(enc.data()), std::streamsize(enc.size()));
    if (hist.empty()) return;
    std::ofstream csv(fs::path(stem).concat(".hist.csv"));
    csv << "bin,count\n";
    for (int b = 0; b < 256; ++b) csv << b << ',' << long(hist.at<float>(b)) << '\n';
  };
  std::vector<cv::Mat> blurs, hists;
  std::vector<char> ok;
  if (encode_only) {
    blurs.resize(files.size());
    hists.resize(files.size());
    ok.assign(files.size(), 0);
    std::vector<std::thread> pre;
    for (int t = 0; t < threads; ++t)
      pre.emplace_back([&] {
        for (std::size_t i; (i = next++) < files.size();) ok[i] = compute(i, blurs[i], hists[i]);
      });
    for (auto& t : pre) t.join();
    next = 0;
    for (char k : ok) failed += k ? 0 : 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next++) < files.size();) {
        if (encode_only) {
          if (ok[i]) store(i, blurs[i], hists[i]);
          continue;
        }
        cv::Mat blur, hist;
        if (!compute(i, blur, hist)) { ++failed; continue; }
        if (!decode_only) store(i, blur, hist);
      }
    });
  for (auto& t : pool) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("opencv-baseline: {} images ({} failed) in {:.2f} s = {:.1f} img/s, {} threads, {}{}\n", files.size(), int(failed), s,
             files.size() / s, threads, decode_only ? "decode only" : encode_only ? "encode only, " : "output ",
             decode_only ? "" : format);
  return failed ? 1 : 0;
}
