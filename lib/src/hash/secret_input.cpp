#include "wk/hash/secret_input.hpp"

#include <openssl/crypto.h>

#include <sys/stat.h>
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

namespace wk::hash {

SecretBuffer::~SecretBuffer() { clear(); }

SecretBuffer::SecretBuffer(SecretBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), capacity_(std::exchange(o.capacity_, 0)) {}

SecretBuffer& SecretBuffer::operator=(SecretBuffer&& o) noexcept {
  if (this != &o) {
    clear();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

void SecretBuffer::clear() noexcept {
  if (data_) {
    wipe_on_all_cores(data_, capacity_);  // wk-hash's whole input: hundreds of MB at the end of a run
    std::free(data_);
  }
  data_ = nullptr;
  size_ = capacity_ = 0;
}

void SecretBuffer::reserve(std::size_t capacity) {
  if (capacity <= capacity_) return;
  // Grow by copying into a fresh block and wiping the old one (realloc could free it unwiped).
  char* fresh = static_cast<char*>(std::malloc(capacity));
  if (!fresh) throw std::bad_alloc();
  if (data_) {
    std::memcpy(fresh, data_, size_);
    wipe_on_all_cores(data_, capacity_);  // as clear() does: standard input grows by doubling
    std::free(data_);
  }
  data_ = fresh;
  capacity_ = capacity;
}

void SecretBuffer::append(const char* data, std::size_t bytes) {
  char* at = extend(bytes);
  if (bytes) std::memcpy(at, data, bytes);
}

char* SecretBuffer::extend(std::size_t bytes) {
  if (size_ + bytes > capacity_) reserve(std::max(size_ + bytes, capacity_ ? capacity_ * 2 : std::size_t(1) << 16));
  char* at = data_ + size_;
  size_ += bytes;
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

SecretBuffer read_secret_input(const std::filesystem::path& path) {
  const bool use_stdin = path.empty() || path == "-";
  const std::string name = use_stdin ? "standard input" : path.string();
  std::FILE* f = use_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) throw Error(ErrorCategory::io, name + ": cannot open: " + std::strerror(errno));
  if (!use_stdin) std::setvbuf(f, nullptr, _IONBF, 0);  // no stdio buffer holding password bytes
  SecretBuffer out;
  // A regular file's size is known: one allocation, no regrowth copies, read on all cores; the
  // loop below then reads what it may have grown by since.
  struct stat st {};
  if (!use_stdin && ::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    out.reserve(std::size_t(st.st_size) + 1);
    try {
      if (!read_regular_file(::fileno(f), std::size_t(st.st_size), out, name)) out.clear();
    } catch (...) {
      std::fclose(f);
      throw;
    }
    if (std::fseek(f, long(out.size()), SEEK_SET) != 0) {
      const int err = errno;
      std::fclose(f);
      throw Error(ErrorCategory::io, name + ": cannot seek: " + std::strerror(err));
    }
  }
  constexpr std::size_t kChunk = std::size_t(1) << 20;
  std::unique_ptr<char[]> chunk(new char[kChunk]);
  for (;;) {
    const std::size_t n = std::fread(chunk.get(), 1, kChunk, f);
    out.append(chunk.get(), n);
    if (n < kChunk) break;
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  OPENSSL_cleanse(chunk.get(), kChunk);
  if (!use_stdin) std::fclose(f);
  if (failed) throw Error(ErrorCategory::io, name + ": read error: " + std::strerror(err));
  return out;
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
