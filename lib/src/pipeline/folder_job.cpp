#include "wk/pipeline/folder_job.hpp"

#include <cuda_runtime_api.h>
#include <opencv2/core.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>

#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/io/files.hpp"

namespace fs = std::filesystem;

namespace wk::pipeline {

const char* to_string(FileStatus s) noexcept {
  switch (s) {
    case FileStatus::ok: return "ok";
    case FileStatus::failed: return "failed";
    case FileStatus::skipped: return "skipped";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::uint32_t be32(const std::uint8_t* p) { return (std::uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }
std::uint32_t le32(const std::uint8_t* p) { return (std::uint32_t(p[3]) << 24) | (p[2] << 16) | (p[1] << 8) | p[0]; }

std::optional<std::pair<int, int>> probe_jpeg(std::span<const std::uint8_t> b) {
  std::size_t i = 2;
  while (i + 4 <= b.size()) {
    if (b[i] != 0xFF) return std::nullopt;
    const std::uint8_t m = b[i + 1];
    if (m == 0xFF) { ++i; continue; }  // fill byte
    if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) { i += 2; continue; }
    const std::size_t len = (std::size_t(b[i + 2]) << 8) | b[i + 3];
    const bool sof = (m >= 0xC0 && m <= 0xCF) && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (sof) {
      if (i + 9 > b.size()) return std::nullopt;
      return std::pair<int, int>{(b[i + 7] << 8) | b[i + 8], (b[i + 5] << 8) | b[i + 6]};
    }
    if (m == 0xDA || len < 2) return std::nullopt;  // scan data before any frame header
    i += 2 + len;
  }
  return std::nullopt;
}

std::optional<std::pair<int, int>> probe_pnm(std::span<const std::uint8_t> b) {
  long vals[2] = {0, 0};
  std::size_t i = 2;
  for (long& v : vals) {
    while (i < b.size() && (std::isspace(b[i]) || b[i] == '#')) {
      if (b[i] == '#') while (i < b.size() && b[i] != '\n') ++i;
      else ++i;
    }
    if (i >= b.size() || !std::isdigit(b[i])) return std::nullopt;
    while (i < b.size() && std::isdigit(b[i]) && v < (1L << 31)) v = v * 10 + (b[i++] - '0');
  }
  if (vals[0] >= (1L << 31) || vals[1] >= (1L << 31)) return std::pair<int, int>{INT32_MAX, INT32_MAX};
  return std::pair<int, int>{int(vals[0]), int(vals[1])};
}

// One worker's pipelines: the GPU one on its device, and a CPU one made when first needed
// (--device cpu, or after a GPU failure).
struct WorkerPipelines {
  const FolderJobOptions& opt;
  int device;  // -1: CPU
  std::optional<image::Pipeline> gpu, cpu;
  bool gpu_failed = false;

  image::Pipeline& pick() {
    if (device >= 0 && !gpu_failed) {
      WK_CUDA_CHECK(cudaSetDevice(device));
      if (!gpu) gpu.emplace(opt.pipeline_text, Backend::gpu, opt.pipeline_options);
      return *gpu;
    }
    if (!cpu) cpu.emplace(opt.pipeline_text, Backend::cpu, opt.pipeline_options);
    return *cpu;
  }
  std::string name() const { return device >= 0 && !gpu_failed ? "gpu" + std::to_string(device) : "cpu"; }
};

struct Shared {
  const FolderJobOptions& opt;
  const std::vector<io::InputFile>& files;
  std::vector<fs::path> outputs;
  std::vector<std::string> precheck;  // per file: an error known before starting, or ""
  std::unordered_set<std::string> resume_ok;
  std::mutex side_mutex;
  std::set<fs::path> side_paths;
};

fs::path output_for(const FolderJobOptions& opt, const io::InputFile& in) {
  fs::path out = opt.outdir / in.relative;
  if (!opt.format.empty()) out.replace_extension("." + opt.format);
  return out.lexically_normal();
}

FileRecord process_file(Shared& sh, std::size_t i, WorkerPipelines& wp, const JobCallbacks& cb, std::mutex& cb_mutex) {
  const io::InputFile& in = sh.files[i];
  const fs::path& out = sh.outputs[i];
  const long idx = static_cast<long>(i);
  FileRecord r;
  r.path = in.path.string();
  r.output = out.string();
  nvtx::Range file_range("file", nvtx::Color::app, idx);
  try {
    if (!sh.precheck[i].empty()) throw Error(ErrorCategory::usage, sh.precheck[i]);
    std::error_code ec;
    if (sh.resume_ok.count(r.path)) {
      r.status = FileStatus::skipped;
      r.error = "done in an earlier run (--resume)";
      return r;
    }
    if (fs::exists(out, ec)) {
      if (fs::equivalent(out, in.path, ec))
        throw Error(ErrorCategory::usage, "output would overwrite the input itself; choose another -o folder");
      if (sh.opt.skip_existing) {
        r.status = FileStatus::skipped;
        r.error = "output exists (--skip-existing)";
        return r;
      }
    }
    auto t = Clock::now();
    std::vector<std::uint8_t> bytes;
    {
      nvtx::Range s("read", nvtx::Color::io, idx);
      bytes = io::read_file(in.path);
    }
    r.ms.read = ms_since(t);
    if (auto dims = probe_dimensions(bytes)) {
      r.width = dims->first;
      r.height = dims->second;
      if (double(dims->first) * dims->second > double(sh.opt.max_pixels))
        throw Error(ErrorCategory::decode, std::to_string(dims->first) + "x" + std::to_string(dims->second) +
                                               " pixels is more than --max-pixels " + std::to_string(sh.opt.max_pixels) +
                                               " (a decompression bomb?); not decoded");
    }
    t = Clock::now();
    cv::Mat img;
    {
      nvtx::Range s("decode", nvtx::Color::codec, idx);
      img = io::decode_image(bytes);
    }
    r.ms.decode = ms_since(t);
    r.width = img.cols;
    r.height = img.rows;
    if (double(img.total()) > double(sh.opt.max_pixels))
      throw Error(ErrorCategory::decode, "image has more pixels than --max-pixels " + std::to_string(sh.opt.max_pixels));
    bytes = {};

    t = Clock::now();
    std::vector<image::SideOutput> side;
    cv::Mat result;
    try {
      r.device = wp.name();
      result = wp.pick().run(img, idx, &side);
    } catch (const Error& e) {
      if (e.category() != ErrorCategory::cuda || wp.device < 0 || wp.gpu_failed) throw;
      // A GPU failure (out of memory, a lost device) must not lose the file or crash the job:
      // this worker goes on with the CPU path.
      wp.gpu_failed = true;
      wp.gpu.reset();
      if (cb.on_notice) {
        std::lock_guard<std::mutex> lock(cb_mutex);
        cb.on_notice("GPU " + std::to_string(wp.device) + " failed on " + r.path + " (" + e.what() +
                     "); this worker continues on the CPU");
      }
      side.clear();
      r.device = wp.name();
      result = wp.pick().run(img, idx, &side);
    }
    r.ms.process = ms_since(t);
    img.release();

    t = Clock::now();
    std::vector<std::uint8_t> encoded;
    {
      nvtx::Range s("encode", nvtx::Color::codec, idx);
      encoded = io::encode_image(result, out, sh.opt.encode);
    }
    r.ms.encode = ms_since(t);
    t = Clock::now();
    {
      nvtx::Range s("write", nvtx::Color::io, idx);
      std::vector<fs::path> side_paths;
      for (const auto& so : side) {
        side_paths.push_back(out.parent_path() / (out.stem().string() + so.suffix));
        std::lock_guard<std::mutex> lock(sh.side_mutex);
        if (!sh.side_paths.insert(side_paths.back()).second)
          throw Error(ErrorCategory::usage, "output " + side_paths.back().string() + " was already written from another input");
      }
      io::write_file_atomic(out, encoded);
      for (std::size_t k = 0; k < side.size(); ++k) io::write_file_atomic(side_paths[k], side[k].bytes);
    }
    r.ms.write = ms_since(t);
    r.status = FileStatus::ok;
  } catch (const std::exception& e) {
    r.status = FileStatus::failed;
    std::string msg = e.what();
    if (msg.rfind(r.path, 0) == 0 && msg.size() > r.path.size() + 2) msg = msg.substr(r.path.size() + 2);
    r.error = msg;
  }
  return r;
}

}  // namespace

std::optional<std::pair<int, int>> probe_dimensions(std::span<const std::uint8_t> b) {
  static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (b.size() >= 24 && std::equal(kPng, kPng + 8, b.begin())) {
    const std::uint32_t w = be32(&b[16]), h = be32(&b[20]);
    return std::pair<int, int>{int(std::min<std::uint32_t>(w, INT32_MAX)), int(std::min<std::uint32_t>(h, INT32_MAX))};
  }
  if (b.size() >= 4 && b[0] == 0xFF && b[1] == 0xD8) return probe_jpeg(b);
  if (b.size() >= 26 && b[0] == 'B' && b[1] == 'M') {
    const std::int32_t w = std::int32_t(le32(&b[18])), h = std::int32_t(le32(&b[22]));
    if (w == INT32_MIN || h == INT32_MIN) return std::nullopt;
    return std::pair<int, int>{std::abs(w), std::abs(h)};
  }
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6') return probe_pnm(b);
  return std::nullopt;
}

JobResult run_folder_job(const FolderJobOptions& opt, const std::atomic<bool>* stop, const JobCallbacks& cb) {
  // Bad pipelines and options are usage errors before any file is touched.
  { image::Pipeline validate(opt.pipeline_text, Backend::cpu, opt.pipeline_options); }
  if (opt.max_pixels < 1) throw Error(ErrorCategory::usage, "--max-pixels must be at least 1");
  std::vector<int> gpus = opt.gpus;
  if (opt.backend == Backend::gpu) {
    int count = 0;
    WK_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (gpus.empty())
      for (int d = 0; d < count; ++d) gpus.push_back(d);
    for (int d : gpus)
      if (d < 0 || d >= count)
        throw Error(ErrorCategory::usage, "--gpus: no GPU " + std::to_string(d) + " (this machine has " + std::to_string(count) + ")");
  }
  std::unordered_set<std::string> resume_ok;
  if (!opt.resume_report.empty())
    for (auto& p : ok_inputs_in_report(opt.resume_report)) resume_ok.insert(std::move(p));

  const auto t0 = Clock::now();
  JobResult result;
  io::InputScan scan;
  {
    nvtx::Range r("scan", nvtx::Color::io);
    scan = io::scan_inputs(opt.inputs, opt.outdir);
  }
  result.scan_errors = scan.errors;
  Shared sh{opt, scan.files, {}, {}, std::move(resume_ok), {}, {}};
  std::map<fs::path, std::size_t> first_user;
  for (std::size_t i = 0; i < scan.files.size(); ++i) {
    sh.outputs.push_back(output_for(opt, scan.files[i]));
    auto [it, fresh] = first_user.emplace(sh.outputs.back(), i);
    sh.precheck.push_back(fresh ? "" : "output " + sh.outputs.back().string() + " is also the output of " +
                                           scan.files[it->second].path.string() + " (same name below an input root)");
  }
  if (cb.on_start) cb.on_start(scan.files.size());

  const std::size_t n = scan.files.size();
  const int hw = std::max(1u, std::thread::hardware_concurrency());
  const int workers = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(opt.threads > 0 ? opt.threads : hw, std::max<std::size_t>(n, 1))));
  // Workers give each image one core; OpenCV's own thread pool would oversubscribe them.
  const int saved_cv_threads = cv::getNumThreads();
  if (workers > 1) cv::setNumThreads(1);

