#include "wk/hash/secret_input.hpp"

#include <openssl/crypto.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/io/output_file.hpp"

namespace wk::hash {

namespace {

std::size_t page_bytes() {
  static const std::size_t page = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? std::size_t(p) : std::size_t(4096);
  }();
  return page;
}

std::size_t whole_pages(std::size_t bytes) {
  const std::size_t page = page_bytes();
  if (bytes > SIZE_MAX - page) throw std::bad_alloc();
  return (bytes + page - 1) / page * page;
}

// Keeps [p, p + bytes) out of core dumps; where the kernel refuses, the memory is used anyway.
void no_dump(void* p, std::size_t bytes) noexcept {
#ifdef MADV_DONTDUMP
  ::madvise(p, bytes, MADV_DONTDUMP);
#else
  (void)p;
  (void)bytes;
#endif
}

char* map_pages(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  no_dump(p, bytes);
  return static_cast<char*>(p);
}

}  // namespace

SecretBuffer::~SecretBuffer() { clear(); }

SecretBuffer::SecretBuffer(SecretBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), capacity_(std::exchange(o.capacity_, 0)),
      used_(std::exchange(o.used_, 0)) {}

SecretBuffer& SecretBuffer::operator=(SecretBuffer&& o) noexcept {
  if (this != &o) {
    clear();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    used_ = std::exchange(o.used_, 0);
  }
  return *this;
}

void SecretBuffer::clear() noexcept {
  if (data_) {
    // Only what was ever handed out holds bytes (pages never touched stay unmapped zero pages).
    wipe_on_all_cores(data_, used_);  // wk-hash's whole input: hundreds of MB at the end of a run
    ::munmap(data_, capacity_);
  }
  data_ = nullptr;
  size_ = capacity_ = used_ = 0;
}

void SecretBuffer::reset() noexcept {
  if (data_) wipe_on_all_cores(data_, used_);
  size_ = used_ = 0;
}

void SecretBuffer::truncate(std::size_t size) noexcept {
  if (size < size_) size_ = size;
}

void SecretBuffer::reserve(std::size_t capacity) {
  if (capacity <= capacity_) return;
  const std::size_t bytes = whole_pages(capacity);
  if (!data_) {
    data_ = map_pages(bytes);
    capacity_ = bytes;
    return;
  }
  // The pages move (or the mapping grows in place): no copy of the old bytes stays behind.
  void* moved = ::mremap(data_, capacity_, bytes, MREMAP_MAYMOVE);
  if (moved != MAP_FAILED) {
    data_ = static_cast<char*>(moved);
    capacity_ = bytes;
    no_dump(data_, capacity_);
    return;
  }
  char* fresh = map_pages(bytes);
  std::memcpy(fresh, data_, size_);
  wipe_on_all_cores(data_, used_);
  ::munmap(data_, capacity_);
  data_ = fresh;
  capacity_ = bytes;
}

void SecretBuffer::append(const char* data, std::size_t bytes) {
  char* at = extend(bytes);
  if (bytes) std::memcpy(at, data, bytes);
}

char* SecretBuffer::extend(std::size_t bytes) {
  if (size_ + bytes > capacity_) reserve(std::max(size_ + bytes, capacity_ ? capacity_ * 2 : std::size_t(1) << 16));
  char* at = data_ + size_;
  size_ += bytes;
  used_ = std::max(used_, size_);
  return at;
}

