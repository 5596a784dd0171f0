// nvJPEG in the folder job (io/nvjpeg_decoder, io/nvjpeg_encoder, pipeline/jpeg_decode_service,
// pipeline/folder_job). Decode: the GPU-decoded pixels against OpenCV's decode of the same file,
// within rounding (nvJPEG's IDCT, colour conversion and chroma upsampling are not libjpeg's, so
// equality is not expected); JPEGs that nvJPEG must not decode go through OpenCV exactly; a bad
// file fails alone; many files through the decode service with every record in order, also when
// interrupted. Encode: GPU-encoded JPEG outputs decode to the job's exact result about as
// closely as OpenCV's own JPEGs at the same quality, at a similar size.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdlib>
#include <map>

#include "test_support.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {

// Smooth gradients, hard-edged coloured shapes and mild noise: what JPEG is made for, with
// edges where chroma upsampling differences show.
cv::Mat photo_like(int width, int height, int channels, unsigned seed) {
  cv::Mat m(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      m.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<uchar>(255.0 * x / width), cv::saturate_cast<uchar>(255.0 * y / height),
                                        cv::saturate_cast<uchar>(128 + 100 * std::sin((x + y) * 0.05)));
  cv::RNG rng(seed);
  for (int k = 0; k < 12; ++k) {
    const cv::Point c(rng.uniform(0, width), rng.uniform(0, height));
    const cv::Scalar colour(rng.uniform(0, 256), rng.uniform(0, 256), rng.uniform(0, 256));
    if (k % 2) cv::circle(m, c, rng.uniform(2, std::max(3, width / 6)), colour, cv::FILLED, cv::LINE_AA);
    else cv::rectangle(m, c, c + cv::Point(rng.uniform(1, width / 4 + 2), rng.uniform(1, height / 4 + 2)), colour, cv::FILLED);
  }
  cv::Mat m16, noise(height, width, CV_16SC3);
  rng.fill(noise, cv::RNG::NORMAL, 0, 6);
  m.convertTo(m16, CV_16SC3);
  m16 += noise;
  m16.convertTo(m, CV_8UC3);
  if (channels == 1) cv::cvtColor(m, m, cv::COLOR_BGR2GRAY);
  return m;
}

std::vector<std::uint8_t> encode_jpeg(const cv::Mat& m, std::vector<int> params) {
  std::vector<std::uint8_t> b;
  REQUIRE(cv::imencode(".jpg", m, b, params));
  return b;
}

