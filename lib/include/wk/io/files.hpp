#pragma once
// File-system helpers shared by the apps: whole-file reads, atomic writes, input discovery.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace wk::io {

// Reads a regular file whole. Throws wk::Error{io} naming the file and the reason.
std::vector<std::uint8_t> read_file(const std::filesystem::path& path);

// Writes `bytes` to `path` atomically: a temporary file in the same folder (".NAME.wk-XXXXXX"),
// flushed, then renamed over `path`. On any failure the temporary file is removed, an existing
// `path` is left untouched, and wk::Error{io} is thrown. Creates missing parent folders.
void write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

// True for the file name patterns write_file_atomic uses for its temporary files.
bool is_temporary_name(const std::filesystem::path& path);

// Temporary files a signal handler may have to remove. Every writer of a temporary file that is
// renamed into place later (write_file_atomic, wk-hash's -o, wk-crypt's output) registers it for
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
// remove_registered_temporaries, and from then on write_file_atomic writes nothing (it throws
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
  std::vector<std::string> errors;  // "PATH: reason" for inputs that could not be listed
};

// Expands each input: a file is taken as it is (whatever its extension); a folder is walked
// recursively in sorted order and yields files whose extension is a known image format
// (is_image_extension). Folders inside `skip_dir` (the output folder) are not entered.
InputScan scan_inputs(std::span<const std::string> inputs, const std::filesystem::path& skip_dir);

// jpg jpeg jpe png bmp dib tif tiff webp pbm pgm ppm pnm pxm pfm sr ras hdr pic exr jp2 (any case).
bool is_image_extension(const std::filesystem::path& path);

}  // namespace wk::io
