#pragma once
// The session file of `wk-hash audit`: where an audit stood at its last checkpoint, so that it can
// be resumed without trying a candidate twice. JSON:
//   {"warpkit_audit_session": 1,
//    "options": {...},          the command's own options (the caller's; the library keeps them as given)
//    "candidates": N,           the candidate source's size (a resumed audit must make the same)
//    "next": K,                 the first candidate not yet tried: every slice below it is done
//    "found": [[LINE, C], ...]} matches so far: the hash file's 1-based line, the candidate's index
// No password is in it: a match is its candidate's index, made again from the source.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace wk::hash {

struct AuditCheckpoint {
  std::string options = "{}";  // a JSON object, as text
  std::uint64_t candidates = 0;
  std::uint64_t next = 0;
  std::vector<std::pair<std::size_t, std::uint64_t>> found;  // (hash file line, candidate index)
};

// Replaces `path` whole (a temporary file in its folder, fsync'ed, renamed over it), mode 0600: an
// interruption at any moment leaves the previous checkpoint or this one. Throws wk::Error{io}.
void write_checkpoint(const std::filesystem::path& path, const AuditCheckpoint& checkpoint);
// Throws wk::Error{io} when the file cannot be read, wk::Error{usage} naming the file when it is
// no session file of this version (or `options` is no JSON object).
AuditCheckpoint read_checkpoint(const std::filesystem::path& path);

}  // namespace wk::hash
