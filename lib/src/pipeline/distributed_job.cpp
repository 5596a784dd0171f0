#include "wk/pipeline/distributed_job.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <thread>

#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"

namespace fs = std::filesystem;

namespace wk::pipeline {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void put_string(std::string& out, std::string_view s) {
  const std::uint64_t n = s.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n).append(s);
}

std::string get_string(std::string_view& in) {
  std::uint64_t n = 0;
  if (in.size() < sizeof n) throw Error(ErrorCategory::internal, "a truncated file list from rank 0");
  std::memcpy(&n, in.data(), sizeof n);
  if (in.size() - sizeof n < n) throw Error(ErrorCategory::internal, "a truncated file list from rank 0");
  std::string s(in.substr(sizeof n, n));
  in.remove_prefix(sizeof n + n);
  return s;
}

std::size_t get_count(std::string_view& in) {
  const std::string text = get_string(in);
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    throw Error(ErrorCategory::internal, "a malformed file list from rank 0");
  }
}

}  // namespace

std::string pack_file_list(const io::InputScan& scan, const std::vector<std::string>& resume_done) {
  std::string out;
  put_string(out, std::to_string(scan.files.size()));
  for (const auto& f : scan.files) {
    put_string(out, f.path.native());
    put_string(out, f.relative.native());
  }
  put_string(out, std::to_string(scan.errors.size()));
  for (const auto& e : scan.errors) put_string(out, e);
  put_string(out, std::to_string(resume_done.size()));
  for (const auto& p : resume_done) put_string(out, p);
  return out;
}

io::InputScan unpack_file_list(std::string_view in, std::vector<std::string>& resume_done) {
  io::InputScan scan;
  for (std::size_t i = 0, n = get_count(in); i < n; ++i) {
    io::InputFile f;
    f.path = get_string(in);
    f.relative = get_string(in);
    scan.files.push_back(std::move(f));
  }
  for (std::size_t i = 0, n = get_count(in); i < n; ++i) scan.errors.push_back(get_string(in));
  for (std::size_t i = 0, n = get_count(in); i < n; ++i) resume_done.push_back(get_string(in));
  return scan;
}

std::string pack_records(const std::vector<std::pair<std::size_t, FileRecord>>& records) {
  std::string out;
  for (const auto& [i, r] : records) out.append(std::to_string(i)).append(" ").append(record_json(r)).append("\n");
  return out;
}

std::vector<std::pair<std::size_t, FileRecord>> unpack_records(std::string_view rest, std::size_t files) {
  std::vector<std::pair<std::size_t, FileRecord>> records;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n'), sp = rest.find(' ');
    if (nl == std::string_view::npos || sp > nl || sp == 0 ||
        rest.substr(0, sp).find_first_not_of("0123456789") != std::string_view::npos)
      throw Error(ErrorCategory::internal, "a malformed chunk report");
    const std::size_t i = std::stoull(std::string(rest.substr(0, sp)));
    if (i >= files) throw Error(ErrorCategory::internal, "a chunk report for an unknown file");
    records.emplace_back(i, record_from_json(rest.substr(sp + 1, nl - sp - 1)));
    rest.remove_prefix(nl + 1);
  }
  return records;
}

MergedRecords::MergedRecords(const FolderJobOptions& options, const io::InputScan& listed,
                             const std::vector<std::string>& resume_done, std::map<std::string, FileRecord> earlier)
    : options_(options), listed_(listed), done_before_(resume_done.begin(), resume_done.end()),
      earlier_(std::move(earlier)), merged_(listed.files.size()) {}

void MergedRecords::add(std::string_view payload, const std::function<void(const FileRecord&)>& on_record) {
  auto records = unpack_records(payload, merged_.size());
  std::lock_guard lock(mutex_);
  changed_ = true;
  for (auto& [i, r] : records) {
    // A file a rank skipped as done before: the earlier report's record of it.
    const auto earlier = r.status == FileStatus::skipped && done_before_.count(r.path) ? earlier_.find(r.path) : earlier_.end();
    if (earlier != earlier_.end()) r = done_in_earlier_run(options_, listed_.files[i], &earlier->second);
    merged_[i] = std::move(r);
    if (on_record) on_record(*merged_[i]);
  }
}

bool MergedRecords::changed() const {
  std::lock_guard lock(mutex_);
  return changed_;
}

std::size_t MergedRecords::done() const {
  std::lock_guard lock(mutex_);
  return std::size_t(std::count_if(merged_.begin(), merged_.end(), [](const auto& r) { return r.has_value(); }));
}

