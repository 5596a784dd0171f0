// wk-image --resume: the report reader (parse_earlier_report) on arbitrary bytes, and the
// writer/reader round trip (report_json, then the reader) on records built from the input.
// Invariants: a report that is not warpkit's JSON is a wk::Error{decode}; the round trip gives
// back exactly the inputs written as done, with their outputs, input sizes and times and the
// job's settings, whatever bytes their names hold.
#include <fuzzer/FuzzedDataProvider.h>

#include <map>

#include "fuzz_util.hpp"
#include "wk/core/error.hpp"
#include "wk/pipeline/folder_job.hpp"

using wk::fuzz::check;
using wk::fuzz::fail;
namespace wp = wk::pipeline;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto earlier = wp::parse_earlier_report(wk::fuzz::as_text(data, size), "report.json");
    for (const auto& [p, e] : earlier.done) (void)(p.size() + e.output.size());
  } catch (const wk::Error& e) {
    check(e.category() == wk::ErrorCategory::decode, "a bad report is a decode error");
  }

  // Round trip: records named by the input.
  FuzzedDataProvider in(data, size);
  wp::JobResult result;
  std::map<std::string, wp::DoneEntry> expected;
  while (in.remaining_bytes() > 0 && result.records.size() < 16) {
    wp::FileRecord r;
    const std::uint8_t kind = in.ConsumeIntegral<std::uint8_t>();
    r.path = in.ConsumeRandomLengthString(64);
    r.output = in.ConsumeRandomLengthString(32);
    r.input_bytes = in.ConsumeIntegral<std::uint32_t>();
    r.input_mtime_ns = in.ConsumeIntegral<std::int64_t>();
    r.status = kind % 3 == 0 ? wp::FileStatus::ok : kind % 3 == 1 ? wp::FileStatus::failed : wp::FileStatus::skipped;
    if (r.status != wp::FileStatus::ok) r.error = in.ConsumeRandomLengthString(32);
    if (kind & 8) r.error = "done in an earlier run (--resume)";
    const bool done = r.status == wp::FileStatus::ok ||
                      (r.status == wp::FileStatus::skipped && r.error.rfind("done in an earlier run", 0) == 0);
    if (done) expected[r.path] = wp::DoneEntry{r.output, r.input_bytes, r.input_mtime_ns};
    result.records.push_back(std::move(r));
  }
  wp::FolderJobOptions options;
  options.pipeline_text = "gray";
  const std::string json = wp::report_json(result, options);
  wp::EarlierReport back;
  try {
    back = wp::parse_earlier_report(json, "round trip");
  } catch (const wk::Error& e) {
    fail(std::string("the reader rejects the writer's report: ") + e.what());
  }
  check(back.settings == wp::job_settings(options), "the round trip keeps the job's settings");
  check(back.done.size() == expected.size(), "the round trip keeps every done input");
  for (const auto& [path, e] : expected) {
    const auto it = back.done.find(path);
    check(it != back.done.end(), "the round trip keeps every done input's name");
    check(it->second.output == e.output && it->second.input_bytes == e.input_bytes &&
              it->second.input_mtime_ns == e.input_mtime_ns,
          "the round trip keeps each done input's output, size and time");
  }
  return 0;
}