// APP1 EXIF (little-endian TIFF) with IFD0 = { orientation: 6 }, inserted after SOI.
void add_exif_rotate_90(std::vector<std::uint8_t>& jpeg) {
  const std::vector<std::uint8_t> payload{'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0,
                                          0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
  const std::size_t len = payload.size() + 2;
  std::vector<std::uint8_t> seg{0xFF, 0xE1, std::uint8_t(len >> 8), std::uint8_t(len)};
  seg.insert(seg.end(), payload.begin(), payload.end());
  jpeg.insert(jpeg.begin() + 2, seg.begin(), seg.end());
}

// Overwrites a stretch of entropy-coded data in the middle of the scan (headers and the
// end-of-image marker intact) with bytes that are never 0xFF, so no marker appears.
void corrupt_scan(std::vector<std::uint8_t>& jpeg) {
  std::size_t sos = 2;
  while (!(jpeg[sos] == 0xFF && jpeg[sos + 1] == 0xDA)) sos += 2 + ((jpeg[sos + 2] << 8) | jpeg[sos + 3]);
  const std::size_t begin = sos + 2 + ((jpeg[sos + 2] << 8) | jpeg[sos + 3]);
  const std::size_t from = begin + (jpeg.size() - begin) / 3, to = begin + (jpeg.size() - begin) * 2 / 3;
  cv::RNG rng(99);
  for (std::size_t i = from; i < to; ++i) jpeg[i] = std::uint8_t(rng.uniform(0, 255));
}

void write_file(const fs::path& p, const std::vector<std::uint8_t>& b) { test::write_bytes(p, std::string(b.begin(), b.end())); }

struct Diff {
  double mean = 0, max = 0, over_16 = 0;  // mean |a - b| over all samples, max, fraction of samples > 16 apart
};
Diff compare(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat d;
  cv::absdiff(a, b, d);
  Diff r;
  const cv::Scalar s = cv::mean(d);
  for (int c = 0; c < d.channels(); ++c) r.mean += s[c] / d.channels();
  r.max = cv::norm(d.reshape(1), cv::NORM_INF);
  cv::Mat big = d.reshape(1) > 16;
  r.over_16 = double(cv::countNonZero(big)) / double(big.total());
  return r;
}

pipeline::FolderJobOptions job_options(const fs::path& in, const fs::path& out, const std::string& ops) {
  pipeline::FolderJobOptions opt;
  opt.pipeline_text = ops;
  opt.backend = Backend::gpu;
  opt.inputs = {in.string()};
  opt.outdir = out;
  opt.format = "png";  // lossless: the file holds exactly what the pipeline returned
  opt.jpeg_batch = 3;  // several batches, a partial one, gray and colour ones
  opt.threads = 2;
  return opt;
}

pipeline::JobResult run_job(const fs::path& in, const fs::path& out, const std::string& ops, pipeline::JpegDecoder decoder,
                            std::vector<std::string>* notices = nullptr) {
  pipeline::FolderJobOptions opt = job_options(in, out, ops);
  opt.jpeg_decoder = decoder;
  pipeline::JobCallbacks cb;
  if (notices) cb.on_notice = [notices](const std::string& m) { notices->push_back(m); };
  return pipeline::run_folder_job(opt, nullptr, cb);
}

// True (with a note in the test output) when this build has no nvJPEG: the test has nothing to run.
bool no_nvjpeg() {
  if (pipeline::nvjpeg_in_build()) return false;
  WARN("SKIPPED: this build has no nvJPEG (configure reported 'warpkit: nvJPEG decode: OFF')");
  return true;
}

}  // namespace