namespace {
// A regular file of `bytes` bytes read with pread(2) in pieces on all cores, straight into `out`
// (no stdio buffer, no bounce copy): wk-hash's 512 MB inputs (64 M lines) took ~0.25 s on one
// core, copying from the page cache and faulting the fresh buffer in, before any line could be
// split. False when the file turned out shorter (the caller reads it again sequentially).
bool read_regular_file(int fd, std::size_t bytes, SecretBuffer& out, const std::string& name) {
  constexpr std::size_t kPiece = std::size_t(2) << 20;
  char* dst = out.extend(bytes);
  std::atomic<bool> short_read{false};
  std::atomic<int> error{0};
  parallel_for((bytes + kPiece - 1) / kPiece, 1, [&](std::size_t p0, std::size_t p1) {
    for (std::size_t p = p0; p < p1; ++p) {
      const std::size_t end = std::min(bytes, (p + 1) * kPiece);
      for (std::size_t at = p * kPiece; at < end;) {
        const ssize_t n = ::pread(fd, dst + at, end - at, off_t(at));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) error = errno;
        if (n == 0) short_read = true;
        if (n <= 0) return;
        at += std::size_t(n);
      }
    }
  });
  if (const int err = error.load()) {
    out.clear();
    throw Error(ErrorCategory::io, name + ": read error: " + std::strerror(err));
  }
  return !short_read;
}

}  // namespace

// Reads a descriptor into SecretBuffers, each line cut to kKeptLine + 1 bytes (the bytes read past
// are wiped at once); a line running past kMaxLineRunBytes throws. The buffer may change between
// reads (LineReader hands out a block of lines and goes on in the next block's buffer): taken()
// says what left the front of it.
class LineReader::Bounded {
 public:
  explicit Bounded(const std::string& name) : name_(name) {}

  // Reading on after what `out` holds (what a regular file held at first): the open line starts
  // after the last LF.
  void resume(const SecretBuffer& out) {
    const std::string_view text = out.view();
    const std::size_t nl = text.rfind('\n');
    line_start_ = nl == std::string_view::npos ? 0 : nl + 1;
    if (text.size() - line_start_ > kKeptLine) {
      skipping_ = true;
      run_ = text.size() - line_start_;
    }
  }

  // Reads at most `bytes` from `fd` to the end of `out`, each line bounded; false at the end of
  // the input.
  bool read_some(int fd, SecretBuffer& out, std::size_t bytes) {
    const std::size_t old = out.size();
    char* at = out.extend(bytes);
    ssize_t n;
    do n = ::read(fd, at, bytes);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int err = errno;
      out.truncate(old);
      throw Error(ErrorCategory::io, name_ + ": read error: " + std::strerror(err));
    }
    read_ += std::uint64_t(n);
    take(out, old, old + std::size_t(n));
    return n > 0;
  }

  // The first `bytes` of the buffer, `lines` whole lines, were handed out; what follows them is
  // the front of the next buffer.
  void taken(std::size_t bytes, std::size_t lines) {
    line_start_ -= bytes;
    lines_before_ += lines;
  }
  std::uint64_t bytes_read() const noexcept { return read_; }

 private:
  const std::string& name_;
  std::size_t line_start_ = 0;    // where the open line starts in what is kept
  bool skipping_ = false;         // the open line is too long: its bytes are read past
  std::size_t run_ = 0;           // while skipping: the open line's length so far
  std::uint64_t read_ = 0;        // bytes read from the descriptor
  std::size_t lines_before_ = 0;  // lines handed out before the buffer's front

  // A line keeps its bytes up to this many (its content and a CR); one longer keeps one more, and
  // split_lines then shows it longer than kMaxLineBytes whatever its last byte.
  static constexpr std::size_t kKeptLine = kMaxLineBytes + 1;

  // New bytes [r, end) of the buffer: kept (moved down to w where bytes were dropped before) or
  // dropped. Short lines cost one memrchr per 64 KiB.
  void take(SecretBuffer& out, std::size_t r, std::size_t end) {
    char* const buf = out.data();
    std::size_t w = r;
    auto keep = [&](std::size_t bytes) {
      if (w != r) std::memmove(buf + w, buf + r, bytes);
      w += bytes;
      r += bytes;
    };
    while (r < end) {
      if (skipping_) {
        const void* nl = std::memchr(buf + r, '\n', end - r);
        const std::size_t stop = nl ? std::size_t(static_cast<const char*>(nl) - buf) : end;
        run_ += stop - r;
        r = stop;
        if (!nl) {
          if (run_ > kMaxLineRunBytes) fail(out);
          break;
        }
        skipping_ = false;
        keep(1);  // the LF
        line_start_ = w;
        continue;
      }
      // The open line may take `room` more bytes; its LF must come within room + 1.
      const std::size_t room = kKeptLine - (w - line_start_);
      const std::size_t window = std::min(end - r, room + 1);
      if (const void* nl = ::memrchr(buf + r, '\n', window)) {
        const std::size_t stop = std::size_t(static_cast<const char*>(nl) - buf) + 1;
        keep(stop - r);
        line_start_ = w;
        continue;
      }
      keep(window);
      if (w - line_start_ > kKeptLine) {  // kKeptLine + 1 kept: enough to tell it is too long
        skipping_ = true;
        run_ = w - line_start_;
      }
    }
    if (w < end) OPENSSL_cleanse(buf + w, end - w);
    out.truncate(w);
  }

  [[noreturn]] void fail(const SecretBuffer& out) {
    const std::string_view kept = out.view().substr(0, line_start_);
    const std::size_t line = lines_before_ + std::size_t(std::count(kept.begin(), kept.end(), '\n')) + 1;
    throw Error(ErrorCategory::decode, name_ + ": line " + std::to_string(line) + ": longer than " +
                                           std::to_string(kMaxLineBytes) + " bytes, with no end of line in " +
                                           std::to_string(kMaxLineRunBytes >> 20) + " MiB; is this a list of lines?");
  }
};

