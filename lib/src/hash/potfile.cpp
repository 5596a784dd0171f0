// The audit's pot file: read into wiped memory, appended to one line per found password.
#include "wk/hash/potfile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "wk/core/error.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash {

PotFile::PotFile(SecretBuffer text) : text_(std::move(text)) {
  const std::vector<std::string_view> lines = split_lines(text_.view());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    if (l.empty()) continue;
    const std::size_t colon = l.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      errors_.emplace_back(i + 1, colon == 0 ? "expected hash:password, the hash is empty" : "expected hash:password, no ':'");
      continue;
    }
    entries_.emplace(l.substr(0, colon), l.substr(colon + 1));  // the first line of a hash stays
  }
}

PotFile PotFile::read(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return PotFile();
  return PotFile(read_secret_input(path));
}

std::optional<std::string_view> PotFile::find(std::string_view hash) const {
  const auto it = entries_.find(hash);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

namespace {
[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int err) {
  throw Error(ErrorCategory::io, path.string() + ": " + what + ": " + std::strerror(err));
}
void write_all(int fd, const char* data, std::size_t bytes, const std::filesystem::path& path) {
  while (bytes) {
    const ssize_t n = ::write(fd, data, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "cannot append to the pot file", n < 0 ? errno : EIO);
    data += n;
    bytes -= std::size_t(n);
  }
}
}  // namespace

PotWriter::PotWriter(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) fail(path, "cannot open the pot file", errno);
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    char last = '\n';
    if (::pread(fd_, &last, 1, st.st_size - 1) == 1 && last != '\n') write_all(fd_, "\n", 1, path_);
  }
}

PotWriter::~PotWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void PotWriter::append(std::string_view hash, std::string_view password) {
  std::string line;
  line.reserve(hash.size() + password.size() + 2);
  line.append(hash).append(1, ':').append(password).append(1, '\n');
  // One write: with O_APPEND a line is never interleaved with another writer's.
  try {
    write_all(fd_, line.data(), line.size(), path_);
  } catch (...) {
    wipe(line);
    throw;
  }
  wipe(line);
  if (::fdatasync(fd_) != 0 && errno != EINVAL) fail(path_, "cannot sync the pot file", errno);
}

}  // namespace wk::hash
