#include "wk/io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include "wk/core/error.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;

namespace wk::io {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

[[noreturn]] void throw_io(const fs::path& path, const std::string& what) {
  throw Error(ErrorCategory::io, printable(path.string()) + ": " + what);
}

constexpr const char* kTempMarker = ".wk-";

std::string lower_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

}  // namespace

std::vector<std::uint8_t> read_file(const fs::path& path, std::uint64_t max_bytes) {
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
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw_io(path, "larger than " + std::to_string(max_bytes) + " bytes");
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

std::vector<std::uint8_t> read_standard_input(std::uint64_t max_bytes) {
  std::vector<std::uint8_t> bytes;
  std::size_t done = 0;
  for (;;) {
    // Grows by doubling from 64 KiB, one byte beyond the limit so that a larger input shows.
    if (done == bytes.size()) {
      const std::uint64_t want = std::max<std::uint64_t>(64 * 1024, 2 * std::uint64_t(bytes.size()));
      bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(want, max_bytes + 1)));
    }
    const ssize_t n = ::read(STDIN_FILENO, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCategory::io, "standard input: read failed: " + errno_text(errno));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
    if (done > max_bytes) throw Error(ErrorCategory::io, "standard input: larger than " + std::to_string(max_bytes) + " bytes");
  }
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

bool is_image_extension(const fs::path& path) {
  static constexpr const char* kExt[] = {".jpg", ".jpeg", ".jpe", ".png", ".bmp", ".dib", ".tif",
                                         ".tiff", ".webp", ".pbm", ".pgm", ".ppm", ".pnm", ".pxm",
                                         ".pfm", ".sr", ".ras", ".jp2"};
  const std::string ext = lower_extension(path);
  return std::any_of(std::begin(kExt), std::end(kExt), [&](const char* e) { return ext == e; });
}

namespace {

// Why `path` (whose status could not be had, or which does not exist) cannot be read.
std::string missing_reason(const fs::path& path, const std::error_code& status_error) {
  std::error_code ec;
  if (status_error == std::errc::too_many_symbolic_link_levels) return "symbolic link loop";
  if (fs::is_symlink(fs::symlink_status(path, ec))) return "dangling symbolic link";
  if (status_error && status_error != std::errc::no_such_file_or_directory)
    return "cannot look at it: " + status_error.message();
  return "no such file or folder";
}

// One folder of a walk: its image files into `found`, its subfolders walked after it. Every folder
// that cannot be opened or read to the end is an error of its own; the walk goes on elsewhere.
void walk_folder(const fs::path& root, const fs::path& dir, const fs::path& skip, std::vector<InputFile>& found,
                 std::vector<std::string>& errors) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    errors.push_back(dir.string() + ": cannot list folder: " + ec.message());
    return;
  }
  std::vector<fs::path> subfolders;
  while (it != end) {
    const fs::directory_entry& entry = *it;
    std::error_code e2;
    const fs::file_status link_status = entry.symlink_status(e2);
    if (fs::is_directory(link_status)) {
      if (skip.empty() || fs::weakly_canonical(entry.path(), e2) != skip) subfolders.push_back(entry.path());
    } else if (is_image_extension(entry.path()) && !is_temporary_name(entry.path())) {
      const fs::file_status st = fs::status(entry.path(), e2);
      if (fs::is_regular_file(st)) found.push_back({entry.path(), entry.path().lexically_relative(root)});
      else if (!fs::exists(st)) errors.push_back(entry.path().string() + ": " + missing_reason(entry.path(), e2));
      else if (!fs::is_directory(st)) errors.push_back(entry.path().string() + ": not a regular file");
      // a link to a folder named like an image: links to folders are not followed
    }
    it.increment(ec);
    if (ec) {
      errors.push_back(dir.string() + ": cannot list folder: " + ec.message());
      break;
    }
  }
  std::sort(subfolders.begin(), subfolders.end());
  for (const fs::path& sub : subfolders) walk_folder(root, sub, skip, found, errors);
}

}  // namespace

InputScan scan_inputs(std::span<const std::string> inputs, const fs::path& skip_dir) {
  InputScan scan;
  std::error_code ec;
  const fs::path skip = skip_dir.empty() ? fs::path() : fs::weakly_canonical(skip_dir, ec);
  for (const std::string& input : inputs) {
    const fs::path root(input);
    std::error_code status_error;
    const fs::file_status st = fs::status(root, status_error);
    if (!fs::exists(st)) {
      scan.errors.push_back(input + ": " + missing_reason(root, status_error));
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
    walk_folder(root, root, skip, found, scan.errors);
    std::sort(found.begin(), found.end(), [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
    scan.files.insert(scan.files.end(), found.begin(), found.end());
  }
  // The same file reached twice with the same name below its root (given twice, or as a folder
  // and as a file in it) is taken once: both would write the same output.
  std::map<std::pair<FileIdentity, fs::path>, fs::path> first;
  std::vector<InputFile> unique;
  unique.reserve(scan.files.size());
  for (InputFile& f : scan.files) {
    const auto id = identity_of(f.path);
    if (id) {
      auto [it, fresh] = first.emplace(std::make_pair(*id, f.relative), f.path);
      if (!fresh) {
        scan.notices.push_back(f.path.string() + ": the same file as " + it->second.string() + "; converted once");
        continue;
      }
    }
    unique.push_back(std::move(f));
  }
  scan.files = std::move(unique);
  return scan;
}

}  // namespace wk::io
