// wk-make-images: writes a folder of synthetic "photos" (gradients, shapes, texture, noise) for
// demos, tests and benchmarks, so the project needs to ship no image files.
//
//   wk-make-images -o DIR [--count N] [--size WxH] [--formats jpg,png] [--quality Q] [--seed S]
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <filesystem>
#include <sstream>

#include "wk/io/files.hpp"
#include "wk/io/image_codec.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;

namespace {

cv::Mat synth_photo(int w, int h, cv::RNG& rng) {
  cv::Mat img(h, w, CV_8UC3);
  // Sky-to-ground gradient with a random tint.
  const cv::Vec3f top(rng.uniform(120, 255), rng.uniform(80, 200), rng.uniform(20, 120));
  const cv::Vec3f bottom(rng.uniform(0, 90), rng.uniform(40, 160), rng.uniform(0, 120));
  for (int y = 0; y < h; ++y) {
    const float t = h > 1 ? float(y) / float(h - 1) : 0.f;
    const cv::Vec3f c = top * (1 - t) + bottom * t;
    img.row(y).setTo(cv::Scalar(c[0], c[1], c[2]));
  }
  // Shapes of random colours and sizes.
  const int shapes = 6 + rng.uniform(0, 10);
  const int scale = std::max(1, std::min(w, h));
  for (int i = 0; i < shapes; ++i) {
    const cv::Scalar col(rng.uniform(0, 256), rng.uniform(0, 256), rng.uniform(0, 256));
    const cv::Point c(rng.uniform(0, w), rng.uniform(0, h));
    if (rng.uniform(0, 2)) cv::circle(img, c, std::max(1, rng.uniform(scale / 20 + 1, scale / 4 + 2)), col, cv::FILLED, cv::LINE_AA);
    else cv::rectangle(img, c, c + cv::Point(rng.uniform(1, scale / 3 + 2), rng.uniform(1, scale / 3 + 2)), col, cv::FILLED);
  }
  cv::putText(img, "warpkit", {w / 10, h / 2}, cv::FONT_HERSHEY_SIMPLEX, std::max(0.3, scale / 300.0),
              cv::Scalar(255, 255, 255), std::max(1, scale / 200), cv::LINE_AA);
  // Sensor-like noise: textured, so codecs and filters do real work.
  cv::Mat noise(h, w, CV_16SC3);
  cv::randn(noise, cv::Scalar::all(0), cv::Scalar::all(8));
  cv::Mat out;
  img.convertTo(out, CV_16SC3);
  out += noise;
  out.convertTo(img, CV_8UC3);
  return img;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wk-make-images: write synthetic photos for demos, tests and benchmarks"};
  fs::path outdir;
  int count = 12, quality = 90;
  unsigned seed = 1;
  std::string size = "640x480", formats = "jpg,png";
  app.add_option("-o,--output", outdir, "Output folder")->required();
  app.add_option("--count", count, "Number of images")->default_val(12)->check(CLI::Range(1, 1000000));
  app.add_option("--size", size, "Image size WxH")->default_val("640x480");
  app.add_option("--formats", formats, "Comma-separated extensions, used in turn (jpg,png,bmp,ppm,...)")->default_val("jpg,png");
  app.add_option("--quality", quality, "JPEG quality")->default_val(90)->check(CLI::Range(1, 100));
  app.add_option("--seed", seed, "Random seed (same seed, same images)")->default_val(1);
  CLI11_PARSE(app, argc, argv);

  int w = 0, h = 0;
  char x = 0;
  std::istringstream ss(size);
  if (!(ss >> w >> x >> h) || (x != 'x' && x != 'X') || w < 1 || h < 1) {
    fmt::print(stderr, "wk-make-images: error: --size must look like 640x480\n");
    return 2;
  }
  std::vector<std::string> exts;
  std::stringstream fs_(formats);
  for (std::string e; std::getline(fs_, e, ',');)
    if (!e.empty()) exts.push_back(e);
  if (exts.empty()) {
    fmt::print(stderr, "wk-make-images: error: --formats is empty\n");
    return 2;
  }
  cv::RNG rng(seed);
  try {
    for (int i = 0; i < count; ++i) {
      const fs::path path = outdir / fmt::format("photo_{:04d}.{}", i, exts[i % exts.size()]);
      wk::io::write_output(path, wk::io::encode_image(synth_photo(w, h, rng), path, {quality}));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "wk-make-images: error: {}\n", e.what());
    return 1;
  }
  fmt::print("wk-make-images: wrote {} images of {}x{} to {}\n", count, w, h, outdir.string());
  return 0;
}
