#pragma once
// The folder job over the ranks of a distributed run (wk::dist: mpirun, srun). Rank 0 lists the
// inputs once and sends the list to every rank; it deals chunks of about equal bytes on demand (a
// slow rank takes fewer); each rank converts its chunks with run_folder_job on its node's GPU(s)
// or CPU, writes their outputs itself (a shared file system) and sends their records back; rank 0
// merges them into the one result and checkpoints the report while the job runs. In a world of
// one rank (no launcher) the same code runs every chunk in this process.
#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "wk/io/files.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace wk::pipeline {

// What rank 0 knows when the stop flag is seen (DistributedCallbacks::on_stop).
struct DistributedStop {
  std::size_t files = 0;        // in the job's list
  std::size_t done = 0;         // files whose records rank 0 holds (finished and reported)
  bool report_written = false;  // options.report now holds those records
  std::string report_error;     // why options.report could not be written ("" when it was, or none is set)
  struct Chunk {
    int rank = 0;
    std::size_t begin = 0, end = 0;  // files [begin, end) of the list, 0-based
  };
  std::vector<Chunk> in_flight;  // dealt and not reported: their files are to be done again
  std::size_t temporaries_removed = 0;  // temporary files the other ranks' chunks in flight left
};

struct DistributedCallbacks {
  std::function<void(std::size_t total)> on_start;   // rank 0: the job's file count, once listed
  std::function<void(const FileRecord&)> on_merged;  // rank 0: each record as a rank (itself too)
                                                     // reports it, one call at a time
  std::function<void(const FileRecord&)> on_file;    // every rank: each of its own finished files
  std::function<void(const std::string&)> on_notice; // listing and resume notices (rank 0), GPU
                                                     // fall-backs (every rank)
  std::function<void(const std::string&)> on_checkpoint_error;  // rank 0: options.report failed
  std::function<void(const DistributedStop&)> on_stop;           // rank 0: see run_distributed_job
};

struct DistributedResult {
  JobResult result;      // rank 0: the whole job's, every rank's records in input order; other
                         // ranks: their own files'
  bool stopped = false;  // `stop` was set when this rank's workers ended
};

// One rank's part of the job; every rank of the world calls it with the same options (but
// gpu_share_*, this process's share of its node's GPUs). Throws what run_folder_job throws, and
// wk::Error{internal} for a malformed message between ranks.
//
// options.report (rank 0): while the job runs, checkpoints of the report (write_report: the files
// done so far, totals.interrupted) every half second or more, as records arrive (at most ~10 % of
// a core for a long list). The final report is the caller's to write from the result.
//
// `stop`: once set, no new chunk is dealt and each rank's workers start no new file. The ranks
// then end as follows.
// - Rank 0 does not wait for the files in flight: a launcher kills every rank about a second
//   after a signal, too soon to finish them. Its watcher thread writes a last checkpoint, removes
//   the temporary files the other ranks' chunks in flight left beside their outputs, and calls
//   on_stop from that thread while this rank's workers still run. The expected on_stop ends the
//   process: it says what DistributedStop says, removes this process's own temporary files
//   (io::remove_registered_temporaries) and exits at once (_exit). When on_stop returns (or there
//   is none), the job goes on: the workers finish their files, rank 0 waits up to 2 s for the
//   other ranks' chunks and returns the merged result with totals.interrupted. (The watcher looks
//   every 10 ms: a stop set while the job ends may come too late for on_stop; the result then
//   says interrupted all the same, when files were not started.)
// - Another rank returns once its workers are done, with `stopped`, without the end-of-job
//   exchange with rank 0: rank 0 or the launcher ends the job. (A non-zero exit of its own may
//   make the launcher kill rank 0 before its report is written.)
DistributedResult run_distributed_job(const FolderJobOptions& options, const std::atomic<bool>& stop,
                                      const DistributedCallbacks& callbacks = {});

// ---- the parts of it, for tests and other transports ------------------------------------------

// The job's list as bytes: per file its path and relative path, the listing errors, and the inputs
// an earlier report lists as done (FileSource::resume_done). Every rank runs the same build.
std::string pack_file_list(const io::InputScan& scan, const std::vector<std::string>& resume_done);
// Back from pack_file_list's bytes; throws wk::Error{internal} when they are cut short.
io::InputScan unpack_file_list(std::string_view bytes, std::vector<std::string>& resume_done);

// A chunk's records (index into the list, record): one line each, the index, a space, record_json.
std::string pack_records(const std::vector<std::pair<std::size_t, FileRecord>>& records);
// Back from pack_records' bytes; throws wk::Error{internal} for a malformed line or an index not
// below `files`, wk::Error{decode} for a record that is not record_json's.
std::vector<std::pair<std::size_t, FileRecord>> unpack_records(std::string_view bytes, std::size_t files);

// Rank 0's merge of the records the ranks report, in list order. Thread-safe.
class MergedRecords {
 public:
  // `listed`: the job's list (FileSource::listed); `options` for the outputs of the files not
  // reached; both must outlive the merge. `resume_done` as in FileSource; `earlier`: the earlier
  // report's records of those inputs (DoneEntry::record), which take the place of the ranks'
  // "done in an earlier run" records (done_in_earlier_run), so that the report keeps them.
  MergedRecords(const FolderJobOptions& options, const io::InputScan& listed, const std::vector<std::string>& resume_done,
                std::map<std::string, FileRecord> earlier = {});

  const io::InputScan& listed() const noexcept { return listed_; }
  // A chunk's payload (pack_records); `on_record` for each record, under the merge's lock.
  void add(std::string_view payload, const std::function<void(const FileRecord&)>& on_record = {});
  bool changed() const;     // records were added since the last snapshot
  std::size_t done() const; // files with a record
  // The files of [begin, end) without a record yet.
  std::vector<std::size_t> missing(std::size_t begin, std::size_t end) const;
  // The job's result now: the records in list order, and for a file not reached that the earlier
  // report lists as done, done_in_earlier_run's record (so a later resume skips it too); tally's
  // totals, `seconds`, and totals.interrupted unless `final` and every file has a record.
  JobResult snapshot(bool final, double seconds);

 private:
  const FolderJobOptions& options_;
  const io::InputScan& listed_;
  const std::unordered_set<std::string> done_before_;
  const std::map<std::string, FileRecord> earlier_;
  mutable std::mutex mutex_;
  std::vector<std::optional<FileRecord>> merged_;
  bool changed_ = false;
};

}  // namespace wk::pipeline
