#pragma once
// Where wk-hash writes: standard output, or a file replaced atomically (a temporary file in the
// same folder, renamed over the target only when everything was written).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "wk/io/files.hpp"

namespace wk::app {

class OutputSink {
 public:
  // Empty path or "-": standard output. Throws wk::Error{io}.
  explicit OutputSink(const std::filesystem::path& path);
  ~OutputSink();  // an uncommitted temporary file is removed
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;

  void write(std::string_view text);
  void line(std::string_view text) {
    write(text);
    write("\n");
  }
  // For a file: writes out what is buffered and starts the disk writeback of everything not yet
  // started, without waiting, so that work done before commit() overlaps it. Throws wk::Error{io}.
  void start_writeback();
  // Flushes; for a file, syncs and renames it into place. Throws wk::Error{io}.
  void commit();

 private:
  std::filesystem::path target_, temp_;
  std::FILE* file_ = nullptr;
  bool is_stdout_ = true;
  bool committed_ = false;
  std::string buffer_;
  std::uint64_t written_ = 0, synced_ = 0;  // bytes written; bytes whose writeback was started
  io::TemporaryRegistration registered_;  // so an interrupt handler can remove temp_
  void flush_buffer();
  void put(const char* data, std::size_t bytes);  // to the file, counting bytes for the writeback
  void start_writeback_unbuffered();  // fflush, then sync_file_range(WRITE) of [synced_, written_)
};

}  // namespace wk::app
