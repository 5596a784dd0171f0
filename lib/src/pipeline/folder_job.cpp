// The folder job: validate the options, plan the files (list, outputs, checks), run the workers.
// The work on one file is in file_work.cpp, the GPU start-up of start_on_cpu in gpu_startup.cpp.
#include "wk/pipeline/folder_job.hpp"

#include <cuda_runtime_api.h>
#include <opencv2/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_set>

#include "pipeline/file_work.hpp"
#include "pipeline/gpu_startup.hpp"
#include "pipeline/jpeg_decode_service.hpp"
#include "wk/core/backend.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/parallel.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;

namespace wk::pipeline {

namespace {

using Clock = std::chrono::steady_clock;

bool is_standard_stream(const fs::path& p) { return p == "-"; }

fs::path output_for(const FolderJobOptions& opt, const io::InputFile& in) {
  if (is_standard_stream(opt.outdir)) return opt.outdir;
  fs::path out = opt.outdir / in.relative;
  if (!opt.format.empty()) out.replace_extension("." + opt.format);
  return out.lexically_normal();
}

// ---- validate: what the options decide, checked before any file is touched ---------------------

struct JobSetup {
  bool nvjpeg_decode = false, nvjpeg_encode = false;
  bool hybrid = false;    // start_on_cpu on the GPU backend
  std::vector<int> gpus;  // the GPUs the workers take from the start (empty: the CPU, or hybrid)
};

// The GPUs of the GPU backend. start_on_cpu: the GPU is started in the background (start_gpu) and
// the workers begin on the CPU; an explicit GPU list is still checked here when the machine has
// GPUs at all.
std::vector<int> checked_gpus(const FolderJobOptions& opt, bool hybrid) {
  if (opt.backend != Backend::gpu) return {};  // the CPU backend touches no GPU, whatever `gpus` says
  std::vector<int> gpus = opt.gpus;
  if (hybrid && gpus.empty()) return gpus;
  int count = 0;
  if (hybrid) {
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    (void)cudaGetLastError();
  } else {
    WK_CUDA_CHECK(cudaGetDeviceCount(&count));
  }
  if (gpus.empty()) {
    for (int d = 0; d < count; ++d) gpus.push_back(d);
    gpus = dist::node_share(gpus, opt.gpu_share_index, opt.gpu_share_count);
  }
  for (int d : gpus)
    if ((d < 0 || d >= count) && (!hybrid || count > 0))
      throw OptionError("gpus", "gpus: no GPU " + std::to_string(d) + " (this machine has " + std::to_string(count) + ")");
  if (hybrid) gpus.clear();  // the start-up thread decides (opt.gpus)
  return gpus;
}

// True when `pipeline` writes side files (hist's tables and plots), as seen on a small image; false
// when that image is one it cannot take (the files then say so one by one).
bool writes_side_files(image::Pipeline& pipeline) {
  try {
    std::vector<image::SideOutput> side;
    (void)pipeline.run(cv::Mat(64, 64, CV_8UC3, cv::Scalar::all(128)), -1, &side);
    return !side.empty();
  } catch (const std::exception&) {
    return false;
  }
}

// "-": standard input as the one input, standard output for the one result.
void validate_standard_streams(const FolderJobOptions& opt, image::Pipeline& pipeline) {
  const bool from_stdin = std::any_of(opt.inputs.begin(), opt.inputs.end(), [](const std::string& in) { return in == "-"; });
  const bool to_stdout = is_standard_stream(opt.outdir);
  if (from_stdin && opt.inputs.size() != 1)
    throw OptionError("inputs", "inputs: - (standard input) must be the only input (" + std::to_string(opt.inputs.size()) +
                                    " are given)");
  if (from_stdin && !to_stdout)
    throw OptionError("inputs", "inputs: - (standard input) has no file name for an output folder; write its result to "
                                "standard output (outdir -)");
  if (!to_stdout) return;
  if (opt.inputs.size() != 1)
    throw OptionError("outdir", "outdir - (standard output) takes the image of exactly one input file, not " +
                                    std::to_string(opt.inputs.size()) + " inputs");
  std::error_code ec;
  if (!from_stdin && fs::is_directory(opt.inputs.front(), ec))
    throw OptionError("outdir", "outdir - (standard output) takes the image of exactly one input file; " +
                                    io::printable(opt.inputs.front()) + " is a folder");
  if (opt.format.empty())
    throw OptionError("format", "format must name the output format (png, jpg, ...) when the output is standard output "
                                "(outdir -): there is no file name whose extension would choose the encoder");
  if (opt.skip_existing) throw OptionError("skip_existing", "skip_existing does not apply to standard output (outdir -)");
  if (!opt.resume_report.empty())
    throw OptionError("resume_report", "resume_report does not apply to standard output (outdir -): nothing is left to resume");
  if (writes_side_files(pipeline))
    throw OptionError("outdir", "outdir - (standard output) holds one image; pipeline '" + opt.pipeline_text +
                                    "' writes side files (NAME.hist.csv, ...) beside its output: name an output folder");
}

// An output format this build can name but not write an 8-bit image in (OpenEXR takes floating
// point only) would fail every file: it is refused here, by encoding a small image.
bool encodes_8bit(const FolderJobOptions& opt) {
  try {
    (void)io::encode_image(cv::Mat(8, 8, CV_8UC3, cv::Scalar::all(128)), "x." + opt.format, opt.encode);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

void validate_options(const FolderJobOptions& opt) {
  image::Pipeline validate(opt.pipeline_text, Backend::cpu, opt.pipeline_options);
  if (opt.max_pixels < 1) throw OptionError("max_pixels", "max_pixels must be at least 1");
  if (!is_standard_stream(opt.outdir)) {
    std::error_code ec;
    if (fs::exists(opt.outdir, ec) && !fs::is_directory(opt.outdir, ec))
      throw OptionError("outdir", "outdir " + opt.outdir.string() + ": exists and is not a folder");
  }
  if (!opt.report.empty()) {
    std::error_code ec;
    if (fs::is_directory(opt.report, ec))
      throw OptionError("report", "report " + io::printable(opt.report.string()) + ": is a folder; name the report file");
  }
  if (opt.jpeg_batch < 1) throw OptionError("jpeg_batch", "jpeg_batch must be at least 1");
  if (!opt.format.empty() && (!io::can_encode(opt.format) || !encodes_8bit(opt)))
    throw OptionError("format", "format '" + opt.format + "': this build cannot write it (it writes " + io::writable_formats() + ")");
  validate_standard_streams(opt, validate);
}

namespace {

// Bad pipelines and options are usage errors before any file is touched.
JobSetup validate_job(const FolderJobOptions& opt) {
  validate_options(opt);
  const char* kNoNvjpeg = " nvjpeg: this build has no nvJPEG (it is built when the CUDA toolkit has it)";
  if (opt.jpeg_decoder == JpegDecoder::nvjpeg && !io::nvjpeg_in_build())
    throw OptionError("jpeg_decoder", std::string("jpeg_decoder") + kNoNvjpeg);
  if (opt.jpeg_decoder == JpegDecoder::nvjpeg && opt.backend != Backend::gpu)
    throw OptionError("jpeg_decoder", "jpeg_decoder nvjpeg needs the GPU backend");
  if (opt.jpeg_encoder == JpegEncoder::nvjpeg && !io::nvjpeg_in_build())
    throw OptionError("jpeg_encoder", std::string("jpeg_encoder") + kNoNvjpeg);
  if (opt.jpeg_encoder == JpegEncoder::nvjpeg && opt.backend != Backend::gpu)
    throw OptionError("jpeg_encoder", "jpeg_encoder nvjpeg needs the GPU backend");
  JobSetup s;
  // auto: nvJPEG where the build has it, on the GPU backend (measured faster on the H100
  // machine, docs/benchmarks.md); the CPU backend always uses OpenCV.
  const bool gpu_codecs = opt.backend == Backend::gpu && io::nvjpeg_in_build();
  s.nvjpeg_decode = gpu_codecs && opt.jpeg_decoder != JpegDecoder::opencv;
  s.nvjpeg_encode = gpu_codecs && opt.jpeg_encoder != JpegEncoder::opencv &&
                    (opt.format.empty() || io::is_jpeg_path("x." + opt.format));
  s.hybrid = opt.backend == Backend::gpu && opt.start_on_cpu;
  s.gpus = checked_gpus(opt, s.hybrid);
  return s;
}

// ---- plan: the files, their outputs and what is known about them before any work ---------------

struct JobPlan {
  Clock::time_point t0;  // the job's start
  io::InputScan scan;
  std::vector<fs::path> outputs;
  std::vector<std::string> precheck;  // per file: an error known before starting, or ""
  std::set<io::FileIdentity> input_ids;
  ResumeSkips resume_ok;
};

// Outputs, and no file the job writes is a file it reads, before any work (an output named like
// another input: a.jpg -> a.png beside a.png; the report named like an image).
void plan_outputs(const FolderJobOptions& opt, JobPlan& plan) {
  const std::vector<io::InputFile>& files = plan.scan.files;
  std::map<fs::path, std::size_t> first_user;
  std::vector<io::JobFile> reads, writes;
  for (std::size_t i = 0; i < files.size(); ++i) {
    plan.outputs.push_back(output_for(opt, files[i]));
    auto [it, fresh] = first_user.emplace(plan.outputs.back(), i);
    plan.precheck.push_back(fresh ? "" : "output " + plan.outputs.back().string() + " is also the output of " +
                                             files[it->second].path.string() + " (same name below an input root)");
    reads.push_back({"the input " + files[i].path.string(), files[i].path});
    if (fresh) writes.push_back({"the output of " + files[i].path.string(), plan.outputs.back()});
  }
  if (!opt.report.empty()) writes.push_back({"the report", opt.report});
  io::check_writes_apart(reads, writes);
  for (const io::JobFile& r : reads)
    if (!is_standard_stream(r.path))  // "-" is no file, whatever a file named "-" here is
      if (auto id = io::identity_of(r.path)) plan.input_ids.insert(*id);
}

JobPlan plan_job(const FolderJobOptions& opt, const FileSource* source, const JobCallbacks& cb) {
  std::optional<EarlierReport> earlier;
  if (!source && !opt.resume_report.empty()) earlier = read_earlier_report(opt.resume_report);
  JobPlan plan;
  plan.t0 = Clock::now();
  if (source) {
    plan.scan = source->listed;
  } else if (opt.inputs.size() == 1 && is_standard_stream(opt.inputs.front())) {
    plan.scan.files.push_back({"-", "-"});
  } else {
    nvtx::Range r("scan", nvtx::Color::io);
    plan.scan = io::scan_inputs(opt.inputs, opt.outdir);
  }
  if (cb.on_notice)
    for (const std::string& notice : plan.scan.notices) cb.on_notice(notice);
  plan_outputs(opt, plan);
  if (source) {
    for (const std::string& p : source->resume_done) plan.resume_ok.emplace(p, std::nullopt);
  } else if (earlier) {
    std::vector<std::string> notices;
    for (auto& p : inputs_to_skip(opt, plan.scan.files, *earlier, &notices)) {
      auto record = earlier->done.at(p).record;
      plan.resume_ok.emplace(std::move(p), std::move(record));
    }
    if (cb.on_notice)
      for (const std::string& notice : notices) cb.on_notice(notice);
  }
  return plan;
}

// ---- run: the workers over the planned files ----------------------------------------------------

// One job's run: what its workers share, the GPU side (decode services, encoder libraries, or the
// background start-up), and the result.
struct FolderRun {
  FolderRun(const FolderJobOptions& o, const JobSetup& s, JobPlan& p, const std::atomic<bool>* st, const JobCallbacks& cb,
            FileSource* src);
  ~FolderRun();
  JobResult run();

  // The next file for a worker: all of them in order, or those of the ranges `source` deals.
  std::optional<std::size_t> take();
  int device_of(int w) const { return gpus.empty() ? -1 : gpus[static_cast<std::size_t>(w) % gpus.size()]; }
  bool gpu_start_pays() const;
  void start_gpu_side();
  void start_services();
  void collect_gpu_summary(GpuSummary& gs);

  const FolderJobOptions& opt;
  const JobSetup& setup;
  JobPlan& plan;
  const std::atomic<bool>* stop;
  FileSource* source;
  const std::vector<int> gpus;
  const std::size_t n;
  const int hw, workers;
  ByteBudget budget;
  Shared sh;
  std::vector<std::optional<FileRecord>> records;
  Reporter rep;
  std::exception_ptr fatal;
  std::atomic<std::size_t> next{0};
  std::mutex take_mutex;
  std::size_t range_next = 0, range_end = 0;

  // start_on_cpu: the background start-up, the files the CPU may start first (WK_CPU_START_FILES,
  // tests) and the workers that take files on the CPU meanwhile.
  std::shared_ptr<GpuStartup> startup;
  std::atomic<std::size_t> cpu_started{0};
  std::size_t cpu_start_limit = 0;
  int cpu_phase_workers = 0;
  // The nvJPEG decoders' warm-up candidates (JpegDecodeService::Options): the job's first JPEGs.
  std::vector<fs::path> warm_jpegs;
  std::map<int, std::unique_ptr<JpegDecodeService>> services;
  std::map<int, std::shared_future<std::shared_ptr<io::NvjpegLibrary>>> encode_libraries;
  Clock::time_point t_services;
  WorkerStreams worker_streams;  // outlives the workers' pipelines and encoders
};

int worker_count(const FolderJobOptions& opt, int hw, std::size_t n) {
  return static_cast<int>(std::max<std::size_t>(
      1, std::min<std::size_t>(opt.threads > 0 ? opt.threads : hw, std::max<std::size_t>(n, 1))));
}

FolderRun::FolderRun(const FolderJobOptions& o, const JobSetup& s, JobPlan& p, const std::atomic<bool>* st,
                     const JobCallbacks& cb, FileSource* src)
    : opt(o), setup(s), plan(p), stop(st), source(src), gpus(s.gpus), n(p.scan.files.size()),
      hw(static_cast<int>(usable_cores())), workers(worker_count(o, hw, n)),
      budget(o.memory_budget ? o.memory_budget : std::max<std::uint64_t>(physical_memory_bytes() / 2, 1ull << 30)),
      sh{o, p.scan.files, std::move(p.outputs), std::move(p.precheck), std::move(p.resume_ok), {}, {},
         std::move(p.input_ids), &budget, st},
      records(n), rep{cb, {}, records, p.t0, src, {}} {}

FolderRun::~FolderRun() {
  if (startup) abandon_gpu_startup(std::move(startup));  // a job that ends with an exception
}

std::optional<std::size_t> FolderRun::take() {
  if (!source) {
    const std::size_t i = next++;
    return i < n ? std::optional<std::size_t>(i) : std::nullopt;
  }
  std::lock_guard<std::mutex> lock(take_mutex);
  while (range_next >= range_end) {
    const auto range = source->next();
    if (!range) return std::nullopt;
    if (range->second > n || range->first > range->second)
      throw Error(ErrorCategory::internal, "folder job: a dealt range beyond the file list");
    {
      std::lock_guard<std::mutex> rep_lock(rep.mutex);
      rep.ranges[range->first] = {range->second, range->second - range->first};
    }
    std::tie(range_next, range_end) = *range;
  }
  return range_next++;
}

// start_on_cpu: the GPU is started only for a job the CPU would take long over; starting it
// takes ~1-1.5 s on the H100 machine (context, nvJPEG, a first decode), and a process that exits
// while it is half-started pays ~0.15 s more for the driver's cleanup. The estimate: the input
// bytes at kCpuBytesPerSecond per worker (4K JPEG q90: ~2.2 MB in ~0.15 s of decode, operations
// and encode). WK_CPU_START_FILES (tests) always starts it.
bool FolderRun::gpu_start_pays() const {
  constexpr double kCpuBytesPerSecond = 15e6, kWorthIt = 1.0;
  double bytes = 0;
  for (const auto& f : plan.scan.files) {
    std::error_code ec;
    const auto size = fs::file_size(f.path, ec);
    if (!ec) bytes += double(size);
    if (bytes / (kCpuBytesPerSecond * workers) > kWorthIt) break;
  }
  return bytes / (kCpuBytesPerSecond * workers) > kWorthIt;
}

void FolderRun::start_gpu_side() {
  if (const char* e = std::getenv("WK_CPU_START_FILES"); e && setup.hybrid) cpu_start_limit = std::strtoull(e, nullptr, 10);
  // The warm-up reads the candidates' sizes (after its handle is made) and takes the longest.
  if (setup.nvjpeg_decode) {
    constexpr std::size_t kWarmCandidates = 1024;
    for (std::size_t i = 0; i < plan.scan.files.size() && warm_jpegs.size() < kWarmCandidates; ++i)
      if (io::is_jpeg_path(plan.scan.files[i].path)) warm_jpegs.push_back(plan.scan.files[i].path);
  }
  const bool start_the_gpu = setup.hybrid && (cpu_start_limit > 0 || gpu_start_pays());
  // While the GPU starts, two cores (of four or more) stay with its start-up threads: with every
  // core decoding, the nvJPEG handle took 0.6 s to make instead of 0.28 s.
  cpu_phase_workers = hw >= 4 ? std::max(1, std::min(workers, hw - 2)) : workers;
  if (!start_the_gpu) return;
  StartPlan sp{opt.gpus, workers, setup.nvjpeg_decode, setup.nvjpeg_encode, opt.jpeg_batch, opt.encode.jpeg_quality, {},
               opt.pipeline_text, opt.pipeline_options, plan.t0, opt.gpu_share_index, opt.gpu_share_count, opt.gpu_labels};
  sp.warm_jpegs = warm_jpegs;
  startup = start_gpu_in_background(std::move(sp), [this](const std::string& m) { rep.notice(m); });
}

// nvJPEG per GPU in use: one decode service (its thread owns the decoder) and one library handle
// for the workers' encoders, made in the background while the workers read the first files. A
// GPU where nvJPEG does not start decodes or encodes with OpenCV, and says so.
void FolderRun::start_services() {
  t_services = Clock::now();
  std::map<int, int> producers;
  for (int w = 0; w < workers; ++w)
    if (device_of(w) >= 0) ++producers[device_of(w)];
  for (const auto& [device, count] : producers) {
    if (setup.nvjpeg_decode) {
      JpegDecodeService::Options o;
      o.device = device;
      o.label = opt.gpu_label(device);
      o.batch = opt.jpeg_batch;
      o.producers = count;
      // The warm-up batch makes the decode state and sizes every place for the job's longest
      // JPEG: 3.34 s over 3000 4K files, against 3.85 s with first batches of 8, 16 and 32 and no
      // warm-up, whose first file came ~0.13 s sooner (H100, docs/benchmarks.md).
      o.warm_jpegs = warm_jpegs;
      o.notice = [this](const std::string& m) { rep.notice(m); };
      services[device] = std::make_unique<JpegDecodeService>(std::move(o));
    }
    if (setup.nvjpeg_encode)
      encode_libraries[device] =
          std::async(std::launch::async, [this, device = device,
                                          service = setup.nvjpeg_decode ? services[device].get() : nullptr] {
            return make_encode_library(device, opt.gpu_label(device), [this](const std::string& m) { rep.notice(m); },
                                       service);
          }).share();
  }
}

// A service's decode statistics added to the summary; returns when its decoder was ready
// (seconds after the service was made; -1: never).
double add_decode_stats(GpuSummary& gs, JpegDecodeService& service) {
  const JpegDecodeService::Stats st = service.stats();
  gs.decode_batches += st.batches;
  gs.decoded += st.decoded;
  gs.decode_busy_s += st.busy_s;
  gs.decode_starved_s += st.starved_s;
  gs.decode_waiting_room_s += st.waiting_room_s;
  gs.decode_inspect_s += st.inspect_s;
  gs.decode_call_s += st.call_s;
  gs.decode_sync_s += st.sync_s;
  gs.worker_inspect_s += st.worker_inspect_s;
  if (gs.decode_warm_up.empty()) gs.decode_warm_up = st.warm_jpeg;
  return st.started_s;
}

void FolderRun::collect_gpu_summary(GpuSummary& gs) {
  for (auto& [device, service] : services) {
    const double started = add_decode_stats(gs, *service);
    const double at = started < 0 ? -1 : std::chrono::duration<double>(t_services - plan.t0).count() + started;
    if (at >= 0 && (gs.ready_s < 0 || at < gs.ready_s)) gs.ready_s = at;
  }
  services.clear();  // their threads have ended: every producer is done and the rest decoded
  if (setup.hybrid && !startup) gs.not_used = "a small job: the CPU alone ends sooner than the GPU would start";
  if (startup)
    end_gpu_startup(std::move(startup), opt.wait_for_gpu_startup, gs,
                    [&gs](JpegDecodeService& service) { (void)add_decode_stats(gs, service); });
}

// One worker thread: it takes files until there are none left (or a stop), on its GPU or the CPU.
// start_on_cpu: it takes whole files on the CPU until the start-up thread says the GPU is ready
// (then it hands over, with its GPU's decode service and encoder library) or failed (then it stays
// on the CPU).
class Worker {
 public:
  Worker(FolderRun& job, int w);
  void run();

 private:
  void hand_over();
  void wait_and_hand_over();
  void settle();
  void process(std::size_t i);
  void finish_ready(std::unique_ptr<FileWork> ready) {
    finish_from_service(job_.sh, std::move(ready), wp_, *service_, job_.rep);
  }

  // A worker that leaves before handing over: a service made meanwhile counts it as a producer.
  struct LeaveStartup {
    GpuStartup* st;
    int w;
    const bool& settled;
    ~LeaveStartup() {
      if (!st || settled) return;
      std::lock_guard<std::mutex> lock(st->m);
      if (!st->sides_made) {
        st->left[std::size_t(w)] = true;
        return;
      }
      if (st->state == GpuStartup::State::failed) return;
      const int d = st->device_of(std::size_t(w));
      if (st->services.count(d)) st->services.at(d)->producer_done();
    }
  };
  // Every producer says when it has submitted its last file, also when it leaves with an
  // exception: the service decodes what is left, then ends.
  struct ProducerDone {
    JpegDecodeService* service;
    void operator()() {
      if (service) std::exchange(service, nullptr)->producer_done();
    }
    ~ProducerDone() { (*this)(); }
  };

  FolderRun& job_;
  const int w_;
  WorkerPipelines wp_;
  JpegDecodeService* service_;
  bool settled_;  // start_on_cpu: the start-up said ready or failed (and this worker acted on it)
  LeaveStartup leave_startup_;
  ProducerDone producer_done_;
  JpegDecodeService::Inspector inspector_;  // this worker's nvJPEG parser (or warpkit's check)
};

Worker::Worker(FolderRun& job, int w)
    : job_(job), w_(w), wp_{job.opt, job.device_of(w), job.worker_streams},
      service_(job.services.count(wp_.device) ? job.services.at(wp_.device).get() : nullptr),
      settled_(!job.startup), leave_startup_{job.startup.get(), w, settled_}, producer_done_{service_} {
  if (job.encode_libraries.count(wp_.device)) wp_.encode_library = job.encode_libraries.at(wp_.device);
}

void Worker::hand_over() {
  GpuStartup& st = *job_.startup;
  std::lock_guard<std::mutex> lock(st.m);
  if (st.state == GpuStartup::State::starting) return;
  settled_ = true;
  if (st.state == GpuStartup::State::failed) return;
  nvtx::Range r("cpu hand-over", nvtx::Color::app, w_);
  wp_.device = st.device_of(std::size_t(w_));
  if (st.services.count(wp_.device)) service_ = st.services.at(wp_.device).get();
  if (st.encode_libraries.count(wp_.device)) wp_.encode_library = st.encode_libraries.at(wp_.device);
}

// Waits until the start-up thread says ready or failed, then hands over (or stays).
void Worker::wait_and_hand_over() {
  GpuStartup& st = *job_.startup;
  {
    std::unique_lock<std::mutex> lock(st.m);
    st.cv.wait(lock, [&] { return st.state != GpuStartup::State::starting; });
  }
  hand_over();
}

void Worker::settle() {
  hand_over();
  if (!settled_ && w_ >= job_.cpu_phase_workers) wait_and_hand_over();
  // WK_CPU_START_FILES=N (tests): at most N files start on the CPU; after them the workers wait
  // for the start-up to settle, so a test knows which files go where.
  while (!settled_ && job_.cpu_start_limit > 0) {
    std::size_t c = job_.cpu_started.load();
    if (c < job_.cpu_start_limit && job_.cpu_started.compare_exchange_weak(c, c + 1)) break;
    if (c >= job_.cpu_start_limit) wait_and_hand_over();
  }
  if (service_) producer_done_.service = service_;
}

// One file from its claim to its record: to the decode service when nvJPEG takes it (its record
// comes back through finish_ready), else decoded here.
void Worker::process(std::size_t i) {
  auto fw = std::make_unique<FileWork>();
  fw->i = i;
  bool to_service = false;
  {
    // One "file" range from the read to the write; a file handed to the decoder gets a second
    // one when it is finished.
    nvtx::Range file_range("file", nvtx::Color::app, static_cast<long>(i));
    to_service = begin_file(job_.sh, *fw) && service_ && wp_.on_gpu() && for_nvjpeg(job_.sh, *fw) &&
                 service_->inspect(*fw, inspector_);
    if (!to_service && !fw->finished) decode_and_finish(job_.sh, *fw, wp_, job_.rep);
  }
  while (to_service) {
    const auto answer = service_->submit(fw);
    if (answer == JpegDecodeService::Submit::taken) break;
    if (answer == JpegDecodeService::Submit::refused) {
      nvtx::Range file_range("file", nvtx::Color::app, static_cast<long>(i));
      decode_and_finish(job_.sh, *fw, wp_, job_.rep);
      to_service = false;
    } else {
      warm_up(wp_, job_.opt, job_.rep);
      if (auto ready = service_->wait_ready_or_room()) finish_ready(std::move(ready));
    }
  }
  if (fw) job_.rep.finished(i, std::move(fw->r));
}

void Worker::run() {
  try {
    for (;;) {
      if (!settled_) settle();
      // Decoded files first, one per file read: device memory stays low and the decoder fed.
      if (service_)
        if (auto ready = service_->take_ready()) finish_ready(std::move(ready));
      if (job_.stop && job_.stop->load()) break;
      const std::optional<std::size_t> taken = job_.take();
      if (!taken) break;
      process(*taken);
    }
    producer_done_();
    if (service_) {
      warm_up(wp_, job_.opt, job_.rep);
      while (auto ready = service_->wait_ready_or_end()) finish_ready(std::move(ready));
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(job_.rep.mutex);
    if (!job_.fatal) job_.fatal = std::current_exception();
  }
}

JobResult FolderRun::run() {
  JobResult result;
  result.scan_errors = plan.scan.errors;
  if (rep.cb.on_start) rep.cb.on_start(n);
  // Workers give each image one core; OpenCV's own thread pool would oversubscribe them.
  const int saved_cv_threads = cv::getNumThreads();
  if (workers > 1) cv::setNumThreads(1);
  start_gpu_side();
  start_services();
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) pool.emplace_back([this, w] { Worker(*this, w).run(); });
  for (auto& t : pool) t.join();
  collect_gpu_summary(result.gpu);
  cv::setNumThreads(saved_cv_threads);
  if (fatal) std::rethrow_exception(fatal);

  // Ranges cut short by a stop: what was finished of them.
  for (const auto& [begin, range] : rep.ranges) rep.range_done(begin, range.first);
  rep.ranges.clear();
  for (auto& r : records)
    if (r) result.records.push_back(std::move(*r));
  tally(result, n);
  JobTotals& tot = result.totals;
  tot.interrupted = stop && stop->load() && tot.not_started > 0;
  tot.seconds = std::chrono::duration<double>(Clock::now() - plan.t0).count();
  return result;
}

}  // namespace

bool nvjpeg_in_build() noexcept { return io::nvjpeg_in_build(); }

fs::path output_path(const FolderJobOptions& options, const io::InputFile& input) { return output_for(options, input); }

FileRecord done_in_earlier_run(const FolderJobOptions& options, const io::InputFile& input, const FileRecord* earlier) {
  if (earlier && earlier->status == FileStatus::ok) {
    FileRecord r = *earlier;
    r.earlier_run = true;
    return r;
  }
  FileRecord r;
  r.path = input.path.string();
  r.output = output_for(options, input).string();
  r.status = FileStatus::skipped;
  r.error = "done in an earlier run";
  if (const auto stamp = input_stamp(input.path)) {  // as inputs_to_skip checked it: a later resume checks it again
    r.input_bytes = stamp->bytes;
    r.input_mtime_ns = stamp->mtime_ns;
  }
  return r;
}

std::size_t remove_stale_temporaries(const fs::path& output) {
  const fs::path dir = output.has_parent_path() ? output.parent_path() : fs::path(".");
  const std::string prefix = "." + output.filename().string();
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // ".NAME" + the marker + 6 random characters, or + PID + "-" + 6 random characters
    if (name.size() >= prefix.size() + 10 && name.rfind(prefix, 0) == 0 && io::is_temporary_name(it->path()) &&
        name.compare(prefix.size(), 4, ".wk-") == 0 &&
        (name.size() == prefix.size() + 10 || name.find('-', prefix.size() + 4) == name.size() - 7)) {
      std::error_code rm;
      if (fs::remove(it->path(), rm)) ++removed;
    }
  }
  return removed;
}

void tally(JobResult& result, std::size_t files) {
  JobTotals& tot = result.totals;
  tot.files = files;
  tot.ok = tot.failed = tot.skipped = tot.done_earlier = 0;
  tot.megapixels = 0;
  tot.not_started = files - std::min(files, result.records.size());
  result.gpu.files_cpu = result.gpu.files_gpu = 0;
  for (const FileRecord& r : result.records) {
    if (r.earlier_run && r.status == FileStatus::ok) {  // an earlier run's work: done, not this run's
      ++tot.ok;
      ++tot.done_earlier;
      continue;
    }
    if (!r.device.empty()) ++(r.device == "cpu" ? result.gpu.files_cpu : result.gpu.files_gpu);
    if (r.status == FileStatus::ok) {
      ++tot.ok;
      tot.megapixels += double(r.width) * r.height / 1e6;
    } else if (r.status == FileStatus::failed) {
      ++tot.failed;
    } else {
      ++tot.skipped;
    }
  }
}

JobResult run_folder_job(const FolderJobOptions& opt, const std::atomic<bool>* stop, const JobCallbacks& cb,
                         FileSource* source) {
  const JobSetup setup = validate_job(opt);
  JobPlan plan = plan_job(opt, source, cb);
  return FolderRun(opt, setup, plan, stop, cb, source).run();
}

}  // namespace wk::pipeline
