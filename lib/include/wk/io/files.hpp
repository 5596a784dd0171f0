#pragma once
// File-system helpers shared by the apps: whole-file reads, input discovery, the registry of
// temporary files. Writing is io::OutputFile (wk/io/output_file.hpp).
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace wk::io {

// Reads a regular file whole, at most `max_bytes` of it. Anything but a regular file (a FIFO, a
// device) and a larger file are refused without being read; opening never blocks. Throws
// wk::Error{io} naming the file and the reason.
std::vector<std::uint8_t> read_file(const std::filesystem::path& path,
                                    std::uint64_t max_bytes = std::uint64_t(1) << 40);

// Reads standard input to its end (a pipe, a terminal, a redirected file), at most `max_bytes`.
// For a tool's "-" input: the data cannot be read twice, so it is read whole before any decoding.
// Throws wk::Error{io} naming "standard input" and the reason (more than max_bytes included).
std::vector<std::uint8_t> read_standard_input(std::uint64_t max_bytes = std::uint64_t(1) << 40);

// True for the names of temporary files (".NAME.wk-..."; io::OutputFile without O_TMPFILE).
bool is_temporary_name(const std::filesystem::path& path);

// Temporary files a signal handler may have to remove. Every writer of a temporary file that is
// renamed into place later (io::OutputFile) registers it for
// as long as it exists; remove_registered_temporaries() unlinks every registered path and is
// async-signal-safe (atomics and unlink(2) only), for a handler that ends the process at once.
// Up to 1024 files at a time and paths below 4096 bytes are tracked; beyond that, best effort.
class TemporaryRegistration {
 public:
  TemporaryRegistration() = default;
  explicit TemporaryRegistration(const std::filesystem::path& path) noexcept;
  ~TemporaryRegistration() { release(); }
  TemporaryRegistration(TemporaryRegistration&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  TemporaryRegistration& operator=(TemporaryRegistration&& o) noexcept;
  TemporaryRegistration(const TemporaryRegistration&) = delete;
  TemporaryRegistration& operator=(const TemporaryRegistration&) = delete;
  // The file was renamed into place or removed: stop tracking it.
  void release() noexcept;

 private:
  int slot_ = -1;
};
void remove_registered_temporaries() noexcept;
// remove_registered_temporaries, and from then on io::OutputFile writes nothing (it throws
// wk::Error{io}): for a process that stops but must stay alive a while (an MPI rank waiting for
// rank 0 to end the job). A file whose rename raced with it is either complete or absent.
// Async-signal-safe.
void close_temporaries() noexcept;
bool temporaries_closed() noexcept;

struct InputFile {
  std::filesystem::path path;      // as found (input root joined with the relative part)
  std::filesystem::path relative;  // below its input root; for a file given directly, its name
};

struct InputScan {
  std::vector<InputFile> files;
  std::vector<std::string> errors;   // "PATH: reason" for inputs and folders that could not be read
  std::vector<std::string> notices;  // "PATH: ..." for inputs taken once though named twice
};

// Expands each input: a file is taken as it is (whatever its extension); a folder is walked
// recursively in sorted order and yields files whose extension is a known image format
// (is_image_extension). Folders inside `skip_dir` (the output folder) are not entered, nor are
// links to folders. Every input or folder that cannot be read is an error of its own (the walk
// goes on); the same file named twice with the same relative name is taken once (a notice).
InputScan scan_inputs(std::span<const std::string> inputs, const std::filesystem::path& skip_dir);

// jpg jpeg jpe png bmp dib tif tiff webp pbm pgm ppm pnm pxm pfm sr ras hdr pic exr jp2 (any case).
bool is_image_extension(const std::filesystem::path& path);

}  // namespace wk::io
