#include "wk/hash/secret_input.hpp"

#include <openssl/crypto.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "wk/core/error.hpp"

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
    OPENSSL_cleanse(data_, capacity_);
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
    OPENSSL_cleanse(data_, capacity_);
    std::free(data_);
  }
  data_ = fresh;
  capacity_ = capacity;
}

void SecretBuffer::append(const char* data, std::size_t bytes) {
  if (size_ + bytes > capacity_) reserve(std::max(size_ + bytes, capacity_ ? capacity_ * 2 : std::size_t(1) << 16));
  if (bytes) std::memcpy(data_ + size_, data, bytes);
  size_ += bytes;
}

SecretBuffer read_secret_input(const std::filesystem::path& path) {
  const bool use_stdin = path.empty() || path == "-";
  const std::string name = use_stdin ? "standard input" : path.string();
  std::FILE* f = use_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) throw Error(ErrorCategory::io, name + ": cannot open: " + std::strerror(errno));
  if (!use_stdin) std::setvbuf(f, nullptr, _IONBF, 0);  // no stdio buffer holding password bytes
  SecretBuffer out;
  char chunk[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(chunk, 1, sizeof chunk, f);
    out.append(chunk, n);
    if (n < sizeof chunk) break;
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  OPENSSL_cleanse(chunk, sizeof chunk);
  if (!use_stdin) std::fclose(f);
  if (failed) throw Error(ErrorCategory::io, name + ": read error: " + std::strerror(err));
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    const std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = next;
  }
  return lines;
}

}  // namespace wk::hash
