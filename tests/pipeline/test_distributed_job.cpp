// The distributed folder job without a launcher: its messages between ranks, rank 0's merge of
// the records, and the whole job in a world of one rank (every chunk dealt to this process).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "test_support.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/io/files.hpp"
#include "wk/pipeline/distributed_job.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {

pipeline::FileRecord record(const std::string& path, pipeline::FileStatus status, int width = 4, int height = 3) {
  pipeline::FileRecord r;
  r.path = path;
  r.output = "out/" + path;
  r.status = status;
  r.width = width;
  r.height = height;
  r.device = "cpu";
  r.decoder = r.encoder = "opencv";
  return r;
}

// totals: files, ok, failed, skipped, not started.
std::vector<std::size_t> counts(const pipeline::JobResult& r) {
  const pipeline::JobTotals& t = r.totals;
  return {t.files, t.ok, t.failed, t.skipped, t.not_started};
}

io::InputScan listed(std::size_t files) {
  io::InputScan scan;
  for (std::size_t i = 0; i < files; ++i) {
    const std::string name = "f" + std::to_string(i) + ".png";
    scan.files.push_back({fs::path("in") / name, fs::path(name)});
  }
  return scan;
}

// A folder of small PNGs (and one file that is not an image) for whole jobs.
fs::path make_inputs(const test::TempDir& dir, int images) {
  const fs::path in = dir / "in";
  fs::create_directories(in / "sub");
  for (int i = 0; i < images; ++i)
    cv::imwrite((in / (i % 3 ? "" : "sub") / ("p" + std::to_string(100 + i) + ".png")).string(),
                test::random_image(24, 16, 3, unsigned(i)));
  test::write_bytes(in / "broken.png", "not a png");
  return in;
}

pipeline::FolderJobOptions job_over(const fs::path& in, const fs::path& out) {
  pipeline::FolderJobOptions opt;
  opt.pipeline_text = "gray,gauss:3";
  opt.inputs = {in.string()};
  opt.outdir = out;
  opt.threads = 2;
  return opt;
}

}  // namespace

TEST_CASE("distributed job: the file list survives pack_file_list / unpack_file_list", "[pipeline][dist]") {
  io::InputScan scan = listed(3);
  scan.files.push_back({fs::path(std::string("in/caf\xe9 \n.png", 14)), fs::path(std::string("caf\xe9 \n.png", 11))});
  scan.files.push_back({fs::path(""), fs::path("")});
  scan.errors = {"in/unreadable: cannot list the folder", std::string("a\0b", 3)};
  const std::vector<std::string> done = {"in/f1.png", std::string("in/caf\xe9 \n.png", 14)};

  std::vector<std::string> done_back;
  const io::InputScan back = pipeline::unpack_file_list(pipeline::pack_file_list(scan, done), done_back);
  REQUIRE(back.files.size() == scan.files.size());
  for (std::size_t i = 0; i < scan.files.size(); ++i) {
    CHECK(back.files[i].path == scan.files[i].path);
    CHECK(back.files[i].relative == scan.files[i].relative);
  }
  CHECK(back.errors == scan.errors);
  CHECK(done_back == done);

  // Empty, and cut short anywhere: an internal error, never a read past the end.
  std::vector<std::string> none;
  CHECK(pipeline::unpack_file_list(pipeline::pack_file_list({}, {}), none).files.empty());
  CHECK(none.empty());
  const std::string bytes = pipeline::pack_file_list(scan, done);
  for (std::size_t cut : {std::size_t(0), std::size_t(5), bytes.size() / 2, bytes.size() - 1}) {
    CAPTURE(cut);
    std::vector<std::string> d;
    try {
      (void)pipeline::unpack_file_list(std::string_view(bytes).substr(0, cut), d);
      FAIL("a cut list was taken");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::internal);
    }
  }
}

TEST_CASE("distributed job: a chunk's records survive pack_records / unpack_records", "[pipeline][dist]") {
  std::vector<std::pair<std::size_t, pipeline::FileRecord>> records = {
      {7, record("in/a.png", pipeline::FileStatus::ok, 640, 480)},
      {2, record(std::string("in/caf\xe9\n.png", 13), pipeline::FileStatus::failed)},
      {9, record("in/c.png", pipeline::FileStatus::skipped)}};
  records[1].second.error = "not an image\nsecond line";
  const auto back = pipeline::unpack_records(pipeline::pack_records(records), 10);
  REQUIRE(back.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(back[k].first == records[k].first);
    CHECK(back[k].second.path == records[k].second.path);
    CHECK(back[k].second.status == records[k].second.status);
    CHECK(back[k].second.error == records[k].second.error);
    CHECK(back[k].second.width == records[k].second.width);
  }
  CHECK(pipeline::unpack_records("", 10).empty());

  auto internal_error = [](std::string_view bytes, std::size_t files) {
    try {
      (void)pipeline::unpack_records(bytes, files);
    } catch (const Error& e) {
      return e.category() == ErrorCategory::internal;
    }
    return false;
  };
  CHECK(internal_error(pipeline::pack_records(records), 9));  // index 9 of 9 files
  const std::string one = pipeline::pack_records({records[0]});
  CHECK(internal_error(one.substr(0, one.size() - 1), 10));  // no end of line
  CHECK(internal_error("x " + one.substr(2), 10));            // not an index
  CHECK(internal_error("7\n", 10));
  CHECK_THROWS_AS(pipeline::unpack_records("1 {\"path\": 3}\n", 10), Error);  // not a record
}

