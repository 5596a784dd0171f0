#include "wk/io/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <map>
#include <mutex>
#include <set>

#include "wk/core/error.hpp"

namespace fs = std::filesystem;

namespace wk::io {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

[[noreturn]] void throw_at(ErrorCategory category, const fs::path& path, const std::string& what) {
  throw Error(category, printable(path.string()) + ": " + what);
}

constexpr int kMaxLinkHops = 40;  // as the kernel's own limit (ELOOP)

// ".NAME.wk-PID-XXXXXX": six random letters, so that names of one process do not collide.
std::string temporary_name(const fs::path& target) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char r[6];
  if (::getrandom(r, sizeof r, 0) != static_cast<ssize_t>(sizeof r))  // names only need to differ
    for (unsigned char& b : r) b = static_cast<unsigned char>(std::rand());
  std::string name = "." + target.filename().string() + ".wk-" + std::to_string(::getpid()) + "-";
  for (unsigned char b : r) name += kAlphabet[b % 62];
  return name;
}

// The PID in a ".NAME.wk-PID-XXXXXX" name, or -1.
long temporary_pid(const std::string& name) {
  const std::size_t marker = name.rfind(".wk-");
  if (name.empty() || name[0] != '.' || marker == std::string::npos || marker == 0) return -1;
  const std::size_t dash = name.find('-', marker + 4);
  if (dash == std::string::npos || name.size() != dash + 7 || dash == marker + 4) return -1;
  long pid = 0;
  for (std::size_t i = marker + 4; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9' || pid > 1L << 40) return -1;
    pid = pid * 10 + (name[i] - '0');
  }
  return pid;
}

bool process_gone(long pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

// The descriptor a path names when it is one of the process's own: /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N (a shell's `> f`, `>> f`, `| cmd` or `>(cmd)`); -1 otherwise. Such an
// output is written through that descriptor, as the shell set it up (appending, a pipe), never
// replaced.
int own_descriptor(const fs::path& path) {
  const std::string p = path.lexically_normal().string();
  if (p == "/dev/stdout") return STDOUT_FILENO;
  if (p == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string pre(prefix);
    if (p.size() > pre.size() && p.compare(0, pre.size(), pre) == 0 &&
        p.find_first_not_of("0123456789", pre.size()) == std::string::npos && p.size() - pre.size() < 8)
      return std::stoi(p.substr(pre.size()));
  }
  return -1;
}

}  // namespace

fs::path resolve_links(const fs::path& path) {
  fs::path p = path;
  for (int hop = 0;; ++hop) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return p;  // to be made (creating its folder says what is wrong)
      throw_at(ErrorCategory::io, path, "cannot look at " + printable(p.string()) + ": " + errno_text(errno));
    }
    if (!S_ISLNK(st.st_mode)) return p;
    if (hop == kMaxLinkHops) throw_at(ErrorCategory::io, path, "symbolic link loop");
    std::vector<char> buf(std::size_t(st.st_size > 0 ? st.st_size : 255) + 2);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
    if (n < 0) throw_at(ErrorCategory::io, path, "cannot read the symbolic link: " + errno_text(errno));
    const fs::path link(std::string(buf.data(), std::size_t(n)));
    p = link.is_absolute() ? link : (p.has_parent_path() ? p.parent_path() : fs::path(".")) / link;
  }
}