TEST_CASE("nvJPEG decode in the folder job: OpenCV's pixels within rounding, the rest through OpenCV, bad files alone",
          "[gpu][nvjpeg][pipeline]") {
  if (no_nvjpeg()) return;
  test::TempDir dir;
  const fs::path in = dir / "in";
  fs::create_directories(in);
  std::map<std::string, std::vector<std::uint8_t>> files;
  files["a_1921x1081_q90.jpg"] = encode_jpeg(photo_like(1921, 1081, 3, 1), {cv::IMWRITE_JPEG_QUALITY, 90});
  files["b_640x480_q95.jpg"] = encode_jpeg(photo_like(640, 480, 3, 2), {cv::IMWRITE_JPEG_QUALITY, 95});
  files["c_333x217_q75.jpg"] = encode_jpeg(photo_like(333, 217, 3, 3), {cv::IMWRITE_JPEG_QUALITY, 75});
  files["d_17x9.jpg"] = encode_jpeg(photo_like(17, 9, 3, 4), {});
  // (OpenCV 4.6 writes 4:2:0 only: IMWRITE_JPEG_SAMPLING_FACTOR came in 4.7.)
  files["e_gray.jpg"] = encode_jpeg(photo_like(801, 601, 1, 7), {});
  files["f_progressive.jpg"] = encode_jpeg(photo_like(640, 360, 3, 8), {cv::IMWRITE_JPEG_PROGRESSIVE, 1});
  files["g_exif_rotated.jpg"] = encode_jpeg(photo_like(320, 200, 3, 9), {});
  add_exif_rotate_90(files["g_exif_rotated.jpg"]);
  const std::string junk = "\xFF\xD8\xFFthis is no JPEG body at all\xFF\xD9";
  files["h_corrupt_header.jpg"] = std::vector<std::uint8_t>(junk.begin(), junk.end());
  // Sorted after c_333x217 and before d_17x9: it likely shares a colour batch of 3 with good
  // files, which must then come out right through OpenCV.
  files["c_corrupt_scan.jpg"] = encode_jpeg(photo_like(640, 480, 3, 10), {});
  corrupt_scan(files["c_corrupt_scan.jpg"]);
  std::vector<std::uint8_t> png;
  REQUIRE(cv::imencode(".png", photo_like(100, 50, 3, 11), png));
  files["j_not_jpeg.png"] = png;
  for (const auto& [name, bytes] : files) write_file(in / name, bytes);

  std::vector<std::string> notices;
  // flip:h twice: the decoded pixels written unchanged (an analysis-only pipeline writes no image).
  const pipeline::JobResult res = run_job(in, dir / "out", "flip:h,flip:h", pipeline::JpegDecoder::nvjpeg, &notices);
  bool batch_failed = false;  // then its good files went through OpenCV
  for (const auto& n : notices) {
    WARN("notice: " << n);
    batch_failed = batch_failed || n.find("nvJPEG failed on a batch") != std::string::npos;
  }
  REQUIRE(res.records.size() == files.size());
  std::map<std::string, const pipeline::FileRecord*> by_name;
  for (const auto& r : res.records) by_name[fs::path(r.path).filename().string()] = &r;

  for (const auto& [name, bytes] : files) {
    const pipeline::FileRecord& r = *by_name.at(name);
    INFO(name << ": status " << pipeline::to_string(r.status) << ", decoder '" << r.decoder << "', error '" << r.error << "'");
    if (name == "h_corrupt_header.jpg") {
      CHECK(r.status == pipeline::FileStatus::failed);
      CHECK_FALSE(r.error.empty());
      continue;
    }
    if (name == "c_corrupt_scan.jpg") continue;  // ok or failed, as its decoder sees it; it must only fail alone
    REQUIRE(r.status == pipeline::FileStatus::ok);
    const cv::Mat expected = cv::imdecode(bytes, cv::IMREAD_ANYCOLOR);
    const cv::Mat got = cv::imread((dir / "out" / fs::path(name).replace_extension(".png")).string(), cv::IMREAD_UNCHANGED);
    REQUIRE(got.size() == expected.size());
    REQUIRE(got.channels() == expected.channels());
    const Diff d = compare(got, expected);
    WARN(name << " (" << r.decoder << ", " << got.cols << "x" << got.rows << "x" << got.channels() << "): mean |diff| " << d.mean
              << ", max " << d.max << ", samples > 16 apart " << d.over_16 * 100 << "%, decode " << r.ms.decode << " ms");
    if (r.decoder == "opencv") {
      CHECK(d.max == 0);
    } else {
      CHECK(d.mean < 1.5);
      CHECK(d.over_16 < 0.01);
      CHECK(r.ms.decode > 0);
    }
    // nvJPEG takes baseline colour and gray JPEGs; EXIF-rotated JPEGs and other formats stay
    // with OpenCV; progressive ones depend on the backend (the hardware one does not take them).
    if (name[0] >= 'a' && name[0] <= 'e') CHECK((r.decoder.rfind("nvjpeg", 0) == 0 || (batch_failed && r.decoder == "opencv")));
    if (name == "f_progressive.jpg") CHECK((r.decoder == "opencv" || r.decoder == "nvjpeg"));
    if (name == "g_exif_rotated.jpg" || name == "j_not_jpeg.png") CHECK(r.decoder == "opencv");
  }
  CHECK_THAT(pipeline::report_json(res, {}), Catch::Contains("\"decoder\": \"nvjpeg"));
}