TEST_CASE("distributed job: rank 0 merges records in list order, resume's files included", "[pipeline][dist]") {
  pipeline::FolderJobOptions opt;
  opt.outdir = "out";
  const io::InputScan scan = listed(6);
  // f4 was done by an earlier run: a file not reached yet is still reported as done.
  pipeline::MergedRecords merged(opt, scan, {"in/f4.png"});
  CHECK(merged.done() == 0);
  CHECK_FALSE(merged.changed());
  CHECK(merged.missing(0, 6) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});

  std::vector<std::string> seen;
  auto on_record = [&](const pipeline::FileRecord& r) { seen.push_back(r.path); };
  merged.add(pipeline::pack_records({{3, record("in/f3.png", pipeline::FileStatus::ok, 1000, 1000)},
                                     {2, record("in/f2.png", pipeline::FileStatus::failed)}}),
             on_record);
  merged.add(pipeline::pack_records({{0, record("in/f0.png", pipeline::FileStatus::ok, 1000, 500)}}), on_record);
  CHECK(seen == std::vector<std::string>{"in/f3.png", "in/f2.png", "in/f0.png"});
  CHECK(merged.changed());
  CHECK(merged.done() == 3);
  CHECK(merged.missing(0, 6) == std::vector<std::size_t>{1, 4, 5});
  CHECK(merged.missing(2, 4).empty());

  pipeline::JobResult now = merged.snapshot(false, 1.5);
  CHECK_FALSE(merged.changed());
  REQUIRE(now.records.size() == 4);
  CHECK(now.records[0].path == "in/f0.png");
  CHECK(now.records[1].path == "in/f2.png");
  CHECK(now.records[2].path == "in/f3.png");
  CHECK(now.records[3].path == "in/f4.png");
  CHECK(now.records[3].status == pipeline::FileStatus::skipped);
  CHECK(now.records[3].output == (fs::path("out") / "f4.png").string());
  CHECK(counts(now) == std::vector<std::size_t>{6, 2, 1, 1, 2});
  CHECK(now.totals.megapixels == Approx(1.5));
  CHECK(now.totals.seconds == 1.5);
  CHECK(now.totals.interrupted);

  // The rest arrives (f4 done again): the final result is complete, not interrupted.
  merged.add(pipeline::pack_records({{1, record("in/f1.png", pipeline::FileStatus::ok)},
                                     {4, record("in/f4.png", pipeline::FileStatus::ok)},
                                     {5, record("in/f5.png", pipeline::FileStatus::ok)}}));
  const pipeline::JobResult all = merged.snapshot(true, 2.0);
  REQUIRE(all.records.size() == 6);
  CHECK(all.records[4].status == pipeline::FileStatus::ok);
  CHECK(all.totals.not_started == 0);
  CHECK_FALSE(all.totals.interrupted);
  CHECK(merged.snapshot(false, 2.0).totals.interrupted);  // a checkpoint always says so

  CHECK_THROWS_AS(merged.add(pipeline::pack_records({{6, record("in/f6.png", pipeline::FileStatus::ok)}})), Error);
}

TEST_CASE("distributed job: rank 0 keeps the earlier report's records of the files the ranks skip", "[pipeline][dist]") {
  pipeline::FolderJobOptions opt;
  opt.outdir = "out";
  const io::InputScan scan = listed(3);
  pipeline::FileRecord f1 = record("in/f1.png", pipeline::FileStatus::ok, 640, 480);
  f1.finished_s = 7.5;
  pipeline::FileRecord f2 = record("in/f2.png", pipeline::FileStatus::ok, 320, 200);
  f2.finished_s = 8.5;
  pipeline::MergedRecords merged(opt, scan, {"in/f1.png", "in/f2.png"}, {{"in/f1.png", f1}, {"in/f2.png", f2}});

  // A rank skips f1 as done: its record is the earlier report's, marked as such; f2, not reached
  // yet, is already the earlier report's as well.
  merged.add(pipeline::pack_records({{0, record("in/f0.png", pipeline::FileStatus::ok, 1000, 1000)},
                                     {1, pipeline::done_in_earlier_run(opt, scan.files[1])}}));
  const pipeline::JobResult now = merged.snapshot(true, 1.0);
  REQUIRE(now.records.size() == 3);
  CHECK_FALSE(now.records[0].earlier_run);
  for (std::size_t i : {1, 2}) {
    CAPTURE(i);
    CHECK(now.records[i].earlier_run);
    CHECK(now.records[i].status == pipeline::FileStatus::ok);
  }
  CHECK(now.records[1].width == 640);
  CHECK(now.records[1].finished_s == 7.5);
  CHECK(now.records[2].finished_s == 8.5);
  // ok counts all three; the megapixels and the devices' counts are this run's only.
  CHECK(counts(now) == std::vector<std::size_t>{3, 3, 0, 0, 0});
  CHECK(now.totals.done_earlier == 2);
  CHECK(now.totals.megapixels == Approx(1.0));
  CHECK(now.gpu.files_cpu == 1);
}