std::size_t sweep_stale_temporaries(const fs::path& folder) {
  static std::mutex m;
  static std::set<fs::path> swept;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!swept.insert(folder.lexically_normal()).second) return 0;
  }
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (process_gone(temporary_pid(name)) && ::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

OutputFile::OutputFile(const fs::path& path, const OutputOptions& options) : path_(path), options_(options) {
  if (path.empty()) throw Error(ErrorCategory::usage, "an output file name is empty");
  if (path == "-") {
    fd_ = STDOUT_FILENO;
    owns_fd_ = false;
    stream_ = true;
    target_ = path;
    return;
  }
  if (temporaries_closed()) throw_at(ErrorCategory::io, path, "not written: the process is ending");
  if (const int own = own_descriptor(path); own >= 0) {
    fd_ = ::fcntl(own, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) throw_at(ErrorCategory::io, path, "not an open descriptor: " + errno_text(errno));
    target_ = path;
    stream_ = true;
    return;
  }
  target_ = resolve_links(path);
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw_at(ErrorCategory::usage, path, "is a folder; name the output file");
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd_ < 0) throw_at(ErrorCategory::io, path, "cannot open for writing: " + errno_text(errno));
      stream_ = true;
      return;
    }
    if (!S_ISREG(st.st_mode))
      throw_at(ErrorCategory::usage, path, "is not a regular file, FIFO or character device; refusing to write it");
    if (!options.replace) throw_at(ErrorCategory::usage, path, "already exists; refusing to overwrite it");
  }
  const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw_at(ErrorCategory::io, dir, "cannot create folder: " + ec.message());
#ifdef O_TMPFILE
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, static_cast<mode_t>(options.mode));
  if (fd_ >= 0) return;
  const int err = errno;
  if (err != EOPNOTSUPP && err != EISDIR && err != EINVAL)
    throw_at(ErrorCategory::io, path, "cannot create a temporary file in " + printable(dir.string()) + ": " + errno_text(err));
#endif
  // No O_TMPFILE here: a named temporary file that an interrupt handler, or a later run, removes.
  sweep_stale_temporaries(dir);
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    named_temp_ = dir / temporary_name(target_);
    fd_ = ::open(named_temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(options.mode));
    if (fd_ < 0 && errno != EEXIST)
      throw_at(ErrorCategory::io, path, "cannot create a temporary file in " + printable(dir.string()) + ": " + errno_text(errno));
  }
  if (fd_ < 0) throw_at(ErrorCategory::io, path, "cannot create a temporary file in " + printable(dir.string()));
  registered_ = TemporaryRegistration(named_temp_);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && owns_fd_) ::close(fd_);
  if (!committed_ && !named_temp_.empty()) ::unlink(named_temp_.c_str());
}

