// wk-image: run an operation pipeline (gray, gauss, histogram, ...) over image files and folders,
// or over one image from standard input to standard output ("-"). Data goes to standard output
// only (the image of -o -); talk -- notices, progress, the summary, -v's detail -- goes to
// standard error. Argument parsing, printing and exit codes only; the work is in the warpkit library
// (wk/pipeline/folder_job.hpp: worker threads, streams, pinned staging, multi-GPU;
// wk/pipeline/distributed_job.hpp: the same over the ranks of mpirun or srun).
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "app_common.hpp"
#include "help.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/files.hpp"
#include "wk/io/metadata.hpp"
#include "wk/pipeline/distributed_job.hpp"
#include "wk/pipeline/folder_job.hpp"

using namespace wk;

namespace {

constexpr const char* kProg = "wk-image";

std::atomic<bool> g_stop{false};

// A usage error about a field of FolderJobOptions, with this app's flag in the field's place.
std::string with_flag(const pipeline::OptionError& e) {
  static const std::map<std::string, std::string> kFlags{
      {"max_pixels", "--max-pixels"},   {"outdir", "-o"},         {"jpeg_batch", "--jpeg-batch"},
      {"jpeg_decoder", "--jpeg-decoder"}, {"jpeg_encoder", "--jpeg-encoder"}, {"gpus", "--gpus"},
      {"format", "--format"},           {"report", "--report"},   {"skip_existing", "--skip-existing"},
      {"resume_report", "--resume"}};
  const std::string what = e.what();
  const auto it = kFlags.find(e.option());
  if (it == kFlags.end() || what.rfind(e.option(), 0) != 0) return what;
  return it->second + what.substr(e.option().size());
}

// A library message with this app's flags put where it names a setting in its own terms (the
// pixel limit of FolderJobOptions, the CPU backend).
std::string with_flags(std::string message) {
  static const std::pair<std::string_view, std::string_view> kTerms[] = {
      {"the max_pixels limit", "the --max-pixels limit"},
      {"or the CPU backend", "or the CPU backend (--device cpu)"},
      {"(outdir -)", "(-o -)"},
  };
  for (const auto& [term, flag] : kTerms)
    for (auto at = message.find(term); at != std::string::npos; at = message.find(term, at + flag.size()))
      message.replace(at, term.size(), flag);
  return message;
}

// Runs `body` with the library's errors put in this app's terms (with_flag, with_flags).
template <class Body>
auto in_app_terms(Body&& body) {
  try {
    return body();
  } catch (const pipeline::OptionError& e) {
    throw Error(ErrorCategory::usage, with_flags(with_flag(e)));
  } catch (const Error& e) {
    throw Error(e.category(), with_flags(e.what()));
  }
}

// How much talk goes to standard error: none (-q), the usual (notices, progress, the summary) or
// with -v each file's line and the time per stage as well.
enum class Talk { quiet, normal, verbose };

void say(Talk talk, const std::string& message) {
  if (talk != Talk::quiet) wk::app::print_notice(kProg, message);
}

// -v: one line per finished file (failures are errors of their own).
void print_file_line(const pipeline::FileRecord& r) {
  if (r.status == pipeline::FileStatus::failed) return;
  const std::string name = r.path == "-" ? "standard input" : r.path;
  const std::string out = r.output == "-" ? "standard output" : r.output;
  if (r.status == pipeline::FileStatus::skipped || r.earlier_run) {
    wk::app::print_notice(kProg, fmt::format("{}: skipped ({})", name, r.earlier_run ? "done in an earlier run" : r.error));
    return;
  }
  const pipeline::StageMs& ms = r.ms;
  wk::app::print_notice(kProg, fmt::format("{} -> {}: {}x{} on the {} (decoder {}, encoder {}), {:.1f} ms: read {:.1f}, "
                                           "decode {:.1f}, process {:.1f}, encode {:.1f}, write {:.1f}",
                                           name, out.empty() ? "(no image)" : out, r.width, r.height, r.device,
                                           r.decoder.empty() ? "none" : r.decoder, r.encoder.empty() ? "none" : r.encoder,
                                           ms.read + ms.decode + ms.process + ms.encode + ms.write, ms.read, ms.decode,
                                           ms.process, ms.encode, ms.write));
}

// -v at the end: where the time went over this run's files, and when the GPU was ready.
void print_stage_totals(const pipeline::JobResult& result) {
  pipeline::StageMs sum;
  std::size_t files = 0;
  for (const auto& r : result.records) {
    if (r.earlier_run || r.status == pipeline::FileStatus::skipped) continue;
    ++files;
    sum.read += r.ms.read, sum.decode += r.ms.decode, sum.process += r.ms.process;
    sum.encode += r.ms.encode, sum.write += r.ms.write;
  }
  wk::app::print_notice(kProg, fmt::format("time per stage over {} files (summed over the workers): read {:.3f} s, "
                                           "decode {:.3f} s, process {:.3f} s, encode {:.3f} s, write {:.3f} s",
                                           files, sum.read / 1e3, sum.decode / 1e3, sum.process / 1e3,
                                           sum.encode / 1e3, sum.write / 1e3));
  if (result.gpu.ready_s >= 0) wk::app::print_notice(kProg, fmt::format("the GPU was ready after {:.2f} s", result.gpu.ready_s));
}

void print_failure(const pipeline::FileRecord& r) {
  if (r.status == pipeline::FileStatus::failed) wk::app::print_error(kProg, r.path + ": " + with_flags(r.error));
}

// The progress line (on standard error, when it is a terminal): files done of the total, and the
// rate in Mpx/s. -v's per-file lines take its place.
class ProgressLine {
 public:
  explicit ProgressLine(Talk talk) : talk_(talk) {}
  void start(std::size_t total) { bar_ = std::make_unique<wk::app::Progress>(total, "img", talk_ == Talk::normal); }
  void file(const pipeline::FileRecord& r) {
    if (talk_ == Talk::verbose) print_file_line(r);
    if (r.status == pipeline::FileStatus::ok && !r.earlier_run) megapixels_ += double(r.width) * r.height / 1e6;
    bar_->step(fmt::format("{:.0f} Mpx/s", megapixels_ / std::max(bar_->elapsed_s(), 1e-9)));
  }
  void finish() {
    if (bar_) bar_->finish();
  }

