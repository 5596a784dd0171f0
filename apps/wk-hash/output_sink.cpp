#include "output_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wk/core/error.hpp"

namespace wk::app {

namespace {
[[noreturn]] void io_error(const std::filesystem::path& p, const std::string& what) {
  throw Error(ErrorCategory::io, p.string() + ": " + what + ": " + std::strerror(errno));
}
}  // namespace

OutputSink::OutputSink(const std::filesystem::path& path) {
  if (path.empty() || path == "-") {
    file_ = stdout;
    return;
  }
  {
    std::error_code ec;  // refused before any work, not at the final rename
    if (std::filesystem::is_directory(path, ec)) throw Error(ErrorCategory::usage, path.string() + ": is a folder; name the output file");
  }
  is_stdout_ = false;
  target_ = path;
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // Same naming scheme as wk::io::write_file_atomic (".NAME.wk-XXXXXX"), so cleanup tools agree.
  std::string tmpl = (dir / ("." + path.filename().string() + ".wk-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) io_error(path, "cannot create a temporary file next to it");
  temp_ = tmpl;
  registered_ = io::TemporaryRegistration(temp_);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    std::filesystem::remove(temp_);
    io_error(path, "cannot open the temporary file");
  }
}

OutputSink::~OutputSink() {
  if (!is_stdout_ && !committed_) {
    if (file_) std::fclose(file_);
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

void OutputSink::put(const char* data, std::size_t bytes) {
  if (bytes == 0) return;
  if (std::fwrite(data, 1, bytes, file_) != bytes)
    io_error(is_stdout_ ? std::filesystem::path("standard output") : target_, "write failed");
  written_ += bytes;
  // Start the disk writeback of every 8 MiB written so far without waiting for it: the fsync in
  // commit() then has only the tail left to wait for (~6 ms at 1.4 GB/s), not the whole file.
  constexpr std::uint64_t kWriteback = std::uint64_t(8) << 20;
  if (written_ - synced_ >= kWriteback) start_writeback_unbuffered();
}

void OutputSink::start_writeback_unbuffered() {
  if (is_stdout_ || written_ == synced_) return;
  if (std::fflush(file_) != 0) io_error(target_, "write failed");
#ifdef __linux__
  ::sync_file_range(::fileno(file_), off64_t(synced_), off64_t(written_ - synced_), SYNC_FILE_RANGE_WRITE);
#endif
  synced_ = written_;
}

void OutputSink::start_writeback() {
  if (is_stdout_) return;
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
  if (std::fflush(file_) != 0) io_error(is_stdout_ ? std::filesystem::path("standard output") : target_, "write failed");
  if (is_stdout_) {
    committed_ = true;
    return;
  }
  if (::fsync(::fileno(file_)) != 0) io_error(target_, "fsync failed");
  if (std::fclose(file_) != 0) {
    file_ = nullptr;
    io_error(target_, "close failed");
  }
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::rename(temp_, target_, ec);
  if (ec) {
    std::filesystem::remove(temp_);
    throw Error(ErrorCategory::io, target_.string() + ": cannot rename the temporary file into place: " + ec.message());
  }
  registered_.release();
  committed_ = true;
}

}  // namespace wk::app
