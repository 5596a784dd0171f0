#pragma once
// The wk-image job over files and folders: list → read + decode → (upload → operations →
// download) → encode + write, overlapped. A pool of worker threads (one per core by default)
// each owns a Pipeline, i.e. its own CUDA stream, pinned staging buffers and device buffers, so
// uploads, kernels and downloads of different images overlap on the GPU(s) while other workers
// decode and encode on the CPU. With nvJPEG (GPU backend, JPEG inputs) a worker reads up to
// jpeg_batch files, decodes their JPEGs on the GPU in one batched call straight into its device
// buffers (no upload), then runs the operations, download, encode and write per file. Memory
// stays bounded: one image, or one batch of at most jpeg_batch images, in flight per worker.
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "wk/core/backend.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/image_codec.hpp"

namespace wk::pipeline {

// Who decodes JPEG inputs on the GPU backend. auto: the decoder measured faster on the H100
// machine, today OpenCV on the worker threads (134 img/s against 73 with nvJPEG batches on the
// 16-core H100 machine, docs/benchmarks.md); nvjpeg: batched nvJPEG decode (a build without
// nvJPEG is a usage error); opencv: OpenCV for every file (bit-identical to the CPU backend). The CPU backend always uses
// OpenCV. nvJPEG's IDCT and colour conversion differ from libjpeg's by a few levels at most.
enum class JpegDecoder { auto_select, opencv, nvjpeg };

struct FolderJobOptions {
  std::string pipeline_text;
  image::PipelineOptions pipeline_options;
  Backend backend = Backend::cpu;
  std::vector<int> gpus;                // CUDA device ids; empty: every visible device
  std::vector<std::string> inputs;      // files and folders
  std::filesystem::path outdir;
  std::string format;                   // output extension ("png", "jpg"); empty: the input's
  io::EncodeOptions encode;
  bool skip_existing = false;           // leave existing outputs untouched
  std::filesystem::path resume_report;  // skip inputs this earlier report lists as ok
  int threads = 0;                      // workers; 0: one per core
  long long max_pixels = 1LL << 28;     // per image (268 Mpx); guards against decompression bombs
  JpegDecoder jpeg_decoder = JpegDecoder::auto_select;
  int jpeg_batch = 32;                  // nvJPEG: JPEGs per batched decode call (per GPU worker)
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
};

struct JobTotals {
  std::size_t files = 0, ok = 0, failed = 0, skipped = 0, not_started = 0;
  double megapixels = 0, seconds = 0;
  bool interrupted = false;
};

struct JobResult {
  std::vector<FileRecord> records;  // input order; files never started are absent
  std::vector<std::string> scan_errors;
  JobTotals totals;
};

struct JobCallbacks {
  std::function<void(std::size_t total)> on_start;   // after the inputs were listed
  std::function<void(const FileRecord&)> on_file;    // each finished file, one at a time
  std::function<void(const std::string&)> on_notice; // e.g. a GPU failure falling back to the CPU
};

// True when this build decodes JPEGs with nvJPEG on the GPU backend (the CUDA toolkit had it).
bool nvjpeg_in_build() noexcept;

// Runs the job. `stop` (optional) is polled between files: once set, no new file starts, the
// files in flight finish (no partial outputs), and totals.interrupted is true. Throws
// wk::Error{usage} for a bad pipeline or options before touching any file.
JobResult run_folder_job(const FolderJobOptions& options, const std::atomic<bool>* stop = nullptr,
                         const JobCallbacks& callbacks = {});

// The --report JSON: {"files": [...], "totals": {...}} (docs in wk-image --help).
std::string report_json(const JobResult& result, const FolderJobOptions& options);

// Inputs an earlier report lists with status "ok" (for --resume). Throws wk::Error{decode} for a
// report that is not warpkit's JSON, wk::Error{io} when unreadable.
std::vector<std::string> ok_inputs_in_report(const std::filesystem::path& report);

// Reads width and height from a PNG, JPEG, BMP, GIF or PNM header without decoding. Returns
// nullopt for other formats or unparsable headers (the decoder then decides).
std::optional<std::pair<int, int>> probe_dimensions(std::span<const std::uint8_t> bytes);

}  // namespace wk::pipeline
