#pragma once
// The one output writer of warpkit: every file an app writes (images, reports, hash lists, keys,
// ciphertext, plaintext) goes through OutputFile. What it guarantees (docs/file-safety.md):
//  - a regular file is replaced whole or not at all: the data goes to an unnamed temporary file
//    (O_TMPFILE) in the target's folder, is fsync'ed, then linked in and renamed over the target.
//    A crash or SIGKILL leaves nothing behind; where the file system has no O_TMPFILE, the
//    temporary is named ".NAME.wk-PID-XXXXXX" and a later writer removes those of dead processes;
//  - a symbolic link is followed: its final target is replaced and the link stays a link;
//  - a FIFO or character device (/dev/null, a terminal) is written in place;
//  - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are the process's own open
//    descriptors (a shell's `> f`, `>> f`, `| cmd`, `>(cmd)`): written through them, never replaced.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wk/io/files.hpp"

namespace wk::io {

struct OutputOptions {
  unsigned mode = 0666;  // permission bits of the new file, before the umask (keys, plaintext: 0600)
  bool replace = true;   // false: an existing target is never replaced (wk::Error{usage})
  bool sync = true;      // fsync the data before it is renamed into place
};

class OutputFile {
 public:
  // Opens the output (nothing is visible at `path` until commit()). Throws wk::Error: usage for
  // a folder or (replace=false) an existing file, io for what the system refuses.
  explicit OutputFile(const std::filesystem::path& path, const OutputOptions& options = {});
  ~OutputFile();  // without commit(): the data is discarded, an existing target stays as it was
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Writes all of `bytes` (retrying short writes). Throws wk::Error{io}.
  void write(const void* data, std::size_t bytes);
  void write(std::span<const std::uint8_t> bytes) { write(bytes.data(), bytes.size()); }
  // Makes the data the target's content: fsync, link, rename. For a stream (standard output, a
  // FIFO, a character device) nothing more is done. Throws wk::Error{io}; then nothing changed.
  void commit();

  int fd() const { return fd_; }
  // Written in place: standard output, a FIFO or a character device.
  bool is_stream() const { return stream_; }
  const std::filesystem::path& path() const { return path_; }      // as given
  const std::filesystem::path& target() const { return target_; }  // after symbolic links
  std::uint64_t written() const { return written_; }

 private:
  std::filesystem::path path_, target_, named_temp_;  // named_temp_: fallback without O_TMPFILE
  OutputOptions options_;
  int fd_ = -1;
  bool stream_ = false, owns_fd_ = true, committed_ = false;
  std::uint64_t written_ = 0;
  TemporaryRegistration registered_;
  void link_into_place();
};

// Writes `bytes` to `path` through an OutputFile (created folders included).
void write_output(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                  const OutputOptions& options = {});

// The file `path` finally names: symbolic links followed one by one (a dangling link yields the
// file it would create). Throws wk::Error{io} for a loop or an unreadable link.
std::filesystem::path resolve_links(const std::filesystem::path& path);

// Removes ".NAME.wk-PID-XXXXXX" files of processes that no longer run from `folder` (what an
// OutputFile without O_TMPFILE leaves behind after SIGKILL); returns how many. Each folder is swept
// once per process.
std::size_t sweep_stale_temporaries(const std::filesystem::path& folder);

// A file the job reads or writes, and what the job calls it in messages ("the input", "the key
// file", "the report", "the output").
struct JobFile {
  std::string role;
  std::filesystem::path path;
};
// Throws wk::Error{usage} when a file the job writes is one it reads (the same device and inode,
// links followed), or when two writes name the same file. Only regular files count: "-", the
// process's own descriptors, FIFOs and devices (which a job may read and write), and missing
// inputs are passed over.
void check_writes_apart(std::span<const JobFile> reads, std::span<const JobFile> writes);

// Device and inode of what `path` names (links followed); nullopt when it does not exist.
struct FileIdentity {
  std::uint64_t device = 0, inode = 0;
  bool operator==(const FileIdentity&) const = default;
  bool operator<(const FileIdentity& o) const { return device != o.device ? device < o.device : inode < o.inode; }
};
std::optional<FileIdentity> identity_of(const std::filesystem::path& path);

// `text` safe to print on a terminal: control bytes and bytes that are not UTF-8 are written as
// C escapes (\n, \t, \033, ...), as `ls -b` shows names; everything else is unchanged.
std::string printable(std::string_view text);

}  // namespace wk::io