  std::vector<std::optional<FileRecord>> records(n);
  std::atomic<std::size_t> next{0};
  std::mutex cb_mutex;
  std::exception_ptr fatal;
  auto worker = [&](int w) {
    WorkerPipelines wp{opt, gpus.empty() ? -1 : gpus[w % gpus.size()], {}, {}, false};
    try {
      for (;;) {
        if (stop && stop->load()) break;
        const std::size_t i = next++;
        if (i >= n) break;
        FileRecord rec = process_file(sh, i, wp, cb, cb_mutex);
        std::lock_guard<std::mutex> lock(cb_mutex);
        records[i] = std::move(rec);
        if (cb.on_file) cb.on_file(*records[i]);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(cb_mutex);
      if (!fatal) fatal = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) pool.emplace_back(worker, w);
  for (auto& t : pool) t.join();
  cv::setNumThreads(saved_cv_threads);
  if (fatal) std::rethrow_exception(fatal);

  JobTotals& tot = result.totals;
  tot.files = n;
  for (auto& r : records) {
    if (!r) { ++tot.not_started; continue; }
    if (r->status == FileStatus::ok) { ++tot.ok; tot.megapixels += double(r->width) * r->height / 1e6; }
    else if (r->status == FileStatus::failed) ++tot.failed;
    else ++tot.skipped;
    result.records.push_back(std::move(*r));
  }
  tot.interrupted = stop && stop->load() && tot.not_started > 0;
  tot.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

std::string report_json(const JobResult& result, const FolderJobOptions& opt) {
  using nlohmann::json;
  json files = json::array();
  for (const auto& r : result.records) {
    json f = {{"path", r.path}, {"output", r.output}, {"status", to_string(r.status)}, {"width", r.width},
              {"height", r.height}, {"device", r.device},
              {"ms", {{"read", r.ms.read}, {"decode", r.ms.decode}, {"process", r.ms.process},
                      {"encode", r.ms.encode}, {"write", r.ms.write}}}};
    if (!r.error.empty()) f["error"] = r.error;
    files.push_back(std::move(f));
  }
  const JobTotals& t = result.totals;
  json j = {{"tool", "wk-image"},
            {"pipeline", opt.pipeline_text},
            {"backend", wk::to_string(opt.backend)},
            {"files", std::move(files)},
            {"input_errors", result.scan_errors},
            {"totals", {{"files", t.files}, {"ok", t.ok}, {"failed", t.failed + result.scan_errors.size()},
                        {"skipped", t.skipped}, {"not_started", t.not_started}, {"interrupted", t.interrupted},
                        {"megapixels", t.megapixels}, {"seconds", t.seconds},
                        {"images_per_second", t.seconds > 0 ? double(t.ok) / t.seconds : 0.0}}}};
  return j.dump(2) + "\n";
}

std::vector<std::string> ok_inputs_in_report(const fs::path& report) {
  const std::vector<std::uint8_t> bytes = io::read_file(report);
  std::vector<std::string> ok;
  try {
    const auto j = nlohmann::json::parse(bytes.begin(), bytes.end());
    // Done: converted in that run, or already done in the run before it (a chain of resumes).
    for (const auto& f : j.at("files"))
      if (f.at("status") == "ok" || (f.at("status") == "skipped" && f.value("error", "").rfind("done in an earlier run", 0) == 0))
        ok.push_back(f.at("path").get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCategory::decode, report.string() + ": not a wk-image report (" + e.what() + ")");
  }
  return ok;
}

}  // namespace wk::pipeline
