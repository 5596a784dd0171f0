#include "output_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wk::app {

namespace {
// "-" for what standard output already is: no -o, or an -o naming the very file or pipe this
// process's standard output is open on (/dev/stdout, /dev/fd/1, /proc/self/fd/1, or its name).
// Written through that descriptor, in place: a pipe has no name to open again, and a file the
// shell opened (`>> log`, `{ echo head; wk-hash ... -o /dev/stdout; } > f`) keeps what was
// written to it before.
std::filesystem::path output_path(const std::filesystem::path& path) {
  if (path.empty() || path == "-") return "-";
  struct stat named {}, out {};
  if (::stat(path.c_str(), &named) == 0 && ::fstat(STDOUT_FILENO, &out) == 0 && named.st_dev == out.st_dev &&
      named.st_ino == out.st_ino)
    return "-";
  return path;
}
}  // namespace

// Hashes (and audit --show-passwords' passwords) are for the owner only: a new file is 0600.
OutputSink::OutputSink(const std::filesystem::path& path) : out_(output_path(path), io::OutputOptions{.mode = 0600}) {}

void OutputSink::put(const char* data, std::size_t bytes) {
  if (bytes == 0) return;
  out_.write(data, bytes);
  written_ += bytes;
  // Start the disk writeback of every 8 MiB written so far without waiting for it: the fsync in
  // commit() then has only the tail left to wait for (~6 ms at 1.4 GB/s), not the whole file.
  constexpr std::uint64_t kWriteback = std::uint64_t(8) << 20;
  if (written_ - synced_ >= kWriteback) start_writeback_unbuffered();
}

void OutputSink::start_writeback_unbuffered() {
  if (out_.is_stream() || written_ == synced_) return;
#ifdef __linux__
  ::sync_file_range(out_.fd(), off64_t(synced_), off64_t(written_ - synced_), SYNC_FILE_RANGE_WRITE);
#endif
  synced_ = written_;
}

void OutputSink::start_writeback() {
  if (out_.is_stream()) return;
  flush_buffer();
  start_writeback_unbuffered();
}

void OutputSink::flush_buffer() {
  put(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void OutputSink::write(std::string_view text) {
  // Small pieces are gathered into 1 MiB writes; a large one (a slice of wk-hash's output, ~9 MB
  // of md5crypt lines) is written from where it is, without a copy into the buffer.
  constexpr std::size_t kBuffer = std::size_t(1) << 20;
  if (buffer_.size() + text.size() < kBuffer) {
    buffer_.append(text);
    return;
  }
  flush_buffer();
  if (text.size() >= kBuffer) put(text.data(), text.size());
  else buffer_.append(text);
}

void OutputSink::commit() {
  flush_buffer();
  out_.commit();
}

}  // namespace wk::app
