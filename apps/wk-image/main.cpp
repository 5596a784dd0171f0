// wk-image: run an operation pipeline (gray, ...) over image files and folders.
// Argument parsing, printing and exit codes only; the work is in the warpkit library.
#include <fmt/core.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "app_common.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/files.hpp"
#include "wk/io/image_codec.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {

constexpr const char* kProg = "wk-image";

constexpr const char* kFooter = R"(Examples:
  wk-image gray -o gray/ photos/              convert every image below photos/ to gray
  wk-image gray,gauss:5,equalize -o out/ photos/   a chain: intermediates stay on the GPU
  wk-image hist --plot -o out/ a.png          out/a.png plus out/a.hist.csv and out/a.hist.png
  wk-image 'conv:[0 -1 0; -1 5 -1; 0 -1 0]' --border replicate -o out/ photos/
  wk-image gray -o out/ a.jpg b.png --device cpu
  wk-image gray -o out/ photos/ --quality 90  JPEG outputs at quality 90

Files:
  Folders are searched recursively for images by extension (jpg jpeg jpe png bmp dib tif tiff
  webp pbm pgm ppm pnm pxm pfm sr ras hdr pic exr jp2, any case); a file named directly is read
  whatever its extension. Outputs mirror each input's path below its root in OUTDIR, with the
  same name and format.
  Decoding is cv::imread(IMREAD_COLOR) except that 1-channel images stay 1-channel: 8-bit,
  EXIF orientation applied, alpha dropped. Lossless outputs (PNG, BMP, PNM, TIFF, WebP lossless)
  are bit-identical to OpenCV's result (a gray .ppm holds the gray value in all three
  channels, since PPM is colour-only); JPEG outputs use quality 95 unless --quality says
  otherwise.
  An existing output is replaced atomically (temporary file in the same folder, then rename);
  an output that would overwrite its own input is refused.
  Bad inputs (truncated JPEG without end-of-image marker, empty file, non-image, unreadable
  file) are reported with the file name and reason; every other file is still processed and
  nothing half-written is left behind.

Exit status: 0 all inputs succeeded, 1 some failed, 2 usage error.)";

std::string with_path(const fs::path& path, const std::string& what) {
  const std::string p = path.string();
  return what.rfind(p, 0) == 0 ? what : p + ": " + what;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wk-image: run an operation pipeline over image files and folders, on the GPU or the CPU"};
  std::string pipeline_text, device, border_text = "reflect101";
  bool plot = false;
  std::vector<std::string> inputs;
  fs::path outdir;
  int quality = 95;
  bool quiet = false;
  app.add_option("pipeline", pipeline_text, "Operations, comma-separated, run in order (see Operations below)")->required();
  app.add_option("inputs", inputs, "Image files and folders")->required();
  app.add_option("-o,--output", outdir, "Output folder (created if missing)")->required();
  wk::app::add_device_option(app, device);
  app.add_option("--quality", quality, "JPEG quality of .jpg outputs")->default_val(95)->check(CLI::Range(1, 100));
  app.add_flag("-q,--quiet", quiet, "No progress bar, notices or summary");
  app.add_option("--border", border_text, "Border of the convolution family: replicate, reflect, reflect101, constant:V or wrap")
      ->default_val("reflect101");
  app.add_flag("--plot", plot, "histogram: also write NAME.hist.png, a bar chart");
  app.footer(std::string(kFooter) + "\n\nOperations:\n" + image::operations_help());

  return wk::app::run_app(kProg, app, argc, argv, [&]() -> int {
    nvtx::Range app_range("wk-image");
    const BackendSelection sel = wk::app::choose_backend(kProg, device, quiet);
    image::PipelineOptions pipeline_options;
    pipeline_options.border = image::parse_border(border_text);
    pipeline_options.plot = plot;
    image::Pipeline pipeline(pipeline_text, sel.backend, pipeline_options);

    io::InputScan scan;
    {
      nvtx::Range r("scan", nvtx::Color::io);
      scan = io::scan_inputs(inputs, outdir);
    }
    std::size_t failed = 0, ok = 0;
    for (const auto& e : scan.errors) {
      wk::app::print_error(kProg, e);
      ++failed;
    }
    if (scan.files.empty() && failed == 0) {
      wk::app::print_error(kProg, "no image files found in the inputs");
      return wk::app::kSomeFailed;
    }

    const io::EncodeOptions enc{quality};
    std::set<fs::path> outputs_written;
    double megapixels = 0;
    wk::app::Progress progress(scan.files.size(), "files", !quiet);
    for (std::size_t i = 0; i < scan.files.size(); ++i) {
      const io::InputFile& in = scan.files[i];
      const fs::path out = outdir / in.relative;
      const long idx = static_cast<long>(i);
      nvtx::Range file_range("file", nvtx::Color::app, idx);
      try {
        if (!outputs_written.insert(out.lexically_normal()).second)
          throw Error(ErrorCategory::usage, "output " + out.string() + " was already written from another input with the same name");
        std::error_code ec;
        if (fs::exists(out, ec) && fs::equivalent(out, in.path, ec))
          throw Error(ErrorCategory::usage, "output would overwrite the input itself; choose another -o folder");
        std::vector<std::uint8_t> bytes;
        {
          nvtx::Range r("read", nvtx::Color::io, idx);
          bytes = io::read_file(in.path);
        }
        cv::Mat img;
        {
          nvtx::Range r("decode", nvtx::Color::codec, idx);
          img = io::decode_image(bytes);
        }
        std::vector<image::SideOutput> side_outputs;  // histogram tables and plots
        const cv::Mat result = pipeline.run(img, idx, &side_outputs);
        std::vector<std::uint8_t> encoded;
        {
          nvtx::Range r("encode", nvtx::Color::codec, idx);
          encoded = io::encode_image(result, out, enc);
        }
        {
          nvtx::Range r("write", nvtx::Color::io, idx);
          io::write_file_atomic(out, encoded);
          for (const auto& side : side_outputs) {
            const fs::path side_path = out.parent_path() / (out.stem().string() + side.suffix);
            if (!outputs_written.insert(side_path.lexically_normal()).second)
              throw Error(ErrorCategory::usage, "output " + side_path.string() + " was already written from another input");
            io::write_file_atomic(side_path, side.bytes);
          }
        }
        ++ok;
        megapixels += double(img.total()) / 1e6;
      } catch (const Error& e) {
        ++failed;
        wk::app::print_error(kProg, with_path(in.path, e.what()));
        if (e.category() == ErrorCategory::cuda) throw;  // the GPU is in an unknown state: stop
      } catch (const std::exception& e) {
        ++failed;
        wk::app::print_error(kProg, with_path(in.path, e.what()));
      }
      progress.step(fmt::format("{:.1f} Mpx/s", megapixels / std::max(progress.elapsed_s(), 1e-9)));
    }
    progress.finish();
    const double secs = progress.elapsed_s();
    if (!quiet)
      fmt::print("{}: {} converted, {} failed; {:.1f} Mpx in {:.2f} s ({:.1f} Mpx/s) on the {}{}\n", kProg, ok, failed,
                 megapixels, secs, megapixels / std::max(secs, 1e-9), to_string(sel.backend),
                 sel.gpu.name.empty() ? "" : " (" + sel.gpu.name + ")");
    return failed ? wk::app::kSomeFailed : wk::app::kSuccess;
  });
}
