// The folder job's report JSON: written at the end of a run, read back by resume_report. Kept apart
// from the job itself so the reader can be fuzzed without the GPU pipeline (tests/fuzz).
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <optional>
#include <string>

#include "wk/core/error.hpp"
#include "wk/image/filter.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;

namespace wk::pipeline {

namespace {

// File names are bytes on Linux, JSON strings are UTF-8. A name that is not UTF-8 is written
// twice: "path" with U+FFFD for the bad bytes (for people and jq), and "path_hex" exactly (for
// resume_report), so the report can always be written and read back.
bool is_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

std::string to_hex(const std::string& s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string h;
  h.reserve(2 * s.size());
  for (unsigned char c : s) h += kDigits[c >> 4], h += kDigits[c & 15];
  return h;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> from_hex(const std::string& h) {
  if (h.size() % 2) return std::nullopt;
  std::string s(h.size() / 2, '\0');
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int hi = hex_value(h[2 * i]), lo = hex_value(h[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    s[i] = char(hi * 16 + lo);
  }
  return s;
}

}  // namespace

const char* to_string(FileStatus s) noexcept {
  switch (s) {
    case FileStatus::ok: return "ok";
    case FileStatus::failed: return "failed";
    case FileStatus::skipped: return "skipped";
  }
  return "?";
}

namespace {

nlohmann::json record_object(const FileRecord& r) {
  nlohmann::json f = {{"path", r.path}, {"output", r.output}, {"status", to_string(r.status)}, {"width", r.width},
                      {"height", r.height}, {"device", r.device}, {"decoder", r.decoder}, {"encoder", r.encoder},
                      {"finished_s", r.finished_s},
                      {"ms", {{"read", r.ms.read}, {"decode", r.ms.decode}, {"process", r.ms.process},
                              {"encode", r.ms.encode}, {"write", r.ms.write}}}};
  if (!r.error.empty()) f["error"] = r.error;
  if (r.earlier_run) f["earlier_run"] = true;
  if (r.input_bytes || r.input_mtime_ns) {
    f["input_bytes"] = r.input_bytes;
    f["input_mtime_ns"] = r.input_mtime_ns;
  }
  if (!is_utf8(r.path)) f["path_hex"] = to_hex(r.path);
  if (!is_utf8(r.output)) f["output_hex"] = to_hex(r.output);
  return f;
}

// A record as record_object writes it; throws nlohmann's exceptions (and wk::Error{decode}) for
// one that is not.
FileRecord record_from_object(const nlohmann::json& f) {
  auto exact = [&](const char* name, const char* hex_name) {
    if (!f.contains(hex_name)) return f.at(name).get<std::string>();
    if (auto s = from_hex(f.at(hex_name).get<std::string>())) return std::move(*s);
    throw Error(ErrorCategory::decode, std::string("a file record whose ") + hex_name + " is not hexadecimal");
  };
  FileRecord r;
  r.path = exact("path", "path_hex");
  r.output = exact("output", "output_hex");
  const std::string status = f.at("status").get<std::string>();
  r.status = status == "ok" ? FileStatus::ok : status == "skipped" ? FileStatus::skipped : FileStatus::failed;
  r.error = f.value("error", "");
  r.width = f.at("width").get<int>();
  r.height = f.at("height").get<int>();
  r.device = f.at("device").get<std::string>();
  r.decoder = f.at("decoder").get<std::string>();
  r.encoder = f.at("encoder").get<std::string>();
  r.finished_s = f.at("finished_s").get<double>();
  r.input_bytes = f.value("input_bytes", std::uint64_t(0));
  r.input_mtime_ns = f.value("input_mtime_ns", std::int64_t(0));
  r.earlier_run = f.value("earlier_run", false);
  const auto& ms = f.at("ms");
  r.ms = {ms.at("read").get<double>(), ms.at("decode").get<double>(), ms.at("process").get<double>(),
          ms.at("encode").get<double>(), ms.at("write").get<double>()};
  return r;
}

}  // namespace

std::string record_json(const FileRecord& record) {
  return record_object(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

FileRecord record_from_json(std::string_view text) {
  try {
    return record_from_object(nlohmann::json::parse(text.begin(), text.end()));
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCategory::decode, std::string("not a wk-image file record (") + e.what() + ")");
  }
}

Backend backend_that_ran(const JobResult& result, const FolderJobOptions& opt) {
  if (opt.backend == Backend::gpu && opt.start_on_cpu && result.gpu.files_gpu == 0) return Backend::cpu;
  return opt.backend;
}

std::string report_json(const JobResult& result, const FolderJobOptions& opt) {
  using nlohmann::json;
  json files = json::array();
  for (const auto& r : result.records) files.push_back(record_object(r));
  const JobTotals& t = result.totals;
  json j = {{"tool", "wk-image"},
            {"pipeline", opt.pipeline_text},
            {"settings", job_settings(opt)},
            {"backend", wk::to_string(backend_that_ran(result, opt))},
            {"files", std::move(files)},
            {"input_errors", result.scan_errors},
            {"totals", {{"files", t.files}, {"ok", t.ok}, {"failed", t.failed + result.scan_errors.size()},
                        {"done_earlier", t.done_earlier}, {"skipped", t.skipped}, {"not_started", t.not_started},
                        {"interrupted", t.interrupted}, {"megapixels", t.megapixels}, {"seconds", t.seconds},
                        {"images_per_second", t.seconds > 0 ? double(t.ok - t.done_earlier) / t.seconds : 0.0}}}};
  if (opt.backend == Backend::gpu) {
    const GpuSummary& g = result.gpu;
    j["gpu"] = {{"start_on_cpu", opt.start_on_cpu}, {"ready_s", g.ready_s}, {"files_gpu", g.files_gpu},
                {"files_cpu", g.files_cpu}, {"decode_batches", g.decode_batches}, {"decoded", g.decoded},
                {"decode_busy_s", g.decode_busy_s}, {"decode_starved_s", g.decode_starved_s},
                {"decode_waiting_room_s", g.decode_waiting_room_s}, {"decode_inspect_s", g.decode_inspect_s},
                {"decode_call_s", g.decode_call_s}, {"decode_sync_s", g.decode_sync_s},
                {"worker_inspect_s", g.worker_inspect_s}};
    if (!g.not_used.empty()) j["gpu"]["not_used"] = g.not_used;
    if (!g.decode_warm_up.empty()) j["gpu"]["decode_warm_up"] = g.decode_warm_up;
  }
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void write_report(const fs::path& report, const JobResult& result, const FolderJobOptions& options) {
  const std::string json = report_json(result, options);
  io::write_output(report, std::span(reinterpret_cast<const std::uint8_t*>(json.data()), json.size()));
}

std::optional<InputStamp> input_stamp(const fs::path& input) {
  struct stat st {};
  if (::stat(input.c_str(), &st) != 0) return std::nullopt;
  return InputStamp{std::uint64_t(st.st_size), std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

std::string job_settings(const FolderJobOptions& opt) {
  return "pipeline=" + opt.pipeline_text + ";border=" + image::to_string(opt.pipeline_options.border) +
         ";plot=" + (opt.pipeline_options.plot ? "1" : "0") + ";format=" + opt.format +
         ";quality=" + std::to_string(opt.encode.jpeg_quality) + ";webp=" + std::to_string(opt.encode.webp_quality) +
         ";png=" + std::to_string(opt.encode.png_level) + ";strip=" + (opt.strip ? "1" : "0") +
         ";depth8=" + (opt.decode.to_8bit ? "1" : "0") + ";alpha=" + (opt.decode.drop_alpha ? "drop" : "refuse");
}

EarlierReport parse_earlier_report(std::string_view text, const std::string& name) {
  EarlierReport report;
  try {
    const auto j = nlohmann::json::parse(text.begin(), text.end());
    report.settings = j.value("settings", "");
    // Done: converted in that run, or already done in the run before it (a chain of resumes).
    for (const auto& f : j.at("files")) {
      if (!(f.at("status") == "ok" ||
            (f.at("status") == "skipped" && f.value("error", "").rfind("done in an earlier run", 0) == 0)))
        continue;
      auto exact = [&](const char* key, const char* hex_key) -> std::string {
        if (!f.contains(hex_key)) return f.at(key).get<std::string>();
        if (auto s = from_hex(f.at(hex_key).get<std::string>())) return std::move(*s);
        throw Error(ErrorCategory::decode, name + ": not a wk-image report (a " + hex_key + " that is not hexadecimal)");
      };
      DoneEntry e;
      e.output = exact("output", "output_hex");
      e.input_bytes = f.value("input_bytes", std::uint64_t(0));
      e.input_mtime_ns = f.value("input_mtime_ns", std::int64_t(0));
      // The whole record, for the resumed report to keep; one this version cannot read whole (a
      // report of an older version) is still a done input, reported as skipped.
      if (f.at("status") == "ok") {
        try {
          e.record = record_from_object(f);
        } catch (const std::exception&) {
        }
      }
      report.done[exact("path", "path_hex")] = std::move(e);
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCategory::decode, name + ": not a wk-image report (" + e.what() + ")");
  }
  return report;
}

EarlierReport read_earlier_report(const fs::path& report) {
  const std::vector<std::uint8_t> bytes = io::read_file(report, std::uint64_t(1) << 32);
  return parse_earlier_report({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, report.string());
}

std::vector<std::string> inputs_to_skip(const FolderJobOptions& options, const std::vector<io::InputFile>& files,
                                        const EarlierReport& earlier, std::vector<std::string>* notices) {
  std::vector<std::string> skip;
  std::size_t changed = 0, other_output = 0, output_gone = 0, listed = 0;
  if (earlier.settings != job_settings(options)) {
    if (notices && !earlier.done.empty())
      notices->push_back(
          earlier.settings.empty()
              ? "resume: the report does not record its job's settings; every file is done again"
              : "resume: the report's job had other settings (" + earlier.settings + "); every file is done again");
    return skip;
  }
  for (const io::InputFile& in : files) {
    const auto it = earlier.done.find(in.path.string());
    if (it == earlier.done.end()) continue;
    ++listed;
    const DoneEntry& e = it->second;
    if (e.output != output_path(options, in).string()) {
      ++other_output;
      continue;
    }
    const auto stamp = input_stamp(in.path);
    if (!stamp || e.input_bytes != stamp->bytes || e.input_mtime_ns != stamp->mtime_ns) {
      ++changed;
      continue;
    }
    if (!fs::exists(e.output)) {
      ++output_gone;
      continue;
    }
    skip.push_back(in.path.string());
  }
  if (!notices || listed == 0) return skip;
  auto say = [&](std::size_t n, const std::string& why) {
    if (n) notices->push_back(std::to_string(n) + (n == 1 ? " file is" : " files are") + " done again: " + why);
  };
  say(other_output, "the report lists another output for them");
  say(changed, "their input changed since the report (size or modification time)");
  say(output_gone, "their output is gone");
  return skip;
}

}  // namespace wk::pipeline
