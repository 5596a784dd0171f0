#pragma once
// The wk-image job over files and folders: list → read + decode → (upload → operations →
// download) → encode + write, overlapped. A pool of worker threads (one per core by default)
// each owns a Pipeline, i.e. its own CUDA stream, pinned staging buffers and device buffers, so
// uploads, kernels and downloads of different images overlap on the GPU(s) while other workers
// decode and encode on the CPU. With nvJPEG (GPU backend): workers read and check JPEG inputs
// and hand them to their GPU's decoding thread, which decodes them in batches straight into
// device buffers (no upload); workers take the decoded images back, run the operations and, for
// JPEG outputs, encode on the GPU and download only the compressed bytes. Memory stays bounded
// for any folder: one image per worker, plus per GPU at most 2 x jpeg_batch JPEGs waiting to be
// decoded and 2 x jpeg_batch decoded ones (and a quarter of the GPU's free memory).
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wk/core/backend.hpp"
#include "wk/core/error.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/files.hpp"
#include "wk/io/image_codec.hpp"

namespace wk::pipeline {

// Who decodes JPEG inputs on the GPU backend. auto and nvjpeg: nvJPEG where the build has it
// (one decoding thread per GPU, batches of jpeg_batch, the hardware JPEG decoder where the GPU
// has one); auto falls back to OpenCV silently in builds without nvJPEG, nvjpeg makes that a
// usage error; opencv: OpenCV on the worker threads for every file (bit-identical to the CPU
// backend). nvJPEG's IDCT and colour conversion differ from libjpeg's by a few levels at most.
// JPEGs nvJPEG would decode differently (progressive on the hardware decoder, CMYK,
// EXIF-rotated, ...) and files it rejects go through OpenCV. The CPU backend always uses OpenCV.
enum class JpegDecoder { auto_select, opencv, nvjpeg };

// Who encodes JPEG outputs on the GPU backend: auto and nvjpeg: nvJPEG on the GPU where the build
// has it (only the compressed bytes are downloaded), as decoder; opencv: OpenCV on the worker
// threads (bit-identical to the CPU backend).
enum class JpegEncoder { auto_select, opencv, nvjpeg };

struct FolderJobOptions {
  std::string pipeline_text;
  image::PipelineOptions pipeline_options;
  Backend backend = Backend::cpu;
  std::vector<int> gpus;                // CUDA device ids (GPU backend); empty: every visible device
  // The id CUDA device d has in notices and the report ("gpu<id>"): gpu_labels[d], d itself when
  // there is none. wk-image sets them when --gpus shows the runtime only the GPUs named.
  std::vector<int> gpu_labels;
  int gpu_label(int device) const { return wk::gpu_label(gpu_labels, device); }
  // Files and folders. "-" is standard input, read whole and decoded from memory (JPEG 2000, Sun
  // raster and PFM, which OpenCV decodes only from files, are refused); it must be the only input
  // and go to standard output (outdir "-").
  std::vector<std::string> inputs;
  // The output folder. "-" is standard output: the one image of exactly one input file (or "-")
  // in `format` (there is no file name whose extension would choose the encoder); pipelines that
  // write side files (hist) cannot go there, nor can skip_existing or resume_report apply.
  std::filesystem::path outdir;
  std::string format;                   // output extension ("png", "jpg"); empty: the input's
  io::EncodeOptions encode;
  // 16-bit and alpha inputs: converted only when these say so (--depth 8, --alpha drop), else
  // refused per file. jpeg_shrink is set per file from the pipeline (thumbnail), not here.
  io::DecodeOptions decode;
  bool skip_existing = false;           // leave existing outputs untouched
  // Metadata of each input (ICC profile, EXIF, IPTC, XMP, comment) is carried to its output when
  // the build has libexiv2 (io::metadata_supported()), orientation reset and sizes updated
  // (io::apply_metadata); true writes outputs without any (like mogrify -strip).
  bool strip = false;
  std::filesystem::path resume_report;  // skip inputs this earlier report lists as done
  int threads = 0;                      // workers; 0: one per core
  long long max_pixels = 1LL << 28;     // per image (268 Mpx); guards against decompression bombs
  JpegDecoder jpeg_decoder = JpegDecoder::auto_select;
  JpegEncoder jpeg_encoder = JpegEncoder::auto_select;
  int jpeg_batch = 64;                  // nvJPEG: the most JPEGs per batched decode call (per GPU)
  // GPU backend only: begin on the CPU while the GPU starts. The CUDA context, the nvJPEG
  // handles, a first decode and the kernels start on a background thread; until they are ready
  // the workers take whole files on the CPU (OpenCV codecs, CPU operations: outputs bit-identical
  // to Backend::cpu), then each hands over to the GPU after its file in hand. No usable GPU: the whole job runs on the CPU, and on_notice says why. A job that ends
  // before the GPU is ready never waits for it (one small file costs what it costs on the CPU).
  bool start_on_cpu = false;
  // start_on_cpu: whether run_folder_job waits, before it returns, for a GPU start-up still in
  // progress (the result's GpuSummary then says when the GPU was ready, and what the start-up made
  // is released before it returns). false: it returns without waiting; the start-up goes on, on a
  // thread of its own that owns what it made and releases it when it ends. Either way the caller
  // may go on, and the process may exit normally (an exit handler of the library first waits for
  // such a start-up to end: up to about a second) or at once with _exit or quick_exit (every
  // output is complete when run_folder_job returns; nothing else is left to write). false saves
  // that wait in a process that ends quickly after the job.
  bool wait_for_gpu_startup = true;
  // This process's share of the GPUs when several processes share a node (MPI ranks: index = the
  // node-local rank, count = ranks on the node). With `gpus` empty, the process takes the visible
  // GPUs g with g % count == index % count, or GPU index % (GPU count) when there are fewer GPUs
  // than processes (they then share it). count 1: every GPU.
  int gpu_share_index = 0, gpu_share_count = 1;
  // Bytes of images in host memory at once over all workers (the compressed file, the decoded
  // image and the operations' results, estimated from the header before decoding): a worker
  // waits rather than go beyond it; an image larger than the whole budget runs alone.
  // 0: half the machine's physical memory.
  std::uint64_t memory_budget = 0;
  // The report the caller will write (only checked: it must be no input and no output).
  std::filesystem::path report;
};


enum class FileStatus { ok, failed, skipped };
const char* to_string(FileStatus s) noexcept;

// Milliseconds per stage. decode: OpenCV's time for this file, or, for a file nvJPEG decoded,
// an equal share of its batch's decode call (wall time including the GPU work); process: upload
// (none after nvJPEG), operations and download.
struct StageMs {
  double read = 0, decode = 0, process = 0, encode = 0, write = 0;
};

struct FileRecord {
  std::string path;    // the input
  std::string output;  // the output image (empty when none was decided)
  FileStatus status = FileStatus::failed;
  std::string error;   // why it failed or was skipped
  int width = 0, height = 0;
  StageMs ms;
  std::string device;  // "gpu0", "gpu1", "cpu"
  std::string decoder;  // "opencv", "nvjpeg-hw" (hardware JPEG decoder), "nvjpeg"; "" when not decoded
  std::string encoder;  // "opencv", "nvjpeg"; "" when not encoded
  double finished_s = 0;  // when the file was done, in seconds from the start of the job
  // The input as it was read (for a resumed job: a changed input is done again); 0: unknown.
  std::uint64_t input_bytes = 0;
  std::int64_t input_mtime_ns = 0;
  // The record is the resumed report's: an earlier run of the job did this file (status ok) and
  // this one skipped it; its timings, device and finished_s are that run's.
  bool earlier_run = false;
};

// ok counts every record with status ok, done_earlier those of them an earlier run did (records
// carried from resume_report); megapixels and the GPU's per-device counts are this run's only.
struct JobTotals {
  std::size_t files = 0, ok = 0, failed = 0, skipped = 0, not_started = 0, done_earlier = 0;
  double megapixels = 0, seconds = 0;
  bool interrupted = false;
};

// How the GPU side went (the report's "gpu" object; zero/empty on the CPU backend).
struct GpuSummary {
  double ready_s = -1;        // when the GPU was ready to take files (start_on_cpu: the hand-over
                              // began), seconds from the start of the job; -1: it never was
  std::string not_used;       // start_on_cpu: why the GPU took no file ("" when it could)
  std::string gpu_name;       // start_on_cpu: GPU 0's name, once probed
  std::size_t files_gpu = 0, files_cpu = 0;  // finished (ok or failed) on each
  // The nvJPEG decoding threads, summed over GPUs: decode calls, their time, and the time they
  // waited with producers still submitting -- for files (starved: reading/hand-over is behind) or
  // for device buffers to come back (the workers' operations/encode/write are behind).
  std::size_t decode_batches = 0, decoded = 0;
  double decode_busy_s = 0, decode_starved_s = 0, decode_waiting_room_s = 0;
  // decode_busy_s split: nvJPEG's header inspection (of files the workers had not inspected),
  // inside nvjpegDecodeBatched (host work), waiting for the decode stream after it.
  double decode_inspect_s = 0, decode_call_s = 0, decode_sync_s = 0;
  // The workers' nvJPEG inspections (off the decoding thread), summed over the workers.
  double worker_inspect_s = 0;
  // The JPEG nvJPEG's warm-up decoded (the longest of the job's first 1024, none longer than
  // twice their median; the first when nvJPEG does not take that one); "" when none.
  std::string decode_warm_up;
};

struct JobResult {
  std::vector<FileRecord> records;  // input order; files never started are absent
  std::vector<std::string> scan_errors;
  JobTotals totals;
  GpuSummary gpu;
};

struct JobCallbacks {
  std::function<void(std::size_t total)> on_start;   // after the inputs were listed
  std::function<void(const FileRecord&)> on_file;    // each finished file, one at a time
  std::function<void(const std::string&)> on_notice; // e.g. a GPU failure falling back to the CPU
};

// The files of one rank of a distributed job (wk::dist): the list made once (by rank 0) and the
// ranges of it this process is dealt. Without a FileSource the job lists opt.inputs itself and
// takes every file.
struct FileSource {
  io::InputScan listed;
  // resume_report: the inputs the earlier report lists as done (read once, by rank 0), instead of
  // each process reading opt.resume_report.
  std::vector<std::string> resume_done;
  // The next range [begin, end) of indices into listed.files for this process, from any worker
  // thread (one at a time); nullopt when there is none left.
  std::function<std::optional<std::pair<std::size_t, std::size_t>>()> next;
  // A range's records (index, record) once every file of it is finished -- after a stop, also a
  // range with files never started (they are absent) -- one call at a time.
  std::function<void(std::pair<std::size_t, std::size_t> range, std::vector<std::pair<std::size_t, FileRecord>>&& records)>
      range_done;
};

// True when this build decodes JPEGs with nvJPEG on the GPU backend (the CUDA toolkit had it).
bool nvjpeg_in_build() noexcept;

// A usage error in one field of FolderJobOptions: what() says what is wrong in the library's terms
// and begins with the field's name ("max_pixels must be at least 1", "gpus: no GPU 3 (this machine
// has 1)"); option() is that name, for an app to put its own flag in its place.
class OptionError : public Error {
 public:
  OptionError(std::string option, const std::string& message) : Error(ErrorCategory::usage, message), option_(std::move(option)) {}
  const std::string& option() const noexcept { return option_; }