void OutputFile::write(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(fd_, p + done, bytes - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_at(ErrorCategory::io, path_ == "-" ? fs::path("standard output") : path_, "write failed: " + errno_text(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  written_ += bytes;
}

void OutputFile::link_into_place() {
  const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  if (named_temp_.empty()) {
    // The unnamed file gets a name (linkat through /proc, or AT_EMPTY_PATH where /proc is not
    // mounted), which the rename then moves over the target. Between the two it is registered, so
    // an interrupt handler removes it, and a later sweep does after a SIGKILL.
    const fs::path name = !options_.replace ? target_ : dir / temporary_name(target_);
    TemporaryRegistration reg;
    if (options_.replace) reg = TemporaryRegistration(name);
    if (temporaries_closed()) throw_at(ErrorCategory::io, path_, "not written: the process is ending");
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    int rc = ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW);
    if (rc != 0 && errno == ENOENT) rc = ::linkat(fd_, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH);
    if (rc != 0) {
      if (errno == EEXIST && !options_.replace) throw_at(ErrorCategory::usage, path_, "already exists; refusing to overwrite it");
      throw_at(ErrorCategory::io, path_, "cannot link the new file into " + printable(dir.string()) + ": " + errno_text(errno));
    }
    if (!options_.replace) return;
    if (::rename(name.c_str(), target_.c_str()) != 0) {
      const int err = errno;
      ::unlink(name.c_str());
      throw_at(ErrorCategory::io, path_, "cannot rename the new file into place: " + errno_text(err));
    }
    return;
  }
  if (temporaries_closed()) throw_at(ErrorCategory::io, path_, "not written: the process is ending");
  if (!options_.replace) {
    if (::link(named_temp_.c_str(), target_.c_str()) != 0) {
      if (errno == EEXIST) throw_at(ErrorCategory::usage, path_, "already exists; refusing to overwrite it");
      throw_at(ErrorCategory::io, path_, "cannot link the new file into place: " + errno_text(errno));
    }
    ::unlink(named_temp_.c_str());
    return;
  }
  if (::rename(named_temp_.c_str(), target_.c_str()) != 0)
    throw_at(ErrorCategory::io, path_, "cannot rename the temporary file into place: " + errno_text(errno));
}

void OutputFile::commit() {
  if (committed_) return;
  if (stream_) {
    committed_ = true;
    return;
  }
  if (options_.sync && ::fsync(fd_) != 0) throw_at(ErrorCategory::io, path_, "fsync failed: " + errno_text(errno));
  link_into_place();
  committed_ = true;
  registered_.release();
  if (::close(fd_) != 0) {
    fd_ = -1;
    throw_at(ErrorCategory::io, path_, "close failed: " + errno_text(errno));
  }
  fd_ = -1;
}

void write_output(const fs::path& path, std::span<const std::uint8_t> bytes, const OutputOptions& options) {
  OutputFile out(path, options);
  out.write(bytes);
  out.commit();
}

std::optional<FileIdentity> identity_of(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

namespace {
// Only regular files can be overwritten by a job: a FIFO, a terminal or /dev/null may be read and
// written by the same job (`-i /dev/stdin -o /dev/stdout`).
std::optional<FileIdentity> regular_identity(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}
bool exists_not_regular(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}
}  // namespace

void check_writes_apart(std::span<const JobFile> reads, std::span<const JobFile> writes) {
  std::map<FileIdentity, const JobFile*> read_ids;
  for (const JobFile& r : reads) {
    if (r.path.empty() || r.path == "-") continue;
    if (auto id = regular_identity(r.path)) read_ids.emplace(*id, &r);
  }
  std::map<FileIdentity, const JobFile*> written_ids;
  std::map<fs::path, const JobFile*> new_files;  // writes that do not exist yet, by absolute name
  for (const JobFile& w : writes) {
    if (w.path.empty() || w.path == "-" || own_descriptor(w.path) >= 0 || exists_not_regular(w.path)) continue;
    const JobFile* other = nullptr;
    if (auto id = regular_identity(w.path)) {
      if (auto it = read_ids.find(*id); it != read_ids.end()) {
        const std::string same = it->second->path == w.path ? "" : " (" + printable(it->second->path.string()) + ")";
        throw Error(ErrorCategory::usage, printable(w.path.string()) + ": " + w.role + " would overwrite " +
                                              it->second->role + same + "; choose another name");
      }
      auto [it, fresh] = written_ids.emplace(*id, &w);
      if (!fresh) other = it->second;
    } else {
      std::error_code ec;
      fs::path resolved = w.path;
      try {
        resolved = resolve_links(w.path);
      } catch (const Error&) {
        // unreadable on the way (a file where a folder should be): the write fails on its own
      }
      fs::path abs = fs::absolute(resolved, ec).lexically_normal();
      auto [it, fresh] = new_files.emplace(abs, &w);
      if (!fresh) other = it->second;
    }
    if (other)
      throw Error(ErrorCategory::usage, printable(w.path.string()) + ": " + w.role + " and " + other->role + " (" +
                                            printable(other->path.string()) + ") are the same file; choose another name");
  }
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto octal = [&out](unsigned char c) {
    out += '\\';
    out += char('0' + (c >> 6));
    out += char('0' + ((c >> 3) & 7));
    out += char('0' + (c & 7));
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default: octal(c);
      }
      ++i;
      continue;
    }
    if (c < 0x80) {
      out += char(c);
      ++i;
      continue;
    }
    // A UTF-8 sequence: kept when well-formed and not a C1 control (U+0080..U+009F).
    const std::size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (ok && len == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) ok = false;  // C1
    if (ok && len == 3) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0)) ok = false;  // overlong, surrogates
    }
    if (ok && len == 4) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      if ((c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90)) ok = false;
    }
    if (!ok) {
      octal(c);
      ++i;
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace wk::io