TEST_CASE("distributed job in a world of one: the same records and outputs as run_folder_job", "[pipeline][dist]") {
  REQUIRE_FALSE(dist::world().distributed());
  test::TempDir dir;
  const fs::path in = make_inputs(dir, 20);
  const pipeline::JobResult local = pipeline::run_folder_job(job_over(in, dir / "local"));

  pipeline::FolderJobOptions opt = job_over(in, dir / "dist");
  std::atomic<bool> stop{false};
  std::size_t total = 0, merged = 0, mine = 0;
  std::atomic<bool> said_stop{false};
  pipeline::DistributedCallbacks cb;
  cb.on_start = [&](std::size_t n) { total = n; };
  cb.on_merged = [&](const pipeline::FileRecord&) { ++merged; };
  cb.on_file = [&](const pipeline::FileRecord&) { ++mine; };
  cb.on_stop = [&](const pipeline::DistributedStop&) { said_stop = true; };
  const pipeline::DistributedResult run = pipeline::run_distributed_job(opt, stop, cb);
  CHECK_FALSE(run.stopped);
  CHECK_FALSE(said_stop);
  CHECK(total == 21);
  CHECK(merged == 21);
  CHECK(mine == 21);
  const pipeline::JobResult& r = run.result;
  REQUIRE(r.records.size() == local.records.size());
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    CAPTURE(r.records[i].path);
    CHECK(r.records[i].path == local.records[i].path);
    CHECK(r.records[i].status == local.records[i].status);
    CHECK(fs::relative(r.records[i].output, dir / "dist") == fs::relative(local.records[i].output, dir / "local"));
    if (r.records[i].status == pipeline::FileStatus::ok)
      CHECK(test::read_bytes(r.records[i].output) == test::read_bytes(local.records[i].output));
  }
  CHECK(r.totals.ok == 20);
  CHECK(r.totals.failed == 1);
  CHECK_FALSE(r.totals.interrupted);

  // Resumed from its report: every converted file is skipped as done, the broken one fails again.
  pipeline::write_report(dir / "r.json", r, opt);
  opt.resume_report = dir / "r.json";
  const pipeline::DistributedResult again = pipeline::run_distributed_job(opt, stop);
  // The merged report keeps the first run's records of the files skipped.
  CHECK(again.result.totals.done_earlier == 20);
  CHECK(again.result.totals.ok == 20);
  CHECK(again.result.totals.skipped == 0);
  CHECK(again.result.totals.failed == 1);
  REQUIRE(again.result.records.size() == r.records.size());
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    if (r.records[i].status != pipeline::FileStatus::ok) continue;
    CAPTURE(r.records[i].path);
    CHECK(again.result.records[i].earlier_run);
    CHECK(again.result.records[i].finished_s == r.records[i].finished_s);
  }
}

TEST_CASE("distributed job: on a stop rank 0 checkpoints the report and says what was in flight", "[pipeline][dist]") {
  test::TempDir dir;
  const fs::path in = make_inputs(dir, 40);
  pipeline::FolderJobOptions opt = job_over(in, dir / "out");
  opt.threads = 1;
  opt.report = dir / "r.json";
  std::atomic<bool> stop{false};
  std::optional<pipeline::DistributedStop> said;
  std::size_t finished = 0;
  pipeline::DistributedCallbacks cb;
  cb.on_file = [&](const pipeline::FileRecord&) {
    // The fifth file is slow: the stop is seen while it is in flight (the watcher looks every 10 ms).
    if (++finished != 5) return;
    stop = true;
    for (int k = 0; k < 200 && !said; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  cb.on_stop = [&](const pipeline::DistributedStop& s) { said = s; };  // returns: the job goes on
  const pipeline::DistributedResult run = pipeline::run_distributed_job(opt, stop, cb);
  REQUIRE(said.has_value());
  CHECK(run.stopped);
  CHECK(said->files == 41);
  CHECK(said->done < 5);  // only whole chunks are reported; the fifth file's is in flight
  CHECK(said->report_written);
  CHECK(said->report_error.empty());
  REQUIRE(said->in_flight.size() == 1);
  CHECK(said->in_flight[0].rank == 0);
  CHECK(said->in_flight[0].begin < 5);
  CHECK(said->in_flight[0].end >= 5);
  CHECK(said->temporaries_removed == 0);
  // The checkpoint lists what was reported then, as done.
  CHECK(pipeline::read_earlier_report(opt.report).done.size() <= said->done);
  CHECK(pipeline::read_earlier_report(opt.report).settings == pipeline::job_settings(opt));
  // After on_stop returned, the files in flight finished and the result says what was not started.
  CHECK(run.result.totals.interrupted);
  CHECK(run.result.records.size() == finished);
  CHECK(run.result.totals.not_started == 41 - finished);
}