 private:
  std::string option_;
};

// The checks of run_folder_job's first step that need neither a GPU nor the files: the pipeline,
// the limits, the output format (one this build writes), outdir and report (no file where a
// folder goes, and the other way round) and the uses of "-". Throws wk::Error{usage}, OptionError
// for a bad field. For a caller that wants usage errors before anything else (choosing a backend).
void validate_options(const FolderJobOptions& options);

// Runs the job in three steps: validate (the pipeline and the options; wk::Error{usage},
// OptionError for a bad field, before any file is touched), plan (list the inputs, decide every
// output, check that no output or the report is an input, resume_report's skips), run (the
// workers). `stop` (optional) is polled between files: once set, no new file starts, the files in
// flight finish (no partial outputs), and totals.interrupted is true.
// With `source` (one rank of a distributed job): the listed files instead of a scan of
// opt.inputs, only the ranges source->next deals, each range's records to source->range_done;
// the result's records are this process's files.
JobResult run_folder_job(const FolderJobOptions& options, const std::atomic<bool>* stop = nullptr,
                         const JobCallbacks& callbacks = {}, FileSource* source = nullptr);

// Totals over records (ok, failed, skipped, megapixels; not_started = files - records given) and
// the per-device counts of `gpu`: what run_folder_job computes, for results merged from ranks.
void tally(JobResult& result, std::size_t files);

// Where the job writes the output of `input` (outdir / its relative path, with `format`'s extension).
std::filesystem::path output_path(const FolderJobOptions& options, const io::InputFile& input);
// The record of an input resume_report lists as done: the earlier report's own record of it
// (`earlier`, status ok) marked earlier_run, so that a resumed report keeps the first run's records;
// without one (a report of an older version, a rank of a distributed job, whose rank 0 puts the
// earlier record in its place as it merges), "skipped", "done in an earlier run".
FileRecord done_in_earlier_run(const FolderJobOptions& options, const io::InputFile& input,
                               const FileRecord* earlier = nullptr);
// Removes the temporary files a killed process left beside `output` (".NAME.wk-PID-XXXXXX" of
// io::OutputFile without O_TMPFILE, and ".NAME.wk-XXXXXX" of older versions); returns how many.
std::size_t remove_stale_temporaries(const std::filesystem::path& output);

// One record as the report writes it (report_json's "files" entries) and back (wk::dist payloads).
std::string record_json(const FileRecord& record);
FileRecord record_from_json(std::string_view json);

// The report JSON: {"files": [...], "totals": {...}} (its fields are described in wk-image's help).
// Its "backend" is backend_that_ran's.
std::string report_json(const JobResult& result, const FolderJobOptions& options);
// The backend that ran `result`'s files: options.backend, except that a start_on_cpu job whose GPU
// took no file (no usable GPU, a job too small to start it) ran on the CPU.
Backend backend_that_ran(const JobResult& result, const FolderJobOptions& options);
// report_json written to `report` atomically (io::write_output).
void write_report(const std::filesystem::path& report, const JobResult& result, const FolderJobOptions& options);

// The settings that decide what a job writes (pipeline, border, plot, output format, quality), as
// the report records them: resume_report skips files only for a job with the same settings.
std::string job_settings(const FolderJobOptions& options);

// An input's size and modification time (nanoseconds) as the report records them; nullopt when
// it cannot be looked at.
struct InputStamp {
  std::uint64_t bytes = 0;
  std::int64_t mtime_ns = 0;
};
std::optional<InputStamp> input_stamp(const std::filesystem::path& input);

// What an earlier report says, for resume_report: its job's settings, and per input it lists as done
// (status "ok", or skipped as done in the run before), the output and the input's size and
// modification time then.
struct DoneEntry {
  std::string output;
  std::uint64_t input_bytes = 0;
  std::int64_t input_mtime_ns = 0;
  // The report's whole record of the file when its status is ok (what a resumed report carries
  // over); nullopt for a "done in an earlier run" record, or one this version cannot read whole.
  std::optional<FileRecord> record;
};
struct EarlierReport {
  std::string settings;  // "" in reports that do not record them
  std::map<std::string, DoneEntry> done;
};
// Throws wk::Error{decode} for a report that is not warpkit's JSON, wk::Error{io} when unreadable.
EarlierReport read_earlier_report(const std::filesystem::path& report);
// The same for a report already in memory; `name` is what error messages call it.
EarlierReport parse_earlier_report(std::string_view text, const std::string& name);
// The inputs of `files` that resume_report skips: those the earlier report lists as done by a job with
// the same settings, into the same output, which still exists, from an input of the same size
// and modification time. The others are done again; `notices` gets one line per reason with its
// count ("3 files are done again: their input changed since the report").
std::vector<std::string> inputs_to_skip(const FolderJobOptions& options, const std::vector<io::InputFile>& files,
                                        const EarlierReport& earlier, std::vector<std::string>* notices);

// Reads width and height from the header of every format Debian's OpenCV decodes -- PNG, JPEG,
// BMP, PNM/PAM/PFM, Sun raster, Radiance HDR, TIFF/BigTIFF, WebP and JPEG 2000 -- without decoding. Returns
// nullopt for other formats or unparsable headers (the decoder then decides; the folder job
// checks the decoded size again). Sizes beyond int are clamped to INT32_MAX.
std::optional<std::pair<int, int>> probe_dimensions(std::span<const std::uint8_t> bytes);
// Throws wk::Error{decode} naming the size when width x height is more than max_pixels.
void check_pixel_limit(long long max_pixels, int width, int height);

}  // namespace wk::pipeline