namespace {
constexpr std::size_t kReadChunk = std::size_t(1) << 20;

// The input's name in messages and its descriptor: standard input when path is empty or "-".
std::string input_name(const std::filesystem::path& path) {
  return path.empty() || path == "-" ? std::string("standard input") : io::printable(path.string());
}
int open_input(const std::filesystem::path& path, const std::string& name) {
  if (path.empty() || path == "-") return STDIN_FILENO;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(ErrorCategory::io, name + ": cannot open: " + std::strerror(errno));
  return fd;
}
// A regular file's size.
std::optional<std::uint64_t> regular_size(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) return std::uint64_t(st.st_size);
  return std::nullopt;
}
// The same for a file read from start to end a block at a time, whose read-ahead is then widened.
std::optional<std::uint64_t> sequential_size(int fd) {
  const auto size = regular_size(fd);
  if (size) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return size;
}

// Line ends in text[scanned, size()) counted into `lines` until there are max_lines; `cut`: just
// after the last one counted. A vectorized count per 64 KiB block; memchr only in the block where
// max_lines is reached.
void count_lines(std::string_view text, std::size_t& scanned, std::size_t& lines, std::size_t& cut,
                 std::size_t max_lines) {
  constexpr std::size_t kBlock = std::size_t(1) << 16;
  while (scanned < text.size() && lines < max_lines) {
    const char* const p = text.data() + scanned;
    const std::size_t bytes = std::min(text.size() - scanned, kBlock);
    const std::size_t ends = std::size_t(std::count(p, p + bytes, '\n'));
    if (lines + ends <= max_lines) {
      if (ends) cut = std::size_t(static_cast<const char*>(::memrchr(p, '\n', bytes)) - text.data()) + 1;
      lines += ends;
      scanned += bytes;
      continue;
    }
    for (const char* q = p; lines < max_lines; ++lines) {
      q = static_cast<const char*>(std::memchr(q, '\n', std::size_t(p + bytes - q))) + 1;
      cut = std::size_t(q - text.data());
    }
    scanned = cut;
  }
}
}  // namespace

LineReader::LineReader(const std::filesystem::path& path) : name_(input_name(path)) {
  fd_ = open_input(path, name_);
  own_fd_ = fd_ != STDIN_FILENO;
  size_ = sequential_size(fd_);
  bounded_ = std::make_unique<Bounded>(name_);
}

LineReader::LineReader(int fd, std::string name)
    : fd_(fd), name_(std::move(name)), size_(sequential_size(fd)), bounded_(std::make_unique<Bounded>(name_)) {}

