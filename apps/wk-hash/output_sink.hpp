#pragma once
// Where wk-hash writes: through wk::io::OutputFile -- standard output ("-" or no -o), a FIFO or
// character device written in place, or a file replaced atomically when everything was written
// (through a symbolic link: its target, the link kept), readable by its owner only (0600).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "wk/io/output_file.hpp"

namespace wk::app {

class OutputSink {
 public:
  // Empty path or "-": standard output. Throws wk::Error (usage: a folder; io).
  explicit OutputSink(const std::filesystem::path& path);
  ~OutputSink() = default;  // without commit(): an existing file stays as it was
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
  // Writes what is buffered; for a file, syncs and renames it into place. Throws wk::Error{io}.
  void commit();

 private:
  io::OutputFile out_;
  std::string buffer_;
  std::uint64_t written_ = 0, synced_ = 0;  // bytes written; bytes whose writeback was started
  void flush_buffer();
  void put(const char* data, std::size_t bytes);  // to the file, counting bytes for the writeback
  void start_writeback_unbuffered();  // sync_file_range(WRITE) of [synced_, written_)
};

}  // namespace wk::app