std::vector<std::size_t> MergedRecords::missing(std::size_t begin, std::size_t end) const {
  std::vector<std::size_t> out;
  std::lock_guard lock(mutex_);
  for (std::size_t i = begin; i < std::min(end, merged_.size()); ++i)
    if (!merged_[i]) out.push_back(i);
  return out;
}

JobResult MergedRecords::snapshot(bool final, double seconds) {
  JobResult result;
  result.scan_errors = listed_.errors;
  {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < merged_.size(); ++i) {
      if (merged_[i]) {
        result.records.push_back(*merged_[i]);
      } else if (done_before_.count(listed_.files[i].path.string())) {
        // Not reached (yet): still done in the earlier run, so a later resume skips it too.
        const auto earlier = earlier_.find(listed_.files[i].path.string());
        result.records.push_back(
            done_in_earlier_run(options_, listed_.files[i], earlier == earlier_.end() ? nullptr : &earlier->second));
      }
    }
    changed_ = false;
  }
  tally(result, merged_.size());
  result.totals.seconds = seconds;
  result.totals.interrupted = !final || result.totals.not_started > 0;
  return result;
}

namespace {

// Rank 0's list: the scan, and with resume_report the inputs it lists as done, as bytes; their
// records in the earlier report go to `earlier` (rank 0 keeps them in the merged report).
std::string list_job(const FolderJobOptions& job, const DistributedCallbacks& cb, std::map<std::string, FileRecord>& earlier) {
  nvtx::Range r("scan", nvtx::Color::io);
  const io::InputScan scan = io::scan_inputs(job.inputs, job.outdir);
  auto tell = [&](const std::vector<std::string>& notices) {
    if (cb.on_notice)
      for (const auto& notice : notices) cb.on_notice(notice);
  };
  tell(scan.notices);
  std::vector<std::string> skip, notices;
  if (!job.resume_report.empty()) {
    const EarlierReport report = read_earlier_report(job.resume_report);
    skip = inputs_to_skip(job, scan.files, report, &notices);
    for (const std::string& p : skip)
      if (const auto& record = report.done.at(p).record) earlier.emplace(p, *record);
  }
  tell(notices);
  return pack_file_list(scan, skip);
}

// Chunks of about equal bytes, ~16 per rank.
std::vector<std::size_t> chunk_bounds_by_bytes(const std::vector<io::InputFile>& files, int ranks) {
  std::vector<std::uint64_t> bytes(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    const auto size = fs::file_size(files[i].path, ec);
    bytes[i] = ec ? 1 : std::max<std::uint64_t>(1, size);
  }
  return dist::chunk_bounds(bytes, std::size_t(ranks) * 16);
}

// Rank 0's watcher thread: checkpoints of the report every half second or more (at most ~10 % of
// a core for a long list), and the end of the job on a stop (run_distributed_job's contract).
class Watcher {
 public:
  Watcher(const FolderJobOptions& job, const std::atomic<bool>& stop, const DistributedCallbacks& cb,
          MergedRecords& merged, const dist::ChunkDealer& dealer, Clock::time_point t0)
      : job_(job), stop_(stop), cb_(cb), merged_(merged), dealer_(dealer), t0_(t0), thread_([this] { watch(); }) {}
  ~Watcher() { end(); }
  void end() {
    ended_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void watch();
  // Writes a checkpoint; returns why it could not ("" when it could, or none is asked for).
  std::string checkpoint();
  void stopped(const std::string& report_error);

  const FolderJobOptions& job_;
  const std::atomic<bool>& stop_;
  const DistributedCallbacks& cb_;
  MergedRecords& merged_;
  const dist::ChunkDealer& dealer_;
  const Clock::time_point t0_;
  std::atomic<bool> ended_{false};
  std::thread thread_;  // last: it starts once the rest is made
};

void Watcher::watch() {
  const bool report = !job_.report.empty();
  auto due = Clock::now() + std::chrono::milliseconds(500);
  while (!ended_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto now = Clock::now();
    if (!stop_ && (!report || now < due)) continue;
    std::string error;
    if (report && (merged_.changed() || stop_)) error = checkpoint();
    if (stop_) return stopped(error);
    due = Clock::now() + std::max(std::chrono::duration_cast<Clock::duration>(std::chrono::milliseconds(500)),
                                  10 * (Clock::now() - now));
  }
}

std::string Watcher::checkpoint() {
  try {
    write_report(job_.report, merged_.snapshot(false, seconds_since(t0_)), job_);
    return {};
  } catch (const std::exception& e) {
    if (cb_.on_checkpoint_error) cb_.on_checkpoint_error(e.what());
    return e.what();
  }
}

// The chunks in flight: their ranks end at once (removing their temporary files), but one that was
// killed cannot; what it left beside those outputs is removed here.
void Watcher::stopped(const std::string& report_error) {
  DistributedStop s;
  s.files = merged_.listed().files.size();
  s.done = merged_.done();
  s.report_written = !job_.report.empty() && report_error.empty();
  s.report_error = report_error;
  for (const auto& m : dealer_.outstanding()) {
    s.in_flight.push_back({m.rank, m.chunk.begin, m.chunk.end});
    if (m.rank == 0) continue;
    for (std::size_t i : merged_.missing(m.chunk.begin, m.chunk.end))
      s.temporaries_removed += remove_stale_temporaries(output_path(job_, merged_.listed().files[i]));
  }
  if (cb_.on_stop) cb_.on_stop(s);
}

// The chunks dealt to this rank, by first file.
struct DealtChunks {
  std::mutex mutex;
  std::map<std::size_t, dist::Chunk> by_begin;
};

// This rank's FileSource over the dealer: the chunks it is dealt, their records back to rank 0.
void deal_through(FileSource& source, dist::ChunkDealer& dealer, DealtChunks& dealt) {
  source.next = [&dealer, &dealt]() -> std::optional<std::pair<std::size_t, std::size_t>> {
    const auto c = dealer.next();
    if (!c) return std::nullopt;
    std::lock_guard lock(dealt.mutex);
    dealt.by_begin[c->begin] = *c;
    return std::make_pair(c->begin, c->end);
  };
  source.range_done = [&dealer, &dealt](std::pair<std::size_t, std::size_t> range,
                                        std::vector<std::pair<std::size_t, FileRecord>>&& records) {
    dist::Chunk c;
    {
      std::lock_guard lock(dealt.mutex);
      c = dealt.by_begin.at(range.first);
    }
    dealer.done(c, pack_records(records));
  };
}

}  // namespace

DistributedResult run_distributed_job(const FolderJobOptions& options, const std::atomic<bool>& stop,
                                      const DistributedCallbacks& cb) {
  const dist::World& world = dist::world();
  const bool rank0 = world.rank == 0;
  const auto t0 = Clock::now();
  for (const std::string& in : options.inputs)
    if (in == "-") throw OptionError("inputs", "inputs: - (standard input) cannot be read by a job of several processes");
  if (options.outdir == "-")
    throw OptionError("outdir", "outdir - (standard output) cannot be written by a job of several processes");
  FileSource source;
  std::map<std::string, FileRecord> earlier;
  {
    std::string listed = rank0 ? list_job(options, cb, earlier) : std::string();  // made once
    dist::broadcast(listed);
    source.listed = unpack_file_list(listed, source.resume_done);
  }
  const std::size_t n = source.listed.files.size();
  // Rank 0 collects the records of each chunk.
  std::optional<MergedRecords> merged;
  dist::ChunkDealer::Options o;
  if (rank0) {
    o.bounds = chunk_bounds_by_bytes(source.listed.files, world.size);
    merged.emplace(options, source.listed, source.resume_done, std::move(earlier));
    if (cb.on_start) cb.on_start(n);
    o.deliver = [&](const dist::Chunk&, int, std::string&& payload) { merged->add(payload, cb.on_merged); };
  }
  o.stop = &stop;
  dist::ChunkDealer dealer(std::move(o));
  std::optional<Watcher> watcher;
  if (rank0) watcher.emplace(options, stop, cb, *merged, dealer, t0);
  DealtChunks dealt;
  deal_through(source, dealer, dealt);

  DistributedResult out;
  out.result = run_folder_job(options, &stop, {nullptr, cb.on_file, cb.on_notice}, &source);
  out.stopped = stop.load();
  if (!rank0 && out.stopped) return out;  // no end-of-job exchange: see the header
  (void)dealer.finish();  // every rank reported (or, after a stop, the grace period is over)
  if (!rank0) return out;
  watcher->end();

  // The one report: every rank's records in input order, this rank's view of the GPU.
  const GpuSummary mine = out.result.gpu;
  out.result = merged->snapshot(true, seconds_since(t0));
  out.result.gpu.ready_s = mine.ready_s;
  out.result.gpu.not_used = mine.not_used;
  out.result.gpu.decode_warm_up = mine.decode_warm_up;
  out.result.gpu.gpu_name = mine.gpu_name;
  return out;
}

}  // namespace wk::pipeline
