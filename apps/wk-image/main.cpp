// wk-image: run an operation pipeline (gray, gauss, histogram, ...) over image files and folders.
// Argument parsing, printing and exit codes only; the work is in the warpkit library
// (wk/pipeline/folder_job.hpp: worker threads, streams, pinned staging, multi-GPU).
#include <fmt/core.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <string>
#include <vector>

#include "app_common.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"
#include "wk/pipeline/folder_job.hpp"

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
  wk-image gray -o out/ photos/ --format png --report run.json
  wk-image gray -o out/ photos/ --resume run.json     finish an interrupted run

Files:
  Folders are searched recursively for images by extension (jpg jpeg jpe png bmp dib tif tiff
  webp pbm pgm ppm pnm pxm pfm sr ras jp2, any case); a file named directly is read whatever
  its extension. The format is taken from the content and must be one of those (its size is
  checked against --max-pixels before decoding); Radiance HDR, DICOM, OpenEXR and the rest of
  OpenCV's decoders are refused (damaged HDR files leak descriptors, GDCM can abort). Outputs mirror each input's path below its root in OUTDIR, with the
  same name and format (or --format's).
  Decoding is cv::imread(IMREAD_COLOR) except that 1-channel images stay 1-channel: 8-bit,
  EXIF orientation applied, alpha dropped (GPU JPEG decode: see below). Lossless outputs
  (PNG, BMP, PNM, TIFF, WebP lossless) are bit-identical to OpenCV's result (a gray .ppm holds
  the gray value in all three channels, since PPM is colour-only); JPEG outputs use quality 95
  unless --quality says otherwise.
  An existing output is replaced atomically (an unnamed temporary file in the same folder,
  fsync'ed, then renamed over it: never half-written, nothing left after a crash) unless
  --skip-existing; an output that is a symbolic link has its target replaced. Before any work,
  every output (and the --report file) is checked against every input: a job that would
  overwrite an input (a.jpg -> a.png beside a.png, -o the input folder) is a usage error.
  A folder that cannot be read is an error of its own (named, exit status 1); the walk goes on.
  Links to folders are not followed. The same file named twice is converted once.
  Bad inputs (truncated JPEG without end-of-image marker, empty file, non-image, unreadable or
  special file, more pixels than --max-pixels) are reported with the file name and reason;
  every other file is still processed and nothing half-written is left behind.

Speed:
  Worker threads (--threads, one per core by default) read, decode, encode and write in
  parallel; each owns pinned staging buffers, and the workers of a GPU share two CUDA streams,
  so uploads, kernels and downloads of different images overlap, spread over --gpus. A GPU
  failure (out of memory) moves that worker to the CPU path; no file is lost.
  --device auto (the default) never waits for the GPU: the workers start on the CPU at once
  while the GPU (CUDA context, nvJPEG, a first decode: ~1 s) starts on a background thread,
  then hand over to it; the first files' outputs are those of --device cpu, and the report
  says per file which device did it. A job the CPU alone ends within about a second (estimated
  from the input sizes) does not start the GPU at all. --device gpu puts every file on the GPU
  and waits for it; --device cpu never touches it.

GPU JPEG decode and encode (nvJPEG; this build: %NVJPEG%):
  On the GPU backend of a build with nvJPEG (auto, the default, or --jpeg-decoder nvjpeg), the
  workers hand JPEG inputs to one decoding thread per GPU, which decodes them in batches of up
  to --jpeg-batch (the hardware JPEG decoder where the GPU has one, as A100/H100) straight into
  GPU memory: no upload. JPEG outputs (auto, or --jpeg-encoder nvjpeg) are encoded on the GPU
  with OpenCV's settings (baseline, standard Huffman tables, 4:2:0 chroma, --quality), and only
  the compressed bytes come back. Pixels and bytes then differ from OpenCV's by rounding
  (another IDCT and colour conversion): --jpeg-decoder opencv --jpeg-encoder opencv gives
  outputs identical to --device cpu. JPEGs that nvJPEG would decode differently or not at all
  (progressive ones on the hardware decoder, CMYK/YCCK, 12-bit, EXIF-rotated, RGB-coded) and
  any file nvJPEG rejects are decoded by OpenCV, one by one, so a bad file fails alone. The
  report's "decoder" and "encoder" say which each file got.

Report (--report FILE): JSON {"files": [{"path", "output", "status": ok|failed|skipped,
  "error", "width", "height", "device", "decoder": opencv|nvjpeg-hw|nvjpeg, "encoder":
  opencv|nvjpeg, "finished_s" (seconds from the start), "ms": {"read",
  "decode", "process", "encode", "write"}}], "input_errors": [...], "totals": {...}, "gpu":
  {"ready_s", "files_cpu", "files_gpu", "decode_busy_s", "decode_starved_s", ...} (auto and
  gpu: when the GPU took files, how many each device did, the nvJPEG decoder's time)}, written
  atomically at the end, also after Ctrl-C. For nvJPEG files "decode" is an equal share of
  their batch's decode time. A file name that is not UTF-8 has U+FFFD for its bad bytes in
  "path" and its exact bytes in "path_hex". --resume FILE skips the inputs that FILE lists as
  done by a job with the same settings (pipeline, --border, --plot, --format, --quality) into
  the same output, when that output still exists and the input has the size and modification
  time the report recorded; the others are done again (a notice says why), and the new report
  goes to FILE unless --report says otherwise.

Many machines (MPI): mpirun -np N wk-image ... (or srun) runs one job over N ranks: rank 0 lists
  the inputs and deals chunks of them on demand, every rank converts its chunks on its node's
  GPUs (split over the node's ranks) or CPU and writes their outputs (a shared file system), and
  rank 0 shows the one progress line and writes the one --report. docs/scale-out.md.

Interrupting (Ctrl-C, SIGTERM, SIGHUP: a closed terminal) stops cleanly: files in flight finish,
no partial files remain, the report says what was done. A second signal ends at once (no
temporary file left, no report).

Memory: images in flight (compressed, decoded, results) stay within --memory over all workers;
a worker waits for room, and an image larger than the whole budget runs alone.
-q silences notices, the summary and the decoders' own warnings (libpng, libjpeg); errors
still go to standard error, names with control characters shown escaped.

Environment: wk-image sets CUDA_DEVICE_MAX_CONNECTIONS=12 (work queues per GPU context; with
  the driver's default 8 the workers' streams and the JPEG decoder wait on each other; each
  queue more costs ~13 ms of start-up) unless it is set already: set it yourself to keep
  another value (1-32; e.g. under MPS).

Exit status: 0 all inputs succeeded (or were skipped), 1 some failed, 2 usage error,
130 interrupted.)";

std::atomic<bool> g_stop{false};

// A usage error about a field of FolderJobOptions, with this app's flag in the field's place.
std::string with_flag(const pipeline::OptionError& e) {
  static const std::map<std::string, std::string> kFlags{
      {"max_pixels", "--max-pixels"}, {"outdir", "-o"}, {"jpeg_batch", "--jpeg-batch"},
      {"jpeg_decoder", "--jpeg-decoder"}, {"jpeg_encoder", "--jpeg-encoder"}, {"gpus", "--gpus"}};
  const std::string what = e.what();
  const auto it = kFlags.find(e.option());
  if (it == kFlags.end() || what.rfind(e.option(), 0) != 0) return what;
  return it->second + what.substr(e.option().size());
}

// The end of a job, alone or as rank 0 of several: the listing errors, the report, the summary
// line (`where` the files ran) and the exit status.
int finish_job(const pipeline::JobResult& result, const pipeline::FolderJobOptions& job, const std::string& report,
               bool quiet, const std::string& where) {
  for (const auto& e : result.scan_errors) wk::app::print_error(kProg, e);
  const pipeline::JobTotals& t = result.totals;
  if (!report.empty()) pipeline::write_report(report, result, job);
  const std::size_t failed = t.failed + result.scan_errors.size();
  if (t.files == 0 && failed == 0) {
    wk::app::print_error(kProg, "no image files found in the inputs");
    return wk::app::kSomeFailed;
  }
  if (!quiet) {
    fmt::print("{}: {} converted, {} failed{}; {:.1f} Mpx in {:.2f} s ({:.1f} img/s, {:.1f} Mpx/s) on {}\n", kProg, t.ok,
               failed, t.skipped ? fmt::format(", {} skipped", t.skipped) : "", t.megapixels, t.seconds,
               t.ok / std::max(t.seconds, 1e-9), t.megapixels / std::max(t.seconds, 1e-9), where);
    if (t.interrupted)
      fmt::print("{}: interrupted: {} files not started{}\n", kProg, t.not_started,
                 report.empty() ? "" : "; continue with --resume " + report);
  }
  if (t.interrupted) return wk::app::kInterrupted;
  return failed ? wk::app::kSomeFailed : wk::app::kSuccess;
}

// ---- distributed runs (mpirun / srun: wk::dist) ------------------------------------------------
// Rank 0 lists the inputs once and sends the list to every rank; it deals chunks of about equal
// bytes on demand (a slow rank takes fewer); each rank converts its chunks on its node's GPU(s) or
// CPU, writes their outputs itself (a shared file system) and sends their records back; rank 0
// shows the one progress line and writes the one report.

// The list as bytes: count, then per file its path and relative path; then the listing errors;
// then (--resume) the inputs the earlier report lists as done.
std::string pack_scan(const io::InputScan& scan, const std::vector<std::string>& resume_done) {
  std::string out;
  auto put = [&out](std::string_view s) {
    const std::uint64_t n = s.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n).append(s);
  };
  put(std::to_string(scan.files.size()));
  for (const auto& f : scan.files) {
    put(f.path.native());
    put(f.relative.native());
  }
  put(std::to_string(scan.errors.size()));
  for (const auto& e : scan.errors) put(e);
  put(std::to_string(resume_done.size()));
  for (const auto& p : resume_done) put(p);
  return out;
}

io::InputScan unpack_scan(std::string_view in, std::vector<std::string>& resume_done) {
  auto get = [&in]() {
    std::uint64_t n = 0;
    if (in.size() < sizeof n) throw Error(ErrorCategory::internal, "a truncated file list from rank 0");
    std::memcpy(&n, in.data(), sizeof n);
    if (in.size() - sizeof n < n) throw Error(ErrorCategory::internal, "a truncated file list from rank 0");
    std::string s(in.substr(sizeof n, n));
    in.remove_prefix(sizeof n + n);
    return s;
  };
  io::InputScan scan;
  for (std::size_t i = 0, n = std::stoull(get()); i < n; ++i) {
    io::InputFile f;
    f.path = get();
    f.relative = get();
    scan.files.push_back(std::move(f));
  }
  for (std::size_t i = 0, n = std::stoull(get()); i < n; ++i) scan.errors.push_back(get());
  for (std::size_t i = 0, n = std::stoull(get()); i < n; ++i) resume_done.push_back(get());
  return scan;
}

// A chunk's records: per line, the file's index, a space, the record's JSON.
std::string pack_records(const std::vector<std::pair<std::size_t, pipeline::FileRecord>>& records) {
  std::string out;
  for (const auto& [i, r] : records) out.append(std::to_string(i)).append(" ").append(pipeline::record_json(r)).append("\n");
  return out;
}

int run_distributed(pipeline::FolderJobOptions& job, const std::string& report, bool quiet) {
  const dist::World& world = dist::world();
  const bool speaks = world.rank == 0;
  const auto t0 = std::chrono::steady_clock::now();
  // The list, made once.
  std::string listed;
  if (speaks) {
    nvtx::Range r("scan", nvtx::Color::io);
    const io::InputScan scan = io::scan_inputs(job.inputs, job.outdir);
    for (const auto& notice : scan.notices)
      if (!quiet) wk::app::print_notice(kProg, notice);
    std::vector<std::string> skip, notices;
    if (!job.resume_report.empty())
      skip = pipeline::inputs_to_skip(job, scan.files, pipeline::read_earlier_report(job.resume_report), &notices);
    for (const auto& notice : notices)
      if (!quiet) wk::app::print_notice(kProg, notice);
    listed = pack_scan(scan, skip);
  }
  dist::broadcast(listed);
  pipeline::FileSource source;
  source.listed = unpack_scan(listed, source.resume_done);
  listed = {};
  const std::size_t n = source.listed.files.size();

  // Chunks of about equal bytes, ~16 per rank; rank 0 collects the records of each.
  dist::ChunkDealer::Options o;
  if (speaks) {
    std::vector<std::uint64_t> bytes(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::error_code ec;
      const auto size = fs::file_size(source.listed.files[i].path, ec);
      bytes[i] = ec ? 1 : std::max<std::uint64_t>(1, size);
    }
    o.bounds = dist::chunk_bounds(bytes, std::size_t(world.size) * 16);
  }
  std::vector<std::optional<pipeline::FileRecord>> merged(speaks ? n : 0);
  const std::unordered_set<std::string> done_before(source.resume_done.begin(), source.resume_done.end());
  std::mutex merged_mutex;  // deliver (service thread, workers) vs. the checkpoints
  bool merged_changed = false;
  std::unique_ptr<wk::app::Progress> progress;
  if (speaks) progress = std::make_unique<wk::app::Progress>(n, "img", !quiet);
  double megapixels = 0;
  // The report from what rank 0 holds (final: after every rank reported, or gave up on).
  auto report_now = [&](bool final) {
    pipeline::JobResult result;
    result.scan_errors = source.listed.errors;
    {
      std::lock_guard lock(merged_mutex);
      for (std::size_t i = 0; i < n; ++i) {
        if (merged[i]) {
          result.records.push_back(*merged[i]);
        } else if (done_before.count(source.listed.files[i].path.string())) {
          // Not reached (yet): still done in the earlier run, so a later --resume skips it too.
          result.records.push_back(pipeline::done_in_earlier_run(job, source.listed.files[i]));
        }
      }
      merged_changed = false;
    }
    pipeline::tally(result, n);
    result.totals.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.totals.interrupted = !final || result.totals.not_started > 0;
    return result;
  };
  o.deliver = [&](const dist::Chunk&, int, std::string&& payload) {
    std::lock_guard lock(merged_mutex);
    merged_changed = true;
    std::string_view rest = payload;
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n'), sp = rest.find(' ');
      if (nl == std::string_view::npos || sp > nl) throw Error(ErrorCategory::internal, "a malformed chunk report");
      const std::size_t i = std::stoull(std::string(rest.substr(0, sp)));
      if (i >= n) throw Error(ErrorCategory::internal, "a chunk report for an unknown file");
      merged[i] = pipeline::record_from_json(rest.substr(sp + 1, nl - sp - 1));
      if (merged[i]->status == pipeline::FileStatus::ok) megapixels += double(merged[i]->width) * merged[i]->height / 1e6;
      progress->step(fmt::format("{:.0f} Mpx/s", megapixels / std::max(progress->elapsed_s(), 1e-9)));
      rest.remove_prefix(nl + 1);
    }
  };
  o.stop = &g_stop;
  dist::ChunkDealer dealer(std::move(o));
  // Rank 0's watcher: with --report, checkpoints of the report (what is done so far) every half
  // second or more (at most ~10 % of a core for a long list); and on SIGINT/SIGTERM the end of the
  // job. mpirun SIGKILLs every rank about a second after one rank dies or it is interrupted itself,
  // too soon to finish files in flight, so a stopped distributed job ends at once: rank 0 writes
  // the report (files finished and reported so far), says which chunks were in flight, removes
  // its temporary files and exits 130; the other ranks end at once on the signal (their files in
  // flight are simply done again by --resume). No partial output remains: outputs are renamed
  // into place whole.
  std::atomic<bool> ended{false};
  std::thread watcher;
  if (speaks)
    watcher = std::thread([&] {
      auto due = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
      while (!ended) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const auto now = std::chrono::steady_clock::now();
        if (!g_stop && (report.empty() || now < due)) continue;
        bool changed;
        {
          std::lock_guard lock(merged_mutex);
          changed = merged_changed;
        }
        std::string error;
        if (!report.empty() && (changed || g_stop)) {
          try {
            pipeline::write_report(report, report_now(false), job);
          } catch (const std::exception& e) {
            error = e.what();
            wk::app::print_error(kProg, "report: " + error);
          }
        }
        if (g_stop) {
          // The chunks in flight: their ranks end at once (removing their temporary files), but
          // one that was killed cannot; remove what it left beside those outputs.
          std::string flight;
          std::size_t done = 0, cleaned = 0;
          {
            std::lock_guard lock(merged_mutex);
            for (const auto& r : merged) done += r.has_value();
            for (const auto& m : dealer.outstanding()) {
              flight += fmt::format("{}rank {}: files {}..{}", flight.empty() ? "" : "; ", m.rank, m.chunk.begin + 1,
                                    m.chunk.end);
              for (std::size_t i = m.chunk.begin; i < m.chunk.end; ++i)
                if (!merged[i] && m.rank != 0)
                  cleaned += pipeline::remove_stale_temporaries(pipeline::output_path(job, source.listed.files[i]));
            }
          }
          if (cleaned) flight += fmt::format(" ({} temporary files they left removed)", cleaned);
          wk::app::print_error(
              kProg, fmt::format("interrupted: {} of {} files done and reported{}; in flight, to be done again: {}{}",
                                 done, n, report.empty() || !error.empty() ? "" : " (in " + report + ")",
                                 flight.empty() ? "none" : flight,
                                 report.empty() || !error.empty() ? "" : "; continue with --resume " + report));
          io::remove_registered_temporaries();
          wk::app::exit_now(wk::app::kInterrupted);
        }
        due = std::chrono::steady_clock::now() +
              std::max(std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::milliseconds(500)),
                       10 * (std::chrono::steady_clock::now() - now));
      }
    });
  else
    wk::app::close_outputs_on_stop();  // ranks > 0: on SIGINT/SIGTERM no temporary file, no new output
  struct JoinWatcher {
    std::atomic<bool>& ended;
    std::thread& t;
    ~JoinWatcher() {
      ended = true;
      if (t.joinable()) t.join();
    }
  } join_watcher{ended, watcher};

  std::mutex chunks_mutex;
  std::map<std::size_t, dist::Chunk> chunk_at;  // dealt here, by first file
  source.next = [&]() -> std::optional<std::pair<std::size_t, std::size_t>> {
    const auto c = dealer.next();
    if (!c) return std::nullopt;
    std::lock_guard lock(chunks_mutex);
    chunk_at[c->begin] = *c;
    return std::make_pair(c->begin, c->end);
  };
  source.range_done = [&](std::pair<std::size_t, std::size_t> range,
                          std::vector<std::pair<std::size_t, pipeline::FileRecord>>&& records) {
    dist::Chunk c;
    {
      std::lock_guard lock(chunks_mutex);
      c = chunk_at.at(range.first);
    }
    dealer.done(c, pack_records(records));
  };

  // The node's GPUs split over its ranks: by start_world (CUDA_VISIBLE_DEVICES), else here (the
  // user's CUDA_VISIBLE_DEVICES is the same list for every rank).
  if (!wk::app::gpus_split_by_rank()) {
    job.gpu_share_index = world.local_rank;
    job.gpu_share_count = world.local_size;
  }
  pipeline::JobCallbacks cb;
  cb.on_file = [&](const pipeline::FileRecord& r) {
    if (r.status == pipeline::FileStatus::failed) wk::app::print_error(kProg, r.path + ": " + r.error);
  };
  cb.on_notice = [&](const std::string& msg) {
    if (!quiet) wk::app::print_notice(kProg, speaks ? msg : fmt::format("rank {}: {}", world.rank, msg));
  };
  pipeline::JobResult mine = pipeline::run_folder_job(job, &g_stop, cb, &source);
  // A stopped rank > 0 does not exit: mpirun would take a second non-zero exit for a failure and
  // SIGKILL rank 0 before it wrote its report. It waits for mpirun to end the job once rank 0
  // exits (or ends itself after 10 s, when only it was signalled).
  if (!speaks && g_stop) {
    std::this_thread::sleep_for(std::chrono::seconds(10));
    return wk::app::kInterrupted;
  }
  // Every rank reported (a stop on rank 0 ends the process in the watcher, above).
  (void)dealer.finish();
  if (!speaks) return wk::app::kSuccess;  // rank 0 decides the code
  ended = true;
  if (watcher.joinable()) watcher.join();
  if (progress) progress->finish();

  // The one report: every rank's records in input order.
  pipeline::JobResult result = report_now(true);
  result.gpu.ready_s = mine.gpu.ready_s;
  result.gpu.not_used = mine.gpu.not_used;
  result.gpu.decode_warm_up = mine.gpu.decode_warm_up;
  result.gpu.gpu_name = mine.gpu.gpu_name;
  return finish_job(result, job, report, quiet,
                    fmt::format("{} ranks ({} files on GPUs, {} on CPUs)", world.size, result.gpu.files_gpu,
                                result.gpu.files_cpu));
}

}  // namespace