// WK_NVJPEG_INSPECT=warpkit replaces nvJPEG's look at each file (nvjpegJpegStreamParseHeader +
// nvjpegDecodeBatchedSupported) with warpkit's marker walk (io::hardware_decoder_unsuitable_reason):
// every file must go to the same decoder either way, and no batch may fail.
TEST_CASE("nvJPEG inspection: warpkit's marker walk sends every file where nvJPEG's own inspection does",
          "[gpu][nvjpeg][pipeline]") {
  if (no_nvjpeg()) return;
  test::TempDir dir;
  const fs::path in = dir / "in";
  fs::create_directories(in);
  const cv::Mat colour = photo_like(640, 360, 3, 21);
  write_file(in / "a_baseline.jpg", encode_jpeg(colour, {cv::IMWRITE_JPEG_QUALITY, 90}));
  write_file(in / "b_q100.jpg", encode_jpeg(colour, {cv::IMWRITE_JPEG_QUALITY, 100}));
  write_file(in / "c_optimized.jpg", encode_jpeg(colour, {cv::IMWRITE_JPEG_OPTIMIZE, 1}));
  write_file(in / "d_restart.jpg", encode_jpeg(colour, {cv::IMWRITE_JPEG_RST_INTERVAL, 4}));
  write_file(in / "e_gray.jpg", encode_jpeg(photo_like(333, 217, 1, 22), {}));
  write_file(in / "f_progressive.jpg", encode_jpeg(colour, {cv::IMWRITE_JPEG_PROGRESSIVE, 1}));
  write_file(in / "g_small.jpg", encode_jpeg(photo_like(17, 9, 3, 23), {}));
  std::map<std::string, std::map<std::string, std::string>> decoder_by;  // mode -> file -> decoder
  for (const char* mode : {"workers", "warpkit", "decoder"}) {
    wk::test::ScopedEnv inspect_by("WK_NVJPEG_INSPECT", mode);  // for this job
    std::vector<std::string> notices;
    const pipeline::JobResult res = run_job(in, dir / (std::string("out-") + mode), "hist", pipeline::JpegDecoder::nvjpeg, &notices);
    for (const auto& n : notices) {
      INFO(mode << ": notice " << n);
      CHECK(n.find("nvJPEG failed on a batch") == std::string::npos);
    }
    REQUIRE(res.records.size() == 7);
    for (const auto& r : res.records) {
      INFO(mode << ": " << r.path << " " << r.error);
      CHECK(r.status == pipeline::FileStatus::ok);
      decoder_by[mode][fs::path(r.path).filename().string()] = r.decoder;
    }
  }
  for (const auto& [name, decoder] : decoder_by["workers"]) {
    INFO(name);
    CHECK(decoder_by["warpkit"][name] == decoder);
    CHECK(decoder_by["decoder"][name] == decoder);
    if (name != "f_progressive.jpg") CHECK(decoder.rfind("nvjpeg", 0) == 0);
  }
}

TEST_CASE("nvJPEG decode feeds the GPU operations: gray,gauss:5 close to the OpenCV-decoded job", "[gpu][nvjpeg][pipeline]") {
  if (no_nvjpeg()) return;
  test::TempDir dir;
  fs::create_directories(dir / "in");
  for (int k = 0; k < 7; ++k)
    write_file(dir / "in" / ("p" + std::to_string(k) + ".jpg"),
               encode_jpeg(photo_like(700 + 61 * k, 400 + 37 * k, k == 3 ? 1 : 3, 20 + k), {cv::IMWRITE_JPEG_QUALITY, 90}));
  const auto nv = run_job(dir / "in", dir / "nv", "gray,gauss:5", pipeline::JpegDecoder::nvjpeg);
  const auto cv_job = run_job(dir / "in", dir / "cv", "gray,gauss:5", pipeline::JpegDecoder::opencv);
  REQUIRE(nv.totals.ok == 7);
  REQUIRE(cv_job.totals.ok == 7);
  for (const auto& r : nv.records) {
    CHECK(r.decoder.rfind("nvjpeg", 0) == 0);
    CHECK(r.device.rfind("gpu", 0) == 0);  // any visible GPU (two on nvidia-h200-x2)
  }
  for (const auto& r : cv_job.records) CHECK(r.decoder == "opencv");
  for (int k = 0; k < 7; ++k) {
    const std::string name = "p" + std::to_string(k) + ".png";
    const cv::Mat a = cv::imread((dir / "nv" / name).string(), cv::IMREAD_UNCHANGED);
    const cv::Mat b = cv::imread((dir / "cv" / name).string(), cv::IMREAD_UNCHANGED);
    REQUIRE(a.size() == b.size());
    REQUIRE(a.channels() == 1);
    const Diff d = compare(a, b);
    WARN(name << ": mean |diff| " << d.mean << ", max " << d.max);
    CHECK(d.mean < 1.0);  // the blur averages the decoders' rounding differences away
  }
}

