// The input stream and three-slot pipeline of the IDEA file formats (idea_stream.hpp).
#include "cipher/idea/idea_stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>

#include "wk/core/nvtx.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;

namespace wk::cipher::detail {

namespace {
std::string errno_text(int err) { return std::strerror(err); }
}  // namespace

void throw_at(ErrorCategory category, const fs::path& path, const std::string& what) {
  throw Error(category, io::printable(path.string()) + ": " + what);
}

void throw_setting(ErrorCategory category, IdeaSetting setting, const fs::path& path, const std::string& what) {
  throw IdeaSettingError(category, setting, io::printable(path.string()) + ": " + what);
}

void random_bytes(std::uint8_t* out, std::size_t n) {
  if (RAND_bytes(out, static_cast<int>(n)) != 1)
    throw Error(ErrorCategory::internal, "OpenSSL's RAND_bytes failed: no random bytes for the key, salt or nonce");
}

const char* file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

void check_output(const fs::path& out, bool replace) {
  if (out == "-") return;
  struct stat st {};
  if (::stat(out.c_str(), &st) != 0) return;  // links followed: what would be replaced
  if (S_ISDIR(st.st_mode)) throw_at(ErrorCategory::usage, out, "is a folder; name the output file");
  if (S_ISREG(st.st_mode) && !replace)
    throw_setting(ErrorCategory::usage, IdeaSetting::replace, out, "already exists; refusing to replace it");
}

InputStream::InputStream(const fs::path& path) : name_(path == "-" ? fs::path("standard input") : path) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
    owns_fd_ = false;
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw_at(ErrorCategory::io, name_, "cannot stat: " + errno_text(errno));
    if (S_ISREG(st.st_mode)) {
      const off_t pos = ::lseek(fd_, 0, SEEK_CUR);
      size_ = static_cast<std::uint64_t>(st.st_size - (pos > 0 ? pos : 0));
    }
    return;
  }
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer before fstat could refuse it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd_ < 0) throw_at(ErrorCategory::io, path, "cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    throw_at(ErrorCategory::io, path, "cannot stat: " + errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw_at(ErrorCategory::io, path,
             std::string("not a regular file (") + file_kind(st.st_mode) + "); the input must be one, or - for standard input");
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(st.st_size);
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

namespace {
const std::filesystem::path& checked_apart(const fs::path& in, const fs::path& out) {
  const io::JobFile reads[] = {{"the input", in}};
  const io::JobFile writes[] = {{"the output", out}};
  io::check_writes_apart(reads, writes);
  return in;
}
}  // namespace

InputStream::InputStream(const fs::path& in, const fs::path& out, bool replace) : InputStream(checked_apart(in, out)) {
  check_output(out, replace);
}

std::function<Batch(std::uint64_t, Slot&)> batch_reader(InputStream& input, std::size_t batch, std::size_t cap) {
  return [&input, batch, cap](std::uint64_t, Slot& slot) {
    Batch b;
    b.bytes = input.read(slot.in.data(), std::min(batch, cap));
    b.last = b.bytes < batch || input.at_end();
    return b;
  };
}

InputStream::~InputStream() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

std::size_t InputStream::read_fd(std::uint8_t* dst, std::size_t n) {
  std::size_t done = 0;
  while (done < n && !eof_) {
    const ssize_t r = ::read(fd_, dst + done, n - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_at(ErrorCategory::io, name_, "read failed: " + errno_text(errno));
    }
    if (r == 0) eof_ = true;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

std::size_t InputStream::read(std::uint8_t* dst, std::size_t n) {
  if (n == 0) return 0;
  std::size_t done = 0;
  if (peeked_) {
    dst[0] = *peeked_;
    peeked_.reset();
    done = 1;
  }
  done += read_fd(dst + done, n - done);
  consumed_ += done;
  // A regular file that shrank meanwhile is no longer the file whose size was checked.
  if (size_ && done < n && consumed_ < *size_) throw_at(ErrorCategory::io, name_, "the file shrank while it was being read");
  return done;
}

bool InputStream::at_end() {
  if (peeked_) return false;
  std::uint8_t b = 0;
  if (read_fd(&b, 1) == 0) return true;
  peeked_ = b;
  return false;
}

void SlotPipeline::run() {
  // The futures are declared after everything their tasks touch, so that on an exception they are
  // joined (std::async futures wait in their destructor) before those objects go away.
  std::future<Batch> reading;
  std::future<void> writing;
  Batch pending_done;
  auto start_read = [&](std::uint64_t j) {
    return std::async(std::launch::async, [this, j] {
      nvtx::Range r("read", nvtx::Color::io, static_cast<std::int64_t>(j));
      return read(j, slots[j % 3]);
    });
  };
  reading = start_read(0);
  for (std::uint64_t j = 0;; ++j) {
    const Batch batch = reading.get();
    // Slot (j+1)%3 last held batch j-2, whose write was waited for in the previous iteration.
    if (!batch.last) reading = start_read(j + 1);
    Slot& slot = slots[j % 3];
    std::size_t n = 0;
    {
      nvtx::Range r("crypt", nvtx::Color::compute, static_cast<std::int64_t>(j));
      n = transform(j, batch, slot);
    }
    if (writing.valid()) {
      writing.get();
      if (done) done(pending_done);
    }
    const std::uint8_t* data = slot.out.size() ? slot.out.data() : slot.in.data();
    writing = std::async(std::launch::async, [this, data, n, j] {
      nvtx::Range r("write", nvtx::Color::io, static_cast<std::int64_t>(j));
      write(data, n);
    });
    pending_done = batch;
    if (batch.last) break;
  }
  writing.get();
  if (done) done(pending_done);
}

IdeaFileResult SlotPipeline::run_into(io::OutputFile& output, const InputStream& input, std::uint64_t done_bytes,
                                      const IdeaProgressFn& progress, std::chrono::steady_clock::time_point t0) {
  write = [&output](const std::uint8_t* data, std::size_t n) { output.write(data, n); };
  const std::uint64_t size = input.size().value_or(0);
  done = [&](const Batch& b) {
    done_bytes += b.bytes;
    if (progress) progress(done_bytes, std::max(size, done_bytes));
  };
  run();
  {
    nvtx::Range r("commit", nvtx::Color::io);
    output.commit();
  }
  IdeaFileResult result;
  result.bytes_in = input.consumed();
  result.bytes_out = output.written();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace wk::cipher::detail
