#pragma once
// What the IDEA file formats share: an input read in order (a regular file, or standard input as
// "-": a pipe, a FIFO, a terminal) that can tell whether anything follows what was read, and the
// three-slot pipeline that reads batch j+1, transforms batch j and writes batch j-1 at once.
#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "wk/cipher/idea_file.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/io/output_file.hpp"

namespace wk::cipher::detail {

[[noreturn]] void throw_at(ErrorCategory category, const std::filesystem::path& path, const std::string& what);
// An error about `path` that `setting` decides.
[[noreturn]] void throw_setting(ErrorCategory category, IdeaSetting setting, const std::filesystem::path& path,
                                const std::string& what);
void random_bytes(std::uint8_t* out, std::size_t n);
// "a FIFO", "a folder", ... for a st_mode that is not a regular file.
const char* file_kind(mode_t mode);
// Refuses an output that is a folder, or (replace false) an existing regular file, before any work.
void check_output(const std::filesystem::path& out, bool replace);

class InputStream {
 public:
  // "-" is standard input, whatever it is; any other path must be a regular file (opening never
  // blocks: a FIFO or device is refused). Throws wk::Error{io} naming the file.
  explicit InputStream(const std::filesystem::path& path);
  // The input of a job that writes `out`: first refuses (wk::Error{usage}) an `out` that is `in`
  // (links followed), then opens `in`, then refuses an `out` that is a folder or, without
  // `replace`, an existing regular file (check_output).
  InputStream(const std::filesystem::path& in, const std::filesystem::path& out, bool replace);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // The size of a regular file; nullopt for standard input that is not one.
  std::optional<std::uint64_t> size() const { return size_; }
  // The name messages give it: the path, or "standard input".
  const std::filesystem::path& name() const { return name_; }
  // Reads up to n bytes: fewer only where the input ends. Throws wk::Error{io}.
  std::size_t read(std::uint8_t* dst, std::size_t n);
  // True when nothing follows what was read (reads one byte ahead, kept for the next read).
  bool at_end();
  std::uint64_t consumed() const { return consumed_; }

 private:
  std::filesystem::path name_;
  int fd_ = -1;
  bool owns_fd_ = true;
  std::optional<std::uint64_t> size_;
  std::optional<std::uint8_t> peeked_;
  bool eof_ = false;
  std::uint64_t consumed_ = 0;
  std::size_t read_fd(std::uint8_t* dst, std::size_t n);
};

// A batch as read: its bytes and whether the input ends after it.
struct Batch {
  std::size_t bytes = 0;
  bool last = false;
};

// One of three slots: the input batch and, for formats whose output differs in layout, an output
// buffer (empty when the transform works in place).
struct Slot {
  HostBuffer<std::uint8_t> in, out;
};

struct SlotPipeline {
  std::array<Slot, 3> slots;
  // read(j, slot) fills slot.in with batch j. transform(j, batch, slot) returns the bytes to write
  // (from slot.out, or slot.in when out is empty) and throws to stop everything. write(data, n)
  // appends to the output. done(batch) follows each write.
  std::function<Batch(std::uint64_t, Slot&)> read;
  std::function<std::size_t(std::uint64_t, const Batch&, Slot&)> transform;
  std::function<void(const std::uint8_t*, std::size_t)> write;
  std::function<void(const Batch&)> done;
  // Runs batches until the one read as last has been written.
  void run();
  // Sets write to append to `output`, runs, commits the output and returns the result: the bytes
  // read from `input`, the bytes written, the seconds since t0. Progress reports the input bytes
  // done, from `done_bytes` (what was read before the batches: a header).
  IdeaFileResult run_into(io::OutputFile& output, const InputStream& input, std::uint64_t done_bytes, const IdeaProgressFn& progress,
                          std::chrono::steady_clock::time_point t0);
};

// A SlotPipeline::read that reads `batch` bytes a batch (at most `cap`, the slots' size for a
// small input) and marks the batch after which the input ends.
std::function<Batch(std::uint64_t, Slot&)> batch_reader(InputStream& input, std::size_t batch, std::size_t cap);

}  // namespace wk::cipher::detail
