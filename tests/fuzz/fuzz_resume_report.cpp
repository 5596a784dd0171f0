// wk-image --resume: the report reader (ok_inputs_in_report_text) on arbitrary bytes, and the
// writer/reader round trip (report_json, then the reader) on records built from the input.
// Invariants: a report that is not warpkit's JSON is a wk::Error{decode}; the round trip gives
// back exactly the inputs written as "ok", in order, whatever bytes their names hold.
#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz_util.hpp"
#include "wk/core/error.hpp"
#include "wk/pipeline/folder_job.hpp"

using wk::fuzz::check;
using wk::fuzz::fail;
namespace wp = wk::pipeline;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto ok = wp::ok_inputs_in_report_text(wk::fuzz::as_text(data, size), "report.json");
    for (const auto& p : ok) (void)p.size();
  } catch (const wk::Error& e) {
    check(e.category() == wk::ErrorCategory::decode, "a bad report is a decode error");
  }

  // Round trip: records named by the input.
  FuzzedDataProvider in(data, size);
  wp::JobResult result;
  std::vector<std::string> expected;
  while (in.remaining_bytes() > 0 && result.records.size() < 16) {
    wp::FileRecord r;
    const std::uint8_t kind = in.ConsumeIntegral<std::uint8_t>();
    r.path = in.ConsumeRandomLengthString(64);
    r.status = kind % 3 == 0 ? wp::FileStatus::ok : kind % 3 == 1 ? wp::FileStatus::failed : wp::FileStatus::skipped;
    if (r.status != wp::FileStatus::ok) r.error = in.ConsumeRandomLengthString(32);
    if (kind & 8) r.error = "done in an earlier run (--resume)";
    const bool done = r.status == wp::FileStatus::ok ||
                      (r.status == wp::FileStatus::skipped && r.error.rfind("done in an earlier run", 0) == 0);
    if (done) expected.push_back(r.path);
    result.records.push_back(std::move(r));
  }
  wp::FolderJobOptions options;
  options.pipeline_text = "gray";
  const std::string json = wp::report_json(result, options);
  std::vector<std::string> back;
  try {
    back = wp::ok_inputs_in_report_text(json, "round trip");
  } catch (const wk::Error& e) {
    fail(std::string("the reader rejects the writer's report: ") + e.what());
  }
  check(back == expected, "the round trip keeps every done input's name");
  return 0;
}