LineReader::~LineReader() {
  if (own_fd_) ::close(fd_);
}

std::uint64_t LineReader::consumed() const noexcept { return bounded_->bytes_read() - rest_.size(); }

std::size_t LineReader::next(SecretBuffer& out, std::size_t max_lines, std::size_t max_bytes) {
  max_lines = std::max<std::size_t>(max_lines, 1);
  out.reset();
  out.append(rest_.data(), rest_.size());
  rest_.reset();
  std::size_t lines = 0, scanned = 0, cut = 0;  // whole lines in out[0, cut); bytes counted
  for (;;) {
    count_lines(out.view(), scanned, lines, cut, max_lines);
    if (lines == max_lines || (lines > 0 && out.size() >= max_bytes)) break;
    if (end_) {
      if (cut < out.size()) {  // the last line, with no end of line
        ++lines;
        cut = out.size();
      }
      break;
    }
    const std::size_t want = out.size() < max_bytes ? std::min(kReadChunk, max_bytes - out.size()) : kReadChunk;
    end_ = !bounded_->read_some(fd_, out, want);
  }
  // What was read past the last line waits for the next call.
  if (cut < out.size()) {
    rest_.append(out.data() + cut, out.size() - cut);
    wipe(out.data() + cut, out.size() - cut);
    out.truncate(cut);
  }
  bounded_->taken(cut, lines);
  return lines;
}

SecretBuffer read_secret_input(const std::filesystem::path& path) {
  const std::string name = input_name(path);
  const int fd = open_input(path, name);
  struct Closer {
    int fd;
    ~Closer() {
      if (fd != STDIN_FILENO) ::close(fd);
    }
  } closer{fd};
  SecretBuffer out;
  // A regular file's size is known: one allocation, no regrowth, read on all cores; the loop
  // below then reads what it may have grown by since.
  if (const auto size = regular_size(fd); fd != STDIN_FILENO && size && *size > 0) {
    out.reserve(std::size_t(*size) + 1);
    if (!read_regular_file(fd, std::size_t(*size), out, name)) out.clear();
    if (::lseek(fd, off_t(out.size()), SEEK_SET) < 0)
      throw Error(ErrorCategory::io, name + ": cannot seek: " + std::strerror(errno));
  }
  LineReader::Bounded bounded(name);
  bounded.resume(out);
  while (bounded.read_some(fd, out, kReadChunk)) {
  }
  return out;
}

// ---- A person typing at a terminal ----------------------------------------------------------
namespace {

// The signals that end a process while a line is typed (Ctrl-C, kill, a closed terminal, Ctrl-\).
constexpr int kEndSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr std::size_t kEndSignalCount = sizeof kEndSignals / sizeof kEndSignals[0];

// The terminal whose echo is off, as the signal handler needs it: written before the handler is
// installed, read only while it is.
struct EchoOffState {
  int tty_fd = -1, prompt_fd = -1;
  termios before{}, quiet{};
  struct sigaction previous[kEndSignalCount]{};
  bool replaced[kEndSignalCount]{};
};
EchoOffState g_echo_off;
std::atomic<bool> g_echo_off_held{false};

// Async-signal-safe only: tcsetattr, write, sigaction, raise.
extern "C" void restore_terminal_then_chain(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const EchoOffState& s = g_echo_off;
  ::tcsetattr(s.tty_fd, TCSANOW, &s.before);
  (void)!::write(s.prompt_fd, "\n", 1);  // the Enter never came: the shell's prompt on a line of its own
  std::size_t k = 0;
  while (k + 1 < kEndSignalCount && kEndSignals[k] != sig) ++k;
  const struct sigaction& previous = s.previous[k];
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler == SIG_DFL) {
    // The default action (the process ends, SIGQUIT with a core dump that leaves SecretBuffers
    // out): the signal is blocked while this handler runs, so raised again it is taken as soon as
    // the handler returns, with the terminal already as it was.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    errno = saved_errno;
    return;
  } else if (previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  }
  // The handler before returned (one that only notes the signal): the line is still being typed.
  ::tcsetattr(s.tty_fd, TCSANOW, &s.quiet);
  errno = saved_errno;
}