int main(int argc, char** argv) {
  wk::app::widen_gpu_work_queues();  // the workers' streams and nvJPEG's decoder, each its own queue
  wk::app::keep_freed_buffers();     // a few image buffers per file and worker
  // mpirun / srun: this process is one rank of several
  if (const int code = wk::app::start_world(kProg, &argc, &argv); code != wk::app::kSuccess) return code;
  CLI::App app{"wk-image: run an operation pipeline over image files and folders, on the GPU or the CPU"};
  pipeline::FolderJobOptions job;
  std::string device, border_text = "reflect101", gpus, report, jpeg_decoder = "auto", jpeg_encoder = "auto";
  bool quiet = false;
  app.add_option("pipeline", job.pipeline_text, "Operations, comma-separated, run in order (see Operations below)")->required();
  app.add_option("inputs", job.inputs, "Image files and folders")->required();
  app.add_option("-o,--output", job.outdir, "Output folder (created if missing)")->required();
  wk::app::add_device_option(app, device);
  app.get_option("--device")->description(
      "Where to run: auto (start on the CPU at once, start the GPU meanwhile and hand over to it when it is ready; "
      "the CPU only when there is no usable GPU), gpu (every file on the GPU) or cpu");
  app.add_option("--gpus", gpus, "GPUs to spread images over, e.g. 0,1 (default: all)");
  app.add_option("--threads", job.threads, "Worker threads (default: one per core)")->check(CLI::Range(1, 1024));
  app.add_option("--format", job.format, "Output format for every image: jpg, png, bmp, ... (default: the input's)");
  app.add_option("--quality", job.encode.jpeg_quality, "JPEG quality of .jpg outputs")->default_val(95)->check(CLI::Range(1, 100));
  app.add_flag("--skip-existing", job.skip_existing, "Leave existing outputs untouched (reported as skipped)");
  app.add_option("--report", report, "Write a JSON report of every file and the totals");
  app.add_option("--resume", job.resume_report, "Skip the inputs this earlier report lists as done")->check(CLI::ExistingFile);
  app.add_option("--max-pixels", job.max_pixels, "Refuse images with more pixels (decompression bombs)")
      ->default_val(1LL << 28);
  std::string memory;
  app.add_option("--memory", memory,
                 "Host memory for images in flight over all workers, e.g. 2G or 512M (default: half the machine's); "
                 "workers wait rather than go beyond it");
  app.add_option("--jpeg-decoder", jpeg_decoder,
                 "GPU backend: who decodes JPEGs: auto (nvJPEG when built in), nvjpeg or opencv")
      ->default_val("auto")
      ->check(CLI::IsMember({"auto", "nvjpeg", "opencv"}));
  app.add_option("--jpeg-encoder", jpeg_encoder,
                 "GPU backend: who encodes JPEG outputs: auto (nvJPEG when built in), nvjpeg or opencv")
      ->default_val("auto")
      ->check(CLI::IsMember({"auto", "nvjpeg", "opencv"}));
  app.add_option("--jpeg-batch", job.jpeg_batch, "nvJPEG: the most JPEGs per batched GPU decode (per GPU)")
      ->default_val(64)
      ->check(CLI::Range(1, 4096));
  app.add_option("--border", border_text, "Border of the convolution family: replicate, reflect, reflect101, constant:V or wrap")
      ->default_val("reflect101");
  app.add_flag("--plot", job.pipeline_options.plot, "histogram: also write NAME.hist.png, a bar chart");
  app.add_flag("-q,--quiet", quiet, "No progress bar, notices or summary");
  std::string footer = kFooter;
  footer.replace(footer.find("%NVJPEG%"), 8, pipeline::nvjpeg_in_build() ? "built in" : "not built in");
  app.footer(footer + "\n\nOperations:\n" + image::operations_help());

  const int code = wk::app::run_app(kProg, app, argc, argv, [&]() -> int {
    nvtx::Range app_range("wk-image");
    if (!job.format.empty() && job.format[0] == '.') job.format.erase(0, 1);
    job.pipeline_options.border = image::parse_border(border_text);
    if (!gpus.empty()) job.gpus = parse_gpu_list(gpus);  // "all": empty, every GPU
    job.jpeg_decoder = jpeg_decoder == "nvjpeg"   ? pipeline::JpegDecoder::nvjpeg
                       : jpeg_decoder == "opencv" ? pipeline::JpegDecoder::opencv
                                                  : pipeline::JpegDecoder::auto_select;
    job.jpeg_encoder = jpeg_encoder == "nvjpeg"   ? pipeline::JpegEncoder::nvjpeg
                       : jpeg_encoder == "opencv" ? pipeline::JpegEncoder::opencv
                                                  : pipeline::JpegEncoder::auto_select;
    if (report.empty() && !job.resume_report.empty()) report = job.resume_report.string();
    job.report = report;
    if (!memory.empty()) job.memory_budget = wk::app::parse_byte_size(memory, "--memory");
    if (quiet) wk::app::silence_library_messages();
    // auto: the GPU backend begun on the CPU (FolderJobOptions::start_on_cpu): no CUDA call
    // before the first file; the start-up thread says on the notice line when there is no GPU.
    BackendSelection sel;
    if (parse_device_choice(device) == DeviceChoice::automatic) {
      job.backend = Backend::gpu;
      job.start_on_cpu = true;
      // exit_now below does not wait for a GPU start-up still running; a clean exit waits here.
      job.wait_for_gpu_startup = wk::app::clean_exit_wanted();
    } else {
      sel = wk::app::choose_backend(kProg, device, quiet);
      job.backend = sel.backend;
    }
    wk::app::install_interrupt_handlers(&g_stop);
    if (dist::world().distributed()) {
      try {
        return run_distributed(job, report, quiet);
      } catch (const pipeline::OptionError& e) {
        throw Error(ErrorCategory::usage, with_flag(e));
      }
    }

    std::unique_ptr<wk::app::Progress> progress;
    double megapixels = 0;
    pipeline::JobCallbacks cb;
    cb.on_start = [&](std::size_t total) { progress = std::make_unique<wk::app::Progress>(total, "img", !quiet); };
    cb.on_file = [&](const pipeline::FileRecord& r) {
      if (r.status == pipeline::FileStatus::failed) wk::app::print_error(kProg, r.path + ": " + r.error);
      if (r.status == pipeline::FileStatus::ok) megapixels += double(r.width) * r.height / 1e6;
      progress->step(fmt::format("{:.0f} Mpx/s", megapixels / std::max(progress->elapsed_s(), 1e-9)));
    };
    cb.on_notice = [&](const std::string& msg) { if (!quiet) wk::app::print_notice(kProg, msg); };

    pipeline::JobResult result;
    try {
      result = pipeline::run_folder_job(job, &g_stop, cb);
    } catch (const pipeline::OptionError& e) {
      throw Error(ErrorCategory::usage, with_flag(e));
    }
    if (progress) progress->finish();
    // Where the files ran: one device, or (auto) the GPU after the CPU took the first ones.
    const pipeline::GpuSummary& g = result.gpu;
    std::string where = to_string(sel.backend);
    if (!sel.gpu.name.empty()) where += " (" + sel.gpu.name + ")";
    if (job.start_on_cpu) {
      const std::string gpu = "gpu" + (g.gpu_name.empty() ? std::string() : " (" + g.gpu_name + ")");
      where = g.files_gpu == 0   ? std::string("cpu") + (g.not_used.empty() || g.not_used.rfind("no usable", 0) == 0
                                                            ? ""
                                                            : " (" + g.not_used + ")")
              : g.files_cpu == 0 ? gpu
                                 : fmt::format("{}, the first {} files on the cpu while it started ({:.2f} s)", gpu,
                                               g.files_cpu, g.ready_s);
    }
    return finish_job(result, job, report, quiet, "the " + where);
  });
  // No teardown: every output and the report are renamed into place and what was printed is
  // flushed; destroying the CUDA context and nvJPEG handles (~0.35 s on the H100) would only
  // delay the exit, and a normal exit would first wait for a GPU start-up still running
  // (--device auto, FolderJobOptions::wait_for_gpu_startup).
  wk::app::end_world(code);
}