// --device auto: the decoder's warm-up decodes the longest JPEG of the job (the hardware decoder
// sizes each place of a batch for the longest JPEG it has held, and grows it slowly when a longer
// one comes), leaving out those longer than twice the median, or the first JPEG when nvJPEG does
// not take the longest. The job's outputs do not depend on which.
TEST_CASE("nvJPEG warm-up under --device auto: the job's longest JPEG but no outlier, else its first",
          "[gpu][nvjpeg][pipeline]") {
  if (no_nvjpeg()) return;
  test::TempDir dir;
  const test::ScopedEnv start_gpu("WK_CPU_START_FILES", "2");  // always starts the GPU
  // Seven 320x240 JPEGs, and "f5.jpg" in the middle of the list, different in each case.
  std::size_t longest_small = 0;
  auto folder_with = [&](const std::string& name, const std::vector<std::uint8_t>& f5) {
    fs::create_directories(dir / name);
    for (int k = 0; k < 8; ++k) {
      if (k == 5) continue;
      const auto bytes = encode_jpeg(photo_like(320, 240, 3, 200 + k), {cv::IMWRITE_JPEG_QUALITY, 85});
      longest_small = std::max(longest_small, bytes.size());
      write_file(dir / name / ("f" + std::to_string(k) + ".jpg"), bytes);
    }
    write_file(dir / name / "f5.jpg", f5);
    return dir / name;
  };
  auto run_auto = [&](const fs::path& in, cv::Size f5_size) {
    pipeline::FolderJobOptions opt = job_options(in, dir / ("out-" + in.filename().string()), "gray");
    opt.start_on_cpu = true;
    const pipeline::JobResult r = pipeline::run_folder_job(opt);
    REQUIRE(r.records.size() == 8);
    for (const auto& f : r.records) {
      INFO(f.path << ": " << pipeline::to_string(f.status) << " " << f.error);
      CHECK(f.status == pipeline::FileStatus::ok);
      CHECK(cv::imread(f.output, cv::IMREAD_UNCHANGED).size() ==
            (fs::path(f.path).filename() == "f5.jpg" ? f5_size : cv::Size(320, 240)));
    }
    CHECK(r.gpu.files_gpu > 0);
    return r.gpu.decode_warm_up;
  };
  // A somewhat longer JPEG: the warm-up takes it.
  const fs::path a = folder_with("longer", encode_jpeg(photo_like(352, 264, 3, 300), {cv::IMWRITE_JPEG_QUALITY, 85}));
  CHECK(run_auto(a, {352, 264}) == (a / "f5.jpg").string());
  // Far longer than the others (more than twice their median): the longest of the others.
  const fs::path b = folder_with("outlier", encode_jpeg(photo_like(1280, 960, 3, 301), {cv::IMWRITE_JPEG_QUALITY, 95}));
  const fs::path warm_b = run_auto(b, {1280, 960});
  CHECK(warm_b != (b / "f5.jpg").string());
  CHECK(warm_b.parent_path() == b);
  // A BMP named .jpg, a little longer than the JPEGs: nvJPEG turns it down (OpenCV decodes it by
  // its content), so the warm-up takes the first JPEG.
  const int rows = int(longest_small * 6 / 5 / (100 * 3)) + 1;  // 24-bit rows of 300 bytes
  std::vector<std::uint8_t> bmp;
  REQUIRE(cv::imencode(".bmp", photo_like(100, rows, 3, 302), bmp));
  const fs::path c = folder_with("not_jpeg", bmp);
  CHECK(run_auto(c, {100, rows}) == (c / "f0.jpg").string());
}

