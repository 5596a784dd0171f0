#pragma once
// Password input for wk-hash: inputs read whole or a block of lines at a time into memory that is
// wiped (OPENSSL_cleanse) whenever it is released or reused, kept out of core dumps
// (MADV_DONTDUMP), and split into lines without copying. Lines are bounded: see kMaxLineBytes.
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wk::hash {

// A growable byte buffer for secrets: pages of its own (page-aligned, mmap), marked
// MADV_DONTDUMP so that a core dump leaves them out (where madvise fails, they are used all the
// same); regrown by moving the pages (mremap: no copy left behind); wiped before they are released.
class SecretBuffer {
 public:
  SecretBuffer() = default;
  ~SecretBuffer();
  SecretBuffer(SecretBuffer&& o) noexcept;
  SecretBuffer& operator=(SecretBuffer&& o) noexcept;
  SecretBuffer(const SecretBuffer&) = delete;
  SecretBuffer& operator=(const SecretBuffer&) = delete;

  void append(const char* data, std::size_t bytes);
  // `bytes` more at the end, left for the caller to write (read(2) straight into the buffer, no
  // copy); reserves as append does. Returns where they start.
  char* extend(std::size_t bytes);
  void reserve(std::size_t capacity);  // at least this many bytes, without regrowing later
  void truncate(std::size_t size) noexcept;  // the first `size` bytes stay (size <= size())
  void clear() noexcept;  // wipes and frees
  void reset() noexcept;  // wipes and empties, keeping the pages for what comes next
  const char* data() const noexcept { return data_; }
  char* data() noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::string_view view() const noexcept { return {data_, size_}; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
  std::size_t used_ = 0;  // the most bytes ever handed out: what clear() wipes
};

// The longest line wk-hash takes: 64 KiB, far above any password (511 bytes), setting or shadow
// line. A longer line is an error of its own (check_line); the other lines are still processed.
inline constexpr std::size_t kMaxLineBytes = std::size_t(1) << 16;
// From a pipe or device, a line with no end of line within this many bytes ends the read: such an
// input (/dev/zero, a binary stream) is no list of lines.
inline constexpr std::size_t kMaxLineRunBytes = std::size_t(16) << 20;

// The whole input: standard input when path is empty or "-". A regular file is read whole; from a
// pipe, FIFO or device each line keeps at most its first kMaxLineBytes + 2 bytes (enough for
// check_line to reject it; the rest is read past, so memory stays bounded), and a line running
// past kMaxLineRunBytes throws wk::Error{decode} ("line N: longer than ..."). Throws wk::Error{io}
// naming the file and the reason when it cannot be read.
SecretBuffer read_secret_input(const std::filesystem::path& path);

// An input read a block of whole lines at a time (the line engine's streamed input), with the
// bounds read_secret_input keeps for a pipe: each line keeps at most its first kMaxLineBytes + 2
// bytes, and a line running past kMaxLineRunBytes throws wk::Error{decode} ("NAME: line N: longer
// than ..."). Memory: the block handed out and what was read past its last line (one read of at
// most 1 MiB, or the start of a long line).
class LineReader {
 public:
  // Empty or "-": standard input. Throws wk::Error{io} naming the file when it cannot be opened.
  explicit LineReader(const std::filesystem::path& path);
  // An open descriptor, left open; `name` is what messages call it.
  LineReader(int fd, std::string name);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Replaces what `out` holds (wiped first) with the next lines of the input: at most max_lines
  // (>= 1) of them, and no more once they reach max_bytes bytes (one line at least). Returns how
  // many: 0 at the end of the input. The last line of the input needs no end of line.
  std::size_t next(SecretBuffer& out, std::size_t max_lines, std::size_t max_bytes);
  // Input bytes behind the lines handed out so far (those read past in long lines included).
  std::uint64_t consumed() const noexcept;
  // A regular file's size when it was opened.
  std::optional<std::uint64_t> size() const noexcept { return size_; }
  const std::string& name() const noexcept { return name_; }

 private:
  class Bounded;
  friend SecretBuffer read_secret_input(const std::filesystem::path& path);
  int fd_ = -1;
  bool own_fd_ = false, end_ = false;
  std::string name_;
  std::optional<std::uint64_t> size_;
  SecretBuffer rest_;  // read past the last line handed out
  std::unique_ptr<Bounded> bounded_;
};

// ---- A person typing at a terminal ----------------------------------------------------------
// The longest line read_typed_line takes: far above a password (511 bytes), a crypt string or a
// user name; a terminal in canonical mode hands over at most 4095 bytes a line anyway.
inline constexpr std::size_t kMaxTypedBytes = 4096;

enum class Echo { on, off };

// One line typed at the terminal `tty_fd` (canonical mode: the line as the person edited it),
// after `prompt` was written to `prompt_fd` (wk-hash: standard error). Echo::off: the terminal
// does not echo what is typed (ECHO cleared; ECHONL set, so the Enter still moves to the next
// line), and input typed ahead of the prompt is discarded (it was echoed); the terminal's settings
// come back on every path out: return, exception, and SIGINT, SIGTERM, SIGHUP or SIGQUIT, whose
// handling meanwhile restores the terminal first and then does what was installed before (an
// app's handler, which may end the process, or the default action). Not reentrant: one line at a
// time per process.
// Returns the line without its LF, or nullopt at the end of input (Ctrl-D at the start of the
// line). Throws wk::Error{decode} for a line over kMaxTypedBytes (never its bytes), wk::Error{io}
// when `tty_fd` is no terminal or cannot be read.
std::optional<SecretBuffer> read_typed_line(int tty_fd, int prompt_fd, std::string_view prompt, Echo echo);

// Empty when `line` (one of split_lines) may be processed, else why not -- its length against
// kMaxLineBytes, never its bytes.
std::string check_line(std::string_view line);

// Lines of `text`: split at LF, one trailing CR removed from each line (CRLF input), no line
// after a final newline. An empty line is an empty string (an empty password). On all cores.
std::vector<std::string_view> split_lines(std::string_view text);

// The same lines, located a range at a time (wk-hash hash takes 2^18 at a time): construction
// counts the lines of each 64 KiB piece on all cores -- no view per line of the whole text --,
// get() fills the views of a range of lines on all cores. split_lines is get() of every line.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  std::size_t size() const noexcept { return first_.empty() ? 0 : first_.back(); }
  // Lines first .. first + out.size() - 1 (0-based; first + out.size() <= size()) into out.
  void get(std::size_t first, std::span<std::string_view> out) const;

 private:
  std::string_view text_;
  std::vector<std::size_t> first_;  // lines starting before piece p: first_[p]; first_.back(): all
};

}  // namespace wk::hash
