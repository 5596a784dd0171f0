// The audit's session file (wk/hash/audit_session.hpp): JSON through nlohmann, written through the
// one output writer (temporary file, fsync, rename).
#include "wk/hash/audit_session.hpp"

#include <nlohmann/json.hpp>

#include <span>

#include "wk/core/error.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"

namespace wk::hash {

namespace {
constexpr const char* kFormatKey = "warpkit_audit_session";
constexpr int kVersion = 1;
}  // namespace

void write_checkpoint(const std::filesystem::path& path, const AuditCheckpoint& checkpoint) {
  nlohmann::ordered_json j;
  j[kFormatKey] = kVersion;
  j["options"] = nlohmann::ordered_json::parse(checkpoint.options);
  j["candidates"] = checkpoint.candidates;
  j["next"] = checkpoint.next;
  j["found"] = nlohmann::ordered_json::array();
  for (const auto& [line, candidate] : checkpoint.found) j["found"].push_back({line, candidate});
  const std::string text = j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  io::OutputOptions o;
  o.mode = 0600;
  io::write_output(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), o);
}

AuditCheckpoint read_checkpoint(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes = io::read_file(path);
  auto bad = [&](const std::string& why) {
    return Error(ErrorCategory::usage, path.string() + ": not a wk-hash audit session file (" + why + ")");
  };
  const auto j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw bad("no JSON object");
  if (!j.contains(kFormatKey) || j[kFormatKey] != kVersion) throw bad("no \"warpkit_audit_session\": 1");
  AuditCheckpoint c;
  try {
    if (!j.at("options").is_object()) throw bad("\"options\" is no object");
    c.options = j.at("options").dump();
    c.candidates = j.at("candidates").get<std::uint64_t>();
    c.next = j.at("next").get<std::uint64_t>();
    for (const auto& f : j.at("found")) c.found.emplace_back(f.at(0).get<std::size_t>(), f.at(1).get<std::uint64_t>());
  } catch (const nlohmann::json::exception& e) {
    throw bad(e.what());
  }
  if (c.next > c.candidates) throw bad("\"next\" is past \"candidates\"");
  return c;
}

}  // namespace wk::hash