TEST_CASE("nvJPEG decode service: many files over 4 workers, every record in input order, also when interrupted",
          "[gpu][nvjpeg][pipeline]") {
  if (no_nvjpeg()) return;
  test::TempDir dir;
  fs::create_directories(dir / "in");
  std::vector<std::string> names;
  // Under the sanitizers (racecheck runs each nvJPEG kernel slowly) 24 files, still several
  // batches of 3 per worker and both bad files.
  const int count = test::sanitizer_run() ? 24 : 48;
  for (int k = 0; k < count; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "f%02d.jpg", k);
    auto bytes = encode_jpeg(photo_like(40 + 13 * k, 30 + 7 * k, k % 5 == 2 ? 1 : 3, 100 + k), {cv::IMWRITE_JPEG_QUALITY, 85});
    if (k == 17) corrupt_scan(bytes);
    if (k == 21) bytes.resize(bytes.size() / 2);  // truncated: OpenCV's path names it
    write_file(dir / "in" / name, bytes);
    names.push_back(name);
  }
  pipeline::FolderJobOptions opt = job_options(dir / "in", dir / "out", "gray,hist");
  opt.jpeg_decoder = pipeline::JpegDecoder::nvjpeg;
  opt.threads = 4;
  const pipeline::JobResult all = pipeline::run_folder_job(opt);
  REQUIRE(all.records.size() == names.size());
  std::size_t nvjpeg_files = 0;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const pipeline::FileRecord& r = all.records[k];
    INFO(r.path << ": " << pipeline::to_string(r.status) << " " << r.error);
    CHECK(fs::path(r.path).filename() == names[k]);
    if (k == 21) {
      CHECK(r.status == pipeline::FileStatus::failed);
      continue;
    }
    if (k == 17) continue;  // ok or failed, as its decoder sees it
    CHECK(r.status == pipeline::FileStatus::ok);
    CHECK(fs::exists(dir / "out" / fs::path(names[k]).replace_extension(".png")));
    nvjpeg_files += r.decoder.rfind("nvjpeg", 0) == 0;
  }
  CHECK(nvjpeg_files >= names.size() - 8);  // a failed batch sends at most 3 good files to OpenCV

  // Interrupted after a few finished files: the files already handed to the decoder finish, no
  // new one starts, no partial or temporary file stays behind.
  // At most 2 x 3 files wait for the decoder, 2 x 3 decoded ones and 4 in the workers' hands
  // are in flight when the stop comes: the rest must not start.
  const int stop_after = count == 48 ? 10 : 4;
  std::atomic<bool> stop{false};
  std::atomic<int> finished{0};
  pipeline::JobCallbacks cb;
  cb.on_file = [&](const pipeline::FileRecord&) {
    if (++finished == stop_after) stop = true;
  };
  opt.outdir = dir / "out2";
  const pipeline::JobResult part = pipeline::run_folder_job(opt, &stop, cb);
  CHECK(part.totals.interrupted);
  CHECK(part.records.size() + part.totals.not_started == names.size());
  CHECK(part.records.size() >= std::size_t(stop_after));
  CHECK(part.records.size() < names.size());
  std::size_t outputs = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "out2")) {
    CHECK(e.path().filename().string()[0] != '.');
    outputs += e.path().extension() == ".png";
  }
  std::size_t ok = 0;
  for (const auto& r : part.records) ok += r.status == pipeline::FileStatus::ok;
  CHECK(outputs == ok);
}

