#include "wk/io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "wk/core/error.hpp"

namespace fs = std::filesystem;

namespace wk::io {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

[[noreturn]] void throw_io(const fs::path& path, const std::string& what) {
  throw Error(ErrorCategory::io, path.string() + ": " + what);
}

// New files get the usual 0666 & ~umask; umask is read once (reading it means setting it).
mode_t default_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

constexpr const char* kTempMarker = ".wk-";

std::string lower_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

}  // namespace

std::vector<std::uint8_t> read_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw_io(path, "cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw_io(path, "cannot stat: " + errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw_io(path, "not a regular file");
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw_io(path, "read failed: " + errno_text(err));
    }
    if (n == 0) break;  // the file shrank while we read it
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

// The registry of temporary files (TemporaryRegistration). A slot is free (0), being filled by its
// owner (1), live (2), or taken by remove_registered_temporaries (3: the process is ending, the
// slot is never reused). Static storage, so a signal handler can walk it.
namespace {
constexpr int kTempSlots = 1024;
constexpr std::size_t kTempPathBytes = 4096;
struct TempSlot {
  std::atomic<int> state{0};
  char path[kTempPathBytes];
};
TempSlot g_temp_slots[kTempSlots];
std::atomic<bool> g_temps_closed{false};  // close_temporaries: no new temporary file may stay
static_assert(std::atomic<int>::is_always_lock_free, "the registry is read from signal handlers");
static_assert(std::atomic<bool>::is_always_lock_free, "the registry is read from signal handlers");
}  // namespace

TemporaryRegistration::TemporaryRegistration(const fs::path& path) noexcept {
  const std::string& p = path.native();
  if (p.size() >= kTempPathBytes) return;
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = 0;
    if (!g_temp_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_temp_slots[i].path, p.c_str(), p.size() + 1);
    g_temp_slots[i].state.store(2);
    slot_ = i;
    return;
  }
}

TemporaryRegistration& TemporaryRegistration::operator=(TemporaryRegistration&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

void TemporaryRegistration::release() noexcept {
  if (slot_ < 0) return;
  int expected = 2;
  g_temp_slots[slot_].state.compare_exchange_strong(expected, 0);  // fails only when a handler took it
  slot_ = -1;
}

void remove_registered_temporaries() noexcept {
  for (TempSlot& s : g_temp_slots) {
    int expected = 2;
    if (s.state.compare_exchange_strong(expected, 3)) ::unlink(s.path);
  }
}

void close_temporaries() noexcept {
  g_temps_closed.store(true);
  remove_registered_temporaries();
}

bool temporaries_closed() noexcept { return g_temps_closed.load(); }

bool is_temporary_name(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.size() > 1 && name[0] == '.' && name.find(kTempMarker) != std::string::npos;
}

void write_file_atomic(const fs::path& path, std::span<const std::uint8_t> bytes) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw_io(dir, "cannot create folder: " + ec.message());

  std::string name = ".";
  name.append(path.filename().string()).append(kTempMarker).append("XXXXXX");
  std::string tmpl = (dir / name).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw_io(path, "cannot create a temporary file in " + dir.string() + ": " + errno_text(errno));
  const fs::path tmp = tmpl;
  TemporaryRegistration registered(tmp);  // removed by an interrupt handler that ends the process
  auto fail = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw_io(path, what + ": " + errno_text(err));
  };
  if (temporaries_closed()) {  // the process is ending (close_temporaries): write nothing more
    ::close(fd);
    ::unlink(tmp.c_str());
    throw_io(path, "not written: the process is ending");
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, default_file_mode()) != 0) fail("cannot set permissions");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw_io(path, "write failed: " + errno_text(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw_io(path, "cannot rename the temporary file into place: " + errno_text(err));
  }
}

bool is_image_extension(const fs::path& path) {
  static constexpr const char* kExt[] = {".jpg", ".jpeg", ".jpe", ".png", ".bmp", ".dib", ".tif",
                                         ".tiff", ".webp", ".pbm", ".pgm", ".ppm", ".pnm", ".pxm",
                                         ".pfm", ".sr", ".ras", ".jp2"};
  const std::string ext = lower_extension(path);
  return std::any_of(std::begin(kExt), std::end(kExt), [&](const char* e) { return ext == e; });
}

InputScan scan_inputs(std::span<const std::string> inputs, const fs::path& skip_dir) {
  InputScan scan;
  std::error_code ec;
  const fs::path skip = skip_dir.empty() ? fs::path() : fs::weakly_canonical(skip_dir, ec);
  for (const std::string& input : inputs) {
    const fs::path root(input);
    const fs::file_status st = fs::status(root, ec);
    if (ec || !fs::exists(st)) {
      scan.errors.push_back(input + ": " + (fs::is_symlink(fs::symlink_status(root, ec)) ? "dangling symbolic link" : "no such file or folder"));
      continue;
    }
    if (fs::is_regular_file(st)) {
      scan.files.push_back({root, root.filename()});
      continue;
    }
    if (!fs::is_directory(st)) {
      scan.errors.push_back(input + ": not a regular file or folder");
      continue;
    }
    std::vector<InputFile> found;
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
    if (ec) {
      scan.errors.push_back(input + ": cannot list folder: " + ec.message());
      continue;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) {
        scan.errors.push_back(input + ": cannot list folder: " + ec.message());
        break;
      }
      const fs::directory_entry& entry = *it;
      std::error_code e2;
      if (entry.is_directory(e2)) {
        if (!skip.empty() && fs::weakly_canonical(entry.path(), e2) == skip) it.disable_recursion_pending();
        continue;
      }
      if (!is_image_extension(entry.path()) || is_temporary_name(entry.path())) continue;
      if (!entry.is_regular_file(e2)) {
        scan.errors.push_back(entry.path().string() + ": " +
                              (entry.is_symlink(e2) && !entry.exists(e2) ? "dangling symbolic link" : "not a regular file"));
        continue;
      }
      found.push_back({entry.path(), entry.path().lexically_relative(root)});
    }
    std::sort(found.begin(), found.end(), [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
    scan.files.insert(scan.files.end(), found.begin(), found.end());
  }
  return scan;
}

}  // namespace wk::io