// The terminal's echo off for the life of this object, the signal handling above in place
// meanwhile. The handler is installed before the echo goes off and removed after it is back on,
// so that no signal finds the echo off without it.
class EchoOff {
 public:
  EchoOff(int tty_fd, int prompt_fd, const termios& before) {
    if (g_echo_off_held.exchange(true))
      throw Error(ErrorCategory::internal, "read_typed_line: another line is being read with the echo off");
    EchoOffState& s = g_echo_off;
    s.tty_fd = tty_fd;
    s.prompt_fd = prompt_fd;
    s.before = before;
    s.quiet = before;
    s.quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK);
    s.quiet.c_lflag |= ECHONL;
    struct sigaction ours {};
    ours.sa_sigaction = restore_terminal_then_chain;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    for (int sig : kEndSignals) sigaddset(&ours.sa_mask, sig);  // one at a time
    for (std::size_t k = 0; k < kEndSignalCount; ++k) {
      ::sigaction(kEndSignals[k], nullptr, &s.previous[k]);
      // An ignored signal stays ignored (nohup, a rank of an MPI job).
      s.replaced[k] = (s.previous[k].sa_flags & SA_SIGINFO) || s.previous[k].sa_handler != SIG_IGN;
      if (s.replaced[k]) ::sigaction(kEndSignals[k], &ours, nullptr);
    }
    // TCSAFLUSH: what was typed ahead of the prompt was echoed; it is dropped, not taken as the
    // password.
    int rc;
    do rc = ::tcsetattr(tty_fd, TCSAFLUSH, &s.quiet);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int err = errno;
      restore_handlers();
      throw Error(ErrorCategory::io, std::string("cannot turn the terminal's echo off: ") + std::strerror(err));
    }
  }
  ~EchoOff() {
    const EchoOffState& s = g_echo_off;
    while (::tcsetattr(s.tty_fd, TCSANOW, &s.before) != 0 && errno == EINTR) {
    }
    restore_handlers();
  }
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;

 private:
  static void restore_handlers() noexcept {
    EchoOffState& s = g_echo_off;
    for (std::size_t k = 0; k < kEndSignalCount; ++k)
      if (s.replaced[k]) ::sigaction(kEndSignals[k], &s.previous[k], nullptr);
    g_echo_off_held = false;
  }
};

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to show it (a closed standard error): the read goes on
    text.remove_prefix(std::size_t(n));
  }
}

}  // namespace

std::optional<SecretBuffer> read_typed_line(int tty_fd, int prompt_fd, std::string_view prompt, Echo echo) {
  termios before{};
  if (::tcgetattr(tty_fd, &before) != 0)
    throw Error(ErrorCategory::io, std::string("cannot read a typed line: not a terminal (") + std::strerror(errno) + ")");
  std::optional<EchoOff> echo_off;
  if (echo == Echo::off) echo_off.emplace(tty_fd, prompt_fd, before);
  write_all(prompt_fd, prompt);
  // A byte per read(2): what follows the line's end stays in the terminal for the next reader
  // (outside canonical mode a read could return it too); a typed line is short.
  SecretBuffer line;
  line.reserve(kMaxTypedBytes + 1);
  bool got_any = false, ended = false, overlong = false;
  for (;;) {
    char* at = line.extend(1);
    const ssize_t n = ::read(tty_fd, at, 1);
    if (n < 0 && errno == EINTR) {
      line.truncate(line.size() - 1);
      continue;
    }
    if (n < 0) {
      const int err = errno;
      throw Error(ErrorCategory::io, std::string("cannot read from the terminal: ") + std::strerror(err));
    }
    if (n == 0) {  // Ctrl-D: the end of input at the start of a line, else the end of this line
      line.truncate(line.size() - 1);
      break;
    }
    got_any = true;
    if (*at == '\n') {
      line.truncate(line.size() - 1);
      ended = true;
      break;
    }
    if (line.size() > kMaxTypedBytes) {  // read on to the line's end, keeping none of it
      overlong = true;
      line.truncate(kMaxTypedBytes);
    }
  }
  // Without its Enter the terminal's echo (ECHONL) never moved to the next line.
  if (echo == Echo::off && !ended) write_all(prompt_fd, "\n");
  echo_off.reset();
  if (overlong)
    throw Error(ErrorCategory::decode,
                "the line typed is longer than " + std::to_string(kMaxTypedBytes) + " bytes, the most taken from a terminal");
  if (!got_any) return std::nullopt;
  return line;
}