 private:
  Talk talk_;
  std::unique_ptr<wk::app::Progress> bar_;
  double megapixels_ = 0;
};

// The end of a job, alone or as rank 0 of several: the listing errors, the report, the summary
// line (`where` the files ran) and the exit status.
int finish_job(const pipeline::JobResult& result, const pipeline::FolderJobOptions& job, const std::string& report,
               Talk talk, const std::string& where) {
  for (const auto& e : result.scan_errors) wk::app::print_error(kProg, e);
  const pipeline::JobTotals& t = result.totals;
  if (!report.empty()) pipeline::write_report(report, result, job);
  const std::size_t failed = t.failed + result.scan_errors.size();
  if (t.files == 0 && failed == 0) {
    wk::app::print_error(kProg, "no image files found in the inputs");
    return wk::app::kSomeFailed;
  }
  if (talk == Talk::verbose) print_stage_totals(result);
  const std::size_t converted = t.ok - t.done_earlier;
  say(talk, fmt::format("{} converted, {} failed{}{}; {:.1f} Mpx in {:.2f} s ({:.1f} img/s, {:.1f} Mpx/s) on {}", converted,
                        failed, t.done_earlier ? fmt::format(", {} done in an earlier run", t.done_earlier) : "",
                        t.skipped ? fmt::format(", {} skipped", t.skipped) : "", t.megapixels, t.seconds,
                        converted / std::max(t.seconds, 1e-9), t.megapixels / std::max(t.seconds, 1e-9), where));
  if (t.interrupted)
    say(talk, fmt::format("interrupted: {} files not started{}", t.not_started,
                          report.empty() ? "" : "; continue with --resume " + report));
  if (t.interrupted) return wk::app::kInterrupted;
  return failed ? wk::app::kSomeFailed : wk::app::kSuccess;
}

// One process: where the files ran is one device, or (auto) the GPU after the CPU took the first ones.
int run_here(const pipeline::FolderJobOptions& job, const BackendSelection& sel, const std::string& report, Talk talk) {
  ProgressLine progress(talk);
  pipeline::JobCallbacks cb;
  cb.on_start = [&](std::size_t total) { progress.start(total); };
  cb.on_file = [&](const pipeline::FileRecord& r) {
    print_failure(r);
    progress.file(r);
  };
  cb.on_notice = [&](const std::string& msg) { say(talk, msg); };

  const pipeline::JobResult result = pipeline::run_folder_job(job, &g_stop, cb);
  progress.finish();
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
  return finish_job(result, job, report, talk, "the " + where);
}

// Rank 0 of a stopped distributed job: what was done and what was in flight, then the end at once
// (mpirun SIGKILLs every rank about a second after a signal: run_distributed_job's contract).
[[noreturn]] void end_stopped_job(const pipeline::DistributedStop& s, const std::string& report) {
  std::string flight;
  for (const auto& c : s.in_flight)
    flight += fmt::format("{}rank {}: files {}..{}", flight.empty() ? "" : "; ", c.rank, c.begin + 1, c.end);
  if (s.temporaries_removed) flight += fmt::format(" ({} temporary files they left removed)", s.temporaries_removed);
  wk::app::print_error(kProg, fmt::format("interrupted: {} of {} files done and reported{}; in flight, to be done again: {}{}",
                                          s.done, s.files, s.report_written ? " (in " + report + ")" : "",
                                          flight.empty() ? "none" : flight,
                                          s.report_written ? "; continue with --resume " + report : ""));
  io::remove_registered_temporaries();
  wk::app::exit_now(wk::app::kInterrupted);
}

// One rank of mpirun / srun: rank 0 shows the one progress line and writes the one report.
int run_distributed(pipeline::FolderJobOptions& job, const std::string& report, Talk talk) {
  const dist::World& world = dist::world();
  // The node's GPUs split over its ranks: by start_world (CUDA_VISIBLE_DEVICES), else here (the
  // user's CUDA_VISIBLE_DEVICES is the same list for every rank).
  if (!wk::app::gpus_split_by_rank()) {
    job.gpu_share_index = world.local_rank;
    job.gpu_share_count = world.local_size;
  }
  // Ranks > 0 end at once on a stop: no temporary file, no new output.
  if (world.rank != 0) wk::app::close_outputs_on_stop();
  ProgressLine progress(talk);
  pipeline::DistributedCallbacks cb;
  cb.on_start = [&](std::size_t total) { progress.start(total); };
  cb.on_merged = [&](const pipeline::FileRecord& r) { progress.file(r); };
  cb.on_file = print_failure;
  cb.on_notice = [&](const std::string& msg) { say(talk, world.rank == 0 ? msg : fmt::format("rank {}: {}", world.rank, msg)); };
  cb.on_checkpoint_error = [](const std::string& msg) { wk::app::print_error(kProg, "report: " + msg); };
  cb.on_stop = [&](const pipeline::DistributedStop& s) { end_stopped_job(s, report); };

  const pipeline::DistributedResult run = pipeline::run_distributed_job(job, g_stop, cb);
  if (world.rank != 0) {
    // A stopped rank > 0 does not exit: mpirun would take a second non-zero exit for a failure and
    // SIGKILL rank 0 before it wrote its report. It waits for mpirun to end the job once rank 0
    // exits (or ends itself after 10 s, when only it was signalled).
    if (run.stopped) std::this_thread::sleep_for(std::chrono::seconds(10));
    return run.stopped ? wk::app::kInterrupted : wk::app::kSuccess;  // rank 0 decides the code
  }
  progress.finish();
  const pipeline::GpuSummary& g = run.result.gpu;
  return finish_job(run.result, job, report, talk,
                    fmt::format("{} ranks ({} files on GPUs, {} on CPUs)", world.size, g.files_gpu, g.files_cpu));
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
  bool quiet = false, verbose = false;
  app.add_option("pipeline", job.pipeline_text, "Operations, comma-separated, run in order (see Operations below)")->required();
  app.add_option("inputs", job.inputs, "Image files and folders; - reads one image from standard input (with -o -)")->required();
  app.add_option("-o,--output", job.outdir,
                 "Output folder (created if missing); - writes the one input's image to standard output (needs --format)")
      ->required();
  wk::app::add_device_option(app, device);
  app.get_option("--device")->description(
      "Where to run: auto (start on the CPU at once, start the GPU meanwhile and hand over to it when it is ready; "
      "the CPU only when there is no usable GPU), gpu (every file on the GPU) or cpu");
  app.add_option("--gpus", gpus, "GPUs to spread images over, e.g. 0,1 (default: all)");
  app.add_option("--threads", job.threads, "Worker threads (default: one per core)")->check(CLI::Range(1, 1024));
  app.add_option("--format", job.format, "Output format for every image: jpg, png, bmp, webp, ... (default: the input's; one this build cannot write is a usage error)");
  int quality = 0;
  app.add_option("--quality", quality,
                 "Quality of lossy outputs, 1-100: JPEG (default 95) and WebP (without --quality, WebP is lossless)")
      ->check(CLI::Range(1, 100));
  app.add_option("--png-level", job.encode.png_level, "PNG compression level: 0 (fastest) to 9 (smallest)")
      ->default_val(3)
      ->check(CLI::Range(0, 9));
  std::string depth, alpha;
  app.add_option("--depth", depth,
                 "8: reduce 16-bit and floating-point inputs to 8 bits (without it, geometry and resize keep them and "
                 "other operations refuse them)")
      ->check(CLI::IsMember({"8"}));
  app.add_option("--alpha", alpha,
                 "drop: remove the alpha channel of inputs that have one (without it, geometry and resize keep it and "
                 "other operations refuse such inputs)")
      ->check(CLI::IsMember({"drop"}));
  app.add_flag("--skip-existing", job.skip_existing, "Leave existing outputs untouched (reported as skipped)");
  app.add_flag("--strip", job.strip,
               "Remove metadata (ICC profile, EXIF, XMP, comments) from the outputs; by default they are carried "
               "over, orientation reset to 1 and sizes updated");
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
  auto* quiet_flag = app.add_flag("-q,--quiet", quiet, "No progress bar, notices or summary (errors still go to standard error)");
  app.add_flag("-v,--verbose", verbose,
               "Also a line per file (size, device, decoder and encoder, time per stage) and the time per stage over "
               "the job, on standard error")
      ->excludes(quiet_flag);
  app.footer(wk_image_help_footer());

  const int code = wk::app::run_app(kProg, app, argc, argv, [&]() -> int {
    nvtx::Range app_range("wk-image");
    if (!job.format.empty() && job.format[0] == '.') job.format.erase(0, 1);
    if (quality) job.encode.jpeg_quality = job.encode.webp_quality = quality;
    job.decode.to_8bit = depth == "8";
    job.decode.drop_alpha = alpha == "drop";
    try {
      job.pipeline_options.border = image::parse_border(border_text);
    } catch (const Error& e) {
      throw Error(e.category(), std::string("--border: ") + e.what());
    }
    try {
      if (!gpus.empty()) job.gpus = parse_gpu_list(gpus);  // "all": empty, every GPU
    } catch (const Error& e) {
      throw Error(e.category(), std::string("--gpus: ") + e.what());
    }
    job.jpeg_decoder = jpeg_decoder == "nvjpeg"   ? pipeline::JpegDecoder::nvjpeg
                       : jpeg_decoder == "opencv" ? pipeline::JpegDecoder::opencv
                                                  : pipeline::JpegDecoder::auto_select;
    job.jpeg_encoder = jpeg_encoder == "nvjpeg"   ? pipeline::JpegEncoder::nvjpeg
                       : jpeg_encoder == "opencv" ? pipeline::JpegEncoder::opencv
                                                  : pipeline::JpegEncoder::auto_select;
    if (report.empty() && !job.resume_report.empty()) report = job.resume_report.string();
    job.report = report;
    if (!memory.empty()) job.memory_budget = wk::app::parse_byte_size(memory, "--memory");
    const Talk talk = quiet ? Talk::quiet : verbose ? Talk::verbose : Talk::normal;
    // Usage errors before anything else: before a backend is chosen, a notice printed or a file touched.
    in_app_terms([&] { pipeline::validate_options(job); });
    if (quiet) wk::app::silence_library_messages();
    // --gpus naming GPUs: before CUDA starts, the runtime is shown only those, so its start
    // initializes only them (about 0.25 s for each GPU it sees); they become devices 0 .. k-1 and
    // the notices and the report keep the ids given. An id that does not exist is left to the
    // job's check, which names it.
    if (!job.gpus.empty() && parse_device_choice(device) != DeviceChoice::cpu && wk::app::restrict_visible_gpus(job.gpus)) {
      job.gpu_labels = job.gpus;
      for (std::size_t i = 0; i < job.gpus.size(); ++i) job.gpus[i] = int(i);
    }
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
    // Once per job (rank 0), not per file: what a build without libexiv2 leaves out.
    if (!job.strip && !io::metadata_supported() && !quiet && dist::world().rank == 0)
      wk::app::print_notice(kProg, "this build has no libexiv2: metadata (ICC, EXIF, XMP) is not carried to the "
                                   "outputs; --strip silences this");
    wk::app::install_interrupt_handlers(&g_stop);
    return in_app_terms([&] {
      return dist::world().distributed() ? run_distributed(job, report, talk) : run_here(job, sel, report, talk);
    });
  });
  // No teardown: every output and the report are renamed into place and what was printed is
  // flushed; destroying the CUDA context and nvJPEG handles (~0.35 s on the H100) would only
  // delay the exit, and a normal exit would first wait for a GPU start-up still running
  // (--device auto, FolderJobOptions::wait_for_gpu_startup).
  wk::app::end_world(code);
}
