// The folder job's building blocks: header probing for the pixel limit, the report, resume.
#include <catch2/catch.hpp>

#include <filesystem>
#include <tuple>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/files.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;
using namespace wk;

TEST_CASE("probe_dimensions reads Netpbm headers as OpenCV does: comments, the byte after a number", "[pipeline]") {
  // Found by fuzz_image_decode: "5#" ends the number 5 at '#' (OpenCV consumes the byte after a
  // number), so " 1" is the height, not a comment. A comment ends at '\r' as well as '\n'.
  for (const auto& [header, w, h] : {std::tuple<std::string, int, int>{"P5\n# 3 P\n 5# 1\n255\n", 5, 1},
                                     {"P5\n7 2\n255\n", 7, 2},
                                     {"P5 # c\r4\n3 255\n", 4, 3},
                                     {"P6\n#a\n#b\n9\t8\n255\n", 9, 8}}) {
    CAPTURE(header);
    std::string bytes = header + std::string(std::size_t(w * h * 3), '\x10');
    const auto d = pipeline::probe_dimensions({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
    REQUIRE(d.has_value());
    CHECK(d->first == w);
    CHECK(d->second == h);
    const cv::Mat img = cv::imdecode(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), cv::IMREAD_UNCHANGED);
    REQUIRE_FALSE(img.empty());
    CHECK(img.cols == w);
    CHECK(img.rows == h);
  }
}

namespace {
// A fuzz finding kept in the seed corpus of tests/fuzz (so the fuzzer runs it on every campaign).
std::vector<std::uint8_t> corpus_file(const std::string& name) {
  return io::read_file(std::filesystem::path(WK_FUZZ_CORPUS_DIR) / name);
}
}  // namespace

TEST_CASE("probe_dimensions reads the fuzz findings' sizes as their decoders do", "[pipeline]") {
  // Each input made fuzz_image_decode fail: the probe read another size than the decoder, and for
  // the large ones let an image past --max-pixels. Small ones are decoded here to compare.
  struct Finding {
    const char* file;
    int w, h;
    const char* why;
  };
  for (const Finding& f : {
           Finding{"image_decode/pgm-hash-after-number.pgm", 5, 1, "OpenCV's PxM reader ends a number at any byte"},
           Finding{"image_decode/tiff-repeated-width.tif", 3, 2, "libtiff keeps a tag's first entry (ImageWidth twice)"},
           Finding{"image_decode/jpeg-app1-length-0.jpg", 21580, 24931,
                   "libjpeg skips an APP1 of length 0 and decodes the 538-Mpx frame after it"},
           Finding{"image_decode/pfm-token-3111BM.pfm", 3111, 111111,
                   "OpenCV's PFM reader takes atoi of whitespace-separated tokens: '3111BM' is 3111"}}) {
    CAPTURE(f.file, f.why);
    const std::vector<std::uint8_t> bytes = corpus_file(f.file);
    const auto d = pipeline::probe_dimensions(bytes);
    REQUIRE(d.has_value());
    CHECK(d->first == f.w);
    CHECK(d->second == f.h);
    if (double(f.w) * f.h > double(1LL << 28)) {
      CHECK_THROWS_AS(pipeline::check_pixel_limit(1LL << 28, d->first, d->second), Error);
      continue;
    }
    const cv::Mat img = cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
    if (!img.empty()) {  // an OpenCV built without libtiff cannot check the other side
      CHECK(img.cols == f.w);
      CHECK(img.rows == f.h);
    }
  }
}

TEST_CASE("probe_dimensions reads PFM sizes as OpenCV does: whitespace-separated tokens, atoi", "[pipeline]") {
  for (const auto& [header, w, h] : {std::tuple<std::string, int, int>{"PF\n7 2\n-1\n", 7, 2},
                                     {"Pf\n+12x 5\n-1.0\n", 12, 5}}) {
    CAPTURE(header);
    const auto e = pipeline::probe_dimensions({reinterpret_cast<const std::uint8_t*>(header.data()), header.size()});
    REQUIRE(e.has_value());
    CHECK(e->first == w);
    CHECK(e->second == h);
  }
}

TEST_CASE("probe_dimensions reads the header of every format OpenCV decodes here, without decoding", "[pipeline]") {
  const cv::Mat m = test::random_image(37, 21, 3, 1);
  cv::Mat gray;
  cv::extractChannel(m, gray, 0);
  for (const char* ext : {".png", ".jpg", ".bmp", ".ppm", ".pgm", ".pam", ".pfm", ".ras", ".hdr", ".tif", ".webp"}) {
    CAPTURE(ext);
    std::vector<std::uint8_t> b;
    if (!cv::haveImageWriter(std::string("x") + ext)) {  // the GPU machine's OpenCV has no TIFF encoder
      WARN("this OpenCV cannot write " << ext << ": only the crafted header below checks that probe");
      continue;
    }
    const bool one_channel = std::string(ext) == ".pgm";
    REQUIRE(cv::imencode(ext, one_channel ? gray : m, b));
    const auto d = pipeline::probe_dimensions(b);
    REQUIRE(d.has_value());
    CHECK(d->first == 37);
    CHECK(d->second == 21);
  }
  const std::string text = "plain text";
  CHECK_FALSE(pipeline::probe_dimensions({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}).has_value());
  // A PNG header that claims 100000 x 100000 pixels: caught before any decoding.
  std::vector<std::uint8_t> bomb;
  cv::imencode(".png", m, bomb);
  bomb[16] = 0; bomb[17] = 1; bomb[18] = 0x86; bomb[19] = 0xA0;
  bomb[20] = 0; bomb[21] = 1; bomb[22] = 0x86; bomb[23] = 0xA0;
  const auto d = pipeline::probe_dimensions(bomb);
  REQUIRE(d.has_value());
  CHECK(d->first == 100000);
  // A JPEG with junk bytes before its frame header: libjpeg skips them and decodes, so the probe
  // must too (found by tests/fuzz/fuzz_image_decode: a 49416 x 255 image passed unprobed).
  {
    std::vector<std::uint8_t> jpg;
    REQUIRE(cv::imencode(".jpg", m, jpg));
    std::size_t sof = 2;
    while (!(jpg[sof] == 0xFF && jpg[sof + 1] == 0xC0)) ++sof;
    jpg.insert(jpg.begin() + std::ptrdiff_t(sof), {0x12, 0x00, 0xFF, 0x00});
    const auto junk = pipeline::probe_dimensions(jpg);
    REQUIRE(junk.has_value());
    CHECK(*junk == std::pair<int, int>{37, 21});
    const cv::Mat decoded = cv::imdecode(jpg, cv::IMREAD_ANYCOLOR);
    CHECK((decoded.cols == 37 && decoded.rows == 21));
  }
  // Headers of formats whose bombs the decoder would otherwise allocate for (OpenCV's own limit,
  // 2^30 pixels, is read once at start-up and lets a 30000 x 30000 float PFM through).
  auto probe = [](const std::string& bytes) {
    return pipeline::probe_dimensions({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
  };
  using Size = std::optional<std::pair<int, int>>;
  CHECK(probe("PF\n30000 20000\n-1.0\n") == Size({30000, 20000}));
  CHECK(probe("P7\nWIDTH 30000\n# c\nHEIGHT 20000\nDEPTH 3\nMAXVAL 255\nENDHDR\n") == Size({30000, 20000}));
  CHECK(probe("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 20000 +X 30000\n") == Size({30000, 20000}));
  CHECK(probe(std::string("\x59\xa6\x6a\x95\x00\x00\x75\x30\x00\x00\x4e\x20", 12) + std::string(20, '\0')) == Size({30000, 20000}));
  // Little-endian TIFF, one directory at 8 with ImageWidth LONG 30000 and ImageLength SHORT 20000.
  const std::string tiff("II*\0\x08\0\0\0\x02\0"
                         "\x00\x01\x04\x00\x01\0\0\0\x30\x75\0\0"
                         "\x01\x01\x03\x00\x01\0\0\0\x20\x4e\0\0", 34);
  CHECK(probe(tiff) == Size({30000, 20000}));
  // Big-endian TIFF: ImageWidth SHORT, ImageLength LONG.
  const std::string tiff_be("MM\0*\0\0\0\x08\0\x02"
                            "\x01\x00\x00\x03\0\0\0\x01\x75\x30\0\0"
                            "\x01\x01\x00\x04\0\0\0\x01\0\0\x4e\x20", 34);
  CHECK(probe(tiff_be) == Size({30000, 20000}));
  CHECK(probe("PF\n4000000000 5\n") == Size({INT32_MAX, 5}));
  // JPEG 2000: a codestream's SIZ (grid 30100 x 20200, offset 100 x 200), and a JP2's ihdr.
  const std::string j2k("\xFF\x4F\xFF\x51\x00\x29\x00\x00"
                        "\x00\x00\x75\x94\x00\x00\x4e\xe8\x00\x00\x00\x64\x00\x00\x00\xc8", 24);
  CHECK(probe(j2k) == Size({30000, 20000}));
  const std::string jp2(std::string("\0\0\0\x0CjP  \r\n\x87\n", 12) + std::string("\0\0\0\x14" "ftypjp2 \0\0\0\0jp2 ", 20) +
                        std::string("\0\0\0\x2Djp2h\0\0\0\x16ihdr\0\0\x4e\x20\0\0\x75\x30\0\x03\x07\x07\0\0", 30));
  CHECK(probe(jp2) == Size({30000, 20000}));
  CHECK_FALSE(probe("#?RADIANCE\n\n+X 5 -Y 5\n").has_value());
}

TEST_CASE("run_folder_job records every input in order, with the report and resume round trip", "[pipeline]") {
  test::TempDir dir;
  fs::create_directories(dir / "in");
  for (int i = 0; i < 6; ++i) cv::imwrite((dir / "in" / ("p" + std::to_string(i) + ".png")).string(), test::random_image(20, 10, 3, i));
  test::write_bytes(dir / "in" / "bad.png", "nope");
  pipeline::FolderJobOptions opt;
  opt.pipeline_text = "gray";
  opt.inputs = {(dir / "in").string()};
  opt.outdir = dir / "out";
  opt.threads = 3;
  const auto res = pipeline::run_folder_job(opt);
  REQUIRE(res.records.size() == 7);
  CHECK(res.records[0].path == (dir / "in" / "bad.png").string());
  CHECK(res.records[0].status == pipeline::FileStatus::failed);
  CHECK(res.totals.ok == 6);
  CHECK(res.totals.failed == 1);
  const std::string json = pipeline::report_json(res, opt);
  test::write_bytes(dir / "r.json", json);
  const auto done = pipeline::read_earlier_report(dir / "r.json");
  CHECK(done.done.size() == 6);
  CHECK(done.settings == pipeline::job_settings(opt));

  opt.resume_report = dir / "r.json";
  const auto again = pipeline::run_folder_job(opt);
  // The resumed result holds the first run's records of the files it skipped.
  CHECK(again.totals.ok == 6);
  CHECK(again.totals.done_earlier == 6);
  CHECK(again.totals.skipped == 0);
  CHECK(again.totals.failed == 1);
  CHECK(again.totals.megapixels == 0);  // this run's work only
  REQUIRE(again.records.size() == 7);
  for (std::size_t i = 1; i < 7; ++i) {
    CAPTURE(i);
    CHECK(again.records[i].earlier_run);
    CHECK(again.records[i].status == pipeline::FileStatus::ok);
    CHECK(again.records[i].path == res.records[i].path);
    CHECK(again.records[i].finished_s == res.records[i].finished_s);
    CHECK(again.records[i].width == 20);
  }
  CHECK_FALSE(again.records[0].earlier_run);
  // A chain of resumes keeps counting the first run's work as done.
  test::write_bytes(dir / "r2.json", pipeline::report_json(again, opt));
  CHECK(pipeline::read_earlier_report(dir / "r2.json").done.size() == 6);
  // ... and a third run still skips them: the chained records carry the inputs' size and time.
  opt.resume_report = dir / "r2.json";
  CHECK(pipeline::run_folder_job(opt).totals.done_earlier == 6);
  // A report of an older version (skipped as "done in an earlier run", no whole record) still
  // resumes: those files are skipped, reported as before.
  auto old = nlohmann::json::parse(pipeline::report_json(res, opt));
  for (auto& f : old["files"])
    if (f["status"] == "ok") {
      f["status"] = "skipped";
      f["error"] = "done in an earlier run";
    }
  test::write_bytes(dir / "old.json", old.dump());
  opt.resume_report = dir / "old.json";
  const auto from_old = pipeline::run_folder_job(opt);
  CHECK(from_old.totals.skipped == 6);
  CHECK(from_old.totals.done_earlier == 0);

  test::write_bytes(dir / "junk.json", "{\"not\": \"a report\"}");
  CHECK_THROWS_AS(pipeline::read_earlier_report(dir / "junk.json"), Error);
}

TEST_CASE("run_folder_job rejects bad options before touching files", "[pipeline]") {
  test::TempDir dir;
  pipeline::FolderJobOptions opt;
  opt.pipeline_text = "gray,nosuchop";
  opt.inputs = {dir.path().string()};
  opt.outdir = dir / "out";
  CHECK_THROWS_AS(pipeline::run_folder_job(opt), Error);
  CHECK_FALSE(fs::exists(dir / "out"));

  auto usage_error = [&](const pipeline::FolderJobOptions& o) {
    try {
      pipeline::run_folder_job(o);
    } catch (const Error& e) {
      return e.category() == ErrorCategory::usage;
    }
    return false;
  };
  opt.pipeline_text = "gray";
  opt.jpeg_batch = 0;
  CHECK(usage_error(opt));
  opt.jpeg_batch = 32;
  opt.jpeg_decoder = pipeline::JpegDecoder::nvjpeg;  // the CPU backend decodes with OpenCV only
  CHECK(usage_error(opt));
  if (!pipeline::nvjpeg_in_build()) {
    opt.backend = Backend::gpu;  // refused for the build, before any GPU is asked for
    CHECK(usage_error(opt));
    opt.backend = Backend::cpu;
  }
  opt.jpeg_decoder = pipeline::JpegDecoder::auto_select;
  opt.jpeg_encoder = pipeline::JpegEncoder::nvjpeg;  // the CPU backend encodes with OpenCV only
  CHECK(usage_error(opt));
  if (!pipeline::nvjpeg_in_build()) {
    opt.backend = Backend::gpu;
    CHECK(usage_error(opt));
  }
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("Pipeline::run on the CPU never writes its input and returns an image of its own", "[pipeline]") {
  cv::Mat in(37, 53, CV_8UC3);
  cv::randu(in, 0, 256);
  const cv::Mat before = in.clone();
  for (const char* text : {"hist", "gray", "gray,gauss:5,hist", "gauss:3", "hist,gray"}) {
    CAPTURE(text);
    wk::image::Pipeline p(text, wk::Backend::cpu);
    std::vector<wk::image::SideOutput> side;
    cv::Mat out = p.run(in, -1, &side);
    REQUIRE(out.data != in.data);
    REQUIRE(cv::norm(in, before, cv::NORM_INF) == 0);
    const std::string t(text);
    if (t == "hist") REQUIRE(cv::norm(out, in, cv::NORM_INF) == 0);  // passed through, as a copy
    if (t == "gray") {
      cv::Mat expected;
      cv::cvtColor(in, expected, cv::COLOR_BGR2GRAY);
      REQUIRE(cv::norm(out, expected, cv::NORM_INF) == 0);
    }
    out.setTo(cv::Scalar::all(7));  // the result is the caller's to change
    REQUIRE(cv::norm(in, before, cv::NORM_INF) == 0);
  }
}

TEST_CASE("run_folder_job start_on_cpu, not waiting for the GPU start-up: every file done, the caller goes on",
          "[pipeline]") {
  // Without a GPU the start-up fails at once; with one it goes on in the background after the job
  // (it owns what it made). Either way every file is done, and the process exits normally later.
  test::TempDir dir;
  fs::create_directories(dir / "in");
  for (int i = 0; i < 6; ++i) cv::imwrite((dir / "in" / ("p" + std::to_string(i) + ".png")).string(), test::random_image(20, 10, 3, i));
  const test::ScopedEnv start_gpu("WK_CPU_START_FILES", "2");  // always starts the GPU
  pipeline::FolderJobOptions opt;
  opt.pipeline_text = "gray";
  opt.inputs = {(dir / "in").string()};
  opt.outdir = dir / "out";
  opt.threads = 2;
  opt.backend = Backend::gpu;
  opt.start_on_cpu = true;
  opt.wait_for_gpu_startup = false;
  for (int run = 0; run < 2; ++run) {
    const auto res = pipeline::run_folder_job(opt);
    REQUIRE(res.records.size() == 6);
    for (const auto& r : res.records) {
      INFO(r.path << ": " << r.error);
      CHECK(r.status == pipeline::FileStatus::ok);
      CHECK(fs::exists(r.output));
    }
    CHECK(res.gpu.files_cpu + res.gpu.files_gpu == 6);
    CHECK(res.gpu.not_used.empty() == (res.gpu.files_gpu > 0));
  }
}