TEST_CASE("nvJPEG encode in the folder job: JPEG outputs as close to the result as OpenCV's, at a similar size",
          "[gpu][nvjpeg][pipeline]") {
  if (no_nvjpeg()) return;
  test::TempDir dir;
  fs::create_directories(dir / "in");
  struct Input {
    std::string name;
    int width, height, channels;
  };
  std::vector<Input> inputs{{"a_1920x1080.png", 1920, 1080, 3}, {"b_gray_1281x721.png", 1281, 721, 1},
                            {"c_333x217.png", 333, 217, 3},     {"d_17x9.png", 17, 9, 3},
                            {"e_gray_3x3.png", 3, 3, 1},        {"f_129x4097.png", 129, 4097, 3}};
  if (test::sanitizer_run()) inputs = {{"a_640x360.png", 640, 360, 3}, {"b_gray_321x241.png", 321, 241, 1}, {"d_17x9.png", 17, 9, 3}};
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    std::vector<std::uint8_t> png;
    REQUIRE(cv::imencode(".png", photo_like(inputs[k].width, inputs[k].height, inputs[k].channels, 40 + unsigned(k)), png));
    write_file(dir / "in" / inputs[k].name, png);
  }
  // The exact result (PNG), then JPEG q90 from each encoder; "gauss:3" so the GPU works on it.
  auto run = [&](const std::string& out, const std::string& format, pipeline::JpegEncoder encoder) {
    pipeline::FolderJobOptions opt = job_options(dir / "in", dir / out, "gauss:3");
    opt.format = format;
    opt.encode.jpeg_quality = 90;
    opt.jpeg_encoder = encoder;
    const auto res = pipeline::run_folder_job(opt);
    std::string records;
    for (const auto& r : res.records) records += r.path + ": " + pipeline::to_string(r.status) + " " + r.error + "\n";
    INFO(out << ":\n" << records);
    REQUIRE(res.totals.ok == inputs.size());
    return res;
  };
  run("exact", "png", pipeline::JpegEncoder::opencv);
  const auto cv_res = run("cv", "jpg", pipeline::JpegEncoder::opencv);
  const auto nv_res = run("nv", "jpg", pipeline::JpegEncoder::nvjpeg);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Input& in = inputs[k];
    const std::string jpg = fs::path(in.name).replace_extension(".jpg").string();
    INFO(in.name << ": encoder " << nv_res.records[k].encoder << ", error '" << nv_res.records[k].error << "'");
    CHECK(cv_res.records[k].encoder == "opencv");
    CHECK(nv_res.records[k].encoder == "nvjpeg");
    const cv::Mat exact = cv::imread((dir / "exact" / fs::path(in.name)).string(), cv::IMREAD_UNCHANGED);
    const auto nv_bytes = test::read_bytes(dir / "nv" / jpg);
    const auto cv_bytes = test::read_bytes(dir / "cv" / jpg);
    REQUIRE(nv_bytes.size() > 4);
    CHECK(std::uint8_t(nv_bytes[0]) == 0xFF);
    CHECK(std::uint8_t(nv_bytes[1]) == 0xD8);
    CHECK(nv_bytes.find("\xFF\xC0") != std::string::npos);  // baseline DCT frame, as OpenCV writes
    const cv::Mat nv = cv::imread((dir / "nv" / jpg).string(), cv::IMREAD_UNCHANGED);
    const cv::Mat cv_img = cv::imread((dir / "cv" / jpg).string(), cv::IMREAD_UNCHANGED);
    REQUIRE(nv.size() == exact.size());
    REQUIRE(nv.channels() == exact.channels());  // gray stays one component
    const Diff dn = compare(nv, exact), dc = compare(cv_img, exact);
    const double size_ratio = double(nv_bytes.size()) / double(cv_bytes.size());
    WARN(in.name << ": mean |diff| nvJPEG " << dn.mean << " vs OpenCV " << dc.mean << ", max " << dn.max << " vs " << dc.max
                 << "; bytes " << nv_bytes.size() << " vs " << cv_bytes.size());
    CHECK(dn.mean <= dc.mean + 0.5);
    if (in.width * in.height >= 10000) {  // (a noisy 17x9 image is 11 levels off with either encoder)
      CHECK(dn.mean < 2.5);
      CHECK(size_ratio > 0.6);
      CHECK(size_ratio < 1.6);
    }
  }
}