std::string check_line(std::string_view line) {
  if (line.size() <= kMaxLineBytes) return {};
  return "the line is longer than " + std::to_string(kMaxLineBytes) + " bytes, the most wk-hash reads in a line";
}

namespace {
// 64 KiB: a 2^18-line slice of short passwords (~2 MB) spans ~32 pieces, one per core and more.
constexpr std::size_t kLinePiece = std::size_t(1) << 16;
}  // namespace

LineIndex::LineIndex(std::string_view text) : text_(text) {
  // Lines starting in each piece, counted on all cores; then their running sum.
  const std::size_t pieces = (text.size() + kLinePiece - 1) / kLinePiece;
  first_.assign(pieces + 1, 0);
  auto starts_line = [&](std::size_t at) { return at == 0 || text[at - 1] == '\n'; };
  parallel_for(pieces, 16, [&](std::size_t p0, std::size_t p1) {
    for (std::size_t p = p0; p < p1; ++p) {
      const std::size_t begin = p * kLinePiece, end = std::min(text.size(), begin + kLinePiece);
      std::size_t count = starts_line(begin) ? 1 : 0;
      for (const char* c = text.data() + begin; (c = static_cast<const char*>(std::memchr(c, '\n', std::size_t(text.data() + end - c))));)
        if (++c < text.data() + text.size() && c < text.data() + end) ++count;
      first_[p + 1] = count;
    }
  });
  for (std::size_t p = 0; p < pieces; ++p) first_[p + 1] += first_[p];
}

void LineIndex::get(std::size_t first, std::span<std::string_view> out) const {
  if (out.empty()) return;
  const std::size_t last = first + out.size();  // exclusive
  if (last > size()) throw Error(ErrorCategory::internal, "LineIndex::get: lines past the end");
  // The pieces holding the starts of lines first .. last - 1.
  const std::size_t p_begin = std::size_t(std::upper_bound(first_.begin(), first_.end(), first) - first_.begin()) - 1;
  const std::size_t p_end = std::size_t(std::lower_bound(first_.begin(), first_.end(), last) - first_.begin());
  const std::string_view text = text_;
  auto starts_line = [&](std::size_t at) { return at == 0 || text[at - 1] == '\n'; };
  parallel_for(p_end - p_begin, 1, [&](std::size_t q, std::size_t) {
    const std::size_t p = p_begin + q;
    const std::size_t begin = p * kLinePiece, end = std::min(text.size(), begin + kLinePiece);
    std::size_t at = begin;
    if (!starts_line(at)) {
      const void* nl = std::memchr(text.data() + at, '\n', end - at);
      if (!nl) return;
      at = std::size_t(static_cast<const char*>(nl) - text.data()) + 1;
    }
    for (std::size_t k = first_[p]; at < end && k < last; ++k) {
      const void* nl = std::memchr(text.data() + at, '\n', text.size() - at);
      const std::size_t stop = nl ? std::size_t(static_cast<const char*>(nl) - text.data()) : text.size();
      if (k >= first) {
        std::string_view line = text.substr(at, stop - at);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out[k - first] = line;
      }
      at = stop + 1;
    }
  });
}

std::vector<std::string_view> split_lines(std::string_view text) {
  const LineIndex index(text);
  std::vector<std::string_view> lines(index.size());
  index.get(0, lines);
  return lines;
}

}  // namespace wk::hash
