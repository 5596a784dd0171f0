// IDEA on files: key files, nonce, padding, and a three-slot pipeline (read chunk j+1, transform
// chunk j, write chunk j-1 at the same time) over an IdeaExecutor, into an io::OutputFile that
// becomes the output only when everything succeeded.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <utility>

#include "wk/cipher/idea_file.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;

namespace wk::cipher {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

[[noreturn]] void throw_at(ErrorCategory category, const fs::path& path, const std::string& what) {
  throw Error(category, io::printable(path.string()) + ": " + what);
}

// An error about `path` that `setting` decides.
[[noreturn]] void throw_setting(ErrorCategory category, IdeaSetting setting, const fs::path& path, const std::string& what) {
  throw IdeaSettingError(category, setting, io::printable(path.string()) + ": " + what);
}

void random_bytes(std::uint8_t* out, std::size_t n) {
  if (RAND_bytes(out, static_cast<int>(n)) != 1)
    throw Error(ErrorCategory::internal, "OpenSSL's RAND_bytes failed: no random bytes for the key or nonce");
}

const char* file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// A regular file opened for reading, read at explicit offsets (pread: no shared file position).
class InputFile {
 public:
  explicit InputFile(const fs::path& path) : path_(path) {
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
      throw_at(ErrorCategory::io, path, std::string("not a regular file (") + file_kind(st.st_mode) + "); the input must be one");
    }
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    size_ = static_cast<std::uint64_t>(st.st_size);
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::uint64_t size() const { return size_; }

  void read_exact(std::uint8_t* dst, std::size_t n, std::uint64_t offset) const {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        throw_at(ErrorCategory::io, path_, "read failed: " + errno_text(errno));
      }
      if (r == 0) throw_at(ErrorCategory::io, path_, "the file shrank while it was being read");
      done += static_cast<std::size_t>(r);
    }
  }

 private:
  fs::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

std::uint64_t load_be64(const std::uint8_t* p) { return idea_load_be64(p); }

}  // namespace

namespace {

// "PATH is readable by others (mode 0644)", or "" when only the owner may read or write it.
std::string exposure(const fs::path& path, unsigned mode) {
  mode &= 07777;
  if (!(mode & 077)) return {};
  const bool readable = mode & 044, writable = mode & 022;
  const char* how = readable && writable ? "readable and writable by" : readable ? "readable by" : writable ? "writable by" : "accessible to";
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", mode);
  return io::printable(path.string()) + " is " + how + " others (mode " + octal + ")";
}

}  // namespace

std::string idea_key_file_exposure(const fs::path& path, unsigned mode) {
  const std::string what = exposure(path, mode);
  return what.empty() ? what : what + "; chmod 600 it";
}

IdeaKey idea_read_key_file(const fs::path& path, const IdeaKeyFileCheck& check) {
  // O_NONBLOCK: a FIFO opens at once (without it, open waits for a writer) and is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) throw_at(ErrorCategory::io, path, "cannot open the key file: " + errno_text(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw_at(ErrorCategory::io, path, "cannot stat the key file: " + errno_text(errno));
  if (!S_ISREG(st.st_mode))
    throw_at(ErrorCategory::io, path,
             std::string("the key file is not a regular file (") + file_kind(st.st_mode) + "); wk-crypt keygen makes one");
  // The size before any byte is read: a large file is never read.
  if (st.st_size != static_cast<off_t>(kIdeaKeyBytes))
    throw_at(ErrorCategory::decode, path,
             "a key file holds exactly 16 raw bytes (wk-crypt keygen makes one); this one has " +
                 std::to_string(st.st_size) + " bytes");
  if (const std::string exposed = exposure(path, static_cast<unsigned>(st.st_mode)); !exposed.empty()) {
    if (check.strict_perms)
      throw IdeaSettingError(ErrorCategory::io, IdeaSetting::strict_perms,
                             exposed + "; chmod 600 it: refused by the strict permission check");
    if (check.warn) check.warn(exposed + "; chmod 600 it");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // At most one byte more than a key: a file that grew since fstat is refused, not read on.
  std::array<std::uint8_t, kIdeaKeyBytes + 1> buf{};
  std::size_t done = 0;
  while (done < buf.size()) {
    const ssize_t r = ::read(fd, buf.data() + done, buf.size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw_at(ErrorCategory::io, path, "cannot read the key file: " + errno_text(errno));
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  if (done != kIdeaKeyBytes) {
    std::memset(buf.data(), 0, buf.size());
    throw_at(ErrorCategory::io, path, "the key file changed size while it was read");
  }
  IdeaKey key{};
  std::copy_n(buf.begin(), kIdeaKeyBytes, key.begin());
  std::memset(buf.data(), 0, buf.size());
  return key;
}

IdeaKey idea_write_key_file(const fs::path& path, bool overwrite) {
  if (path != "-") {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {  // links followed: what would be replaced
      if (S_ISDIR(st.st_mode)) throw_at(ErrorCategory::usage, path, "is a folder, not a key file name");
      if (S_ISREG(st.st_mode) && !overwrite)
        throw_setting(ErrorCategory::usage, IdeaSetting::replace, path, "already exists; refusing to overwrite an existing key");
    }
  }
  IdeaKey key{};
  random_bytes(key.data(), key.size());
  io::OutputOptions o;
  o.mode = 0600;
  o.replace = overwrite;  // without overwrite, a key that appears meanwhile is still not replaced
  io::OutputFile out(path, o);
  // 0600 whatever the umask (one that takes the owner's bits away too).
  if (!out.is_stream() && ::fchmod(out.fd(), 0600) != 0)
    throw_at(ErrorCategory::io, path, "cannot set mode 0600: " + errno_text(errno));
  out.write(key.data(), key.size());
  out.commit();
  return key;
}

IdeaFileResult idea_crypt_file(IdeaDirection direction, const fs::path& in, const fs::path& out, const IdeaKey& key,
                               const IdeaFileOptions& options, IdeaExecutor& executor, const IdeaProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t C = options.chunk_bytes;
  if (C < 16 || C % 16 != 0) throw Error(ErrorCategory::usage, "idea: the chunk size must be a positive multiple of 16 bytes");
  const bool ctr = options.mode == IdeaMode::ctr;
  const bool enc = direction == IdeaDirection::encrypt;
  const bool ecb_pad = !ctr && options.pad;

  {
    const io::JobFile reads[] = {{"the input", in}};
    const io::JobFile writes[] = {{"the output", out}};
    io::check_writes_apart(reads, writes);
  }
  InputFile input(in);
  if (out != "-") {
    struct stat st {};
    if (::stat(out.c_str(), &st) == 0) {  // links followed: what would be replaced
      if (S_ISDIR(st.st_mode)) throw_at(ErrorCategory::usage, out, "is a folder; name the output file");
      if (S_ISREG(st.st_mode) && !options.replace)
        throw_setting(ErrorCategory::usage, IdeaSetting::replace, out, "already exists; refusing to replace it");
    }
  }
  const std::uint64_t size = input.size();
  const std::string n_bytes = std::to_string(size) + (size == 1 ? " byte" : " bytes");
  if (ctr && !enc && size < kIdeaNonceBytes)
    throw_at(ErrorCategory::decode, in, "truncated: " + n_bytes + ", shorter than the 8-byte CTR nonce it must start with");
  if (!ctr && !enc && size % kIdeaBlockBytes != 0)
    throw_at(ErrorCategory::decode, in, "truncated or not ECB ciphertext: " + n_bytes + " is not a whole number of 8-byte blocks");
  if (ecb_pad && !enc && size == 0)
    throw_setting(ErrorCategory::decode, IdeaSetting::pad, in, "empty, but a padded ECB ciphertext holds at least one block");
  if (!ctr && enc && !options.pad && size % kIdeaBlockBytes != 0)
    throw_setting(ErrorCategory::decode, IdeaSetting::pad, in,
                  n_bytes + " is not a whole number of 8-byte blocks, which ECB without padding needs");

  const std::uint64_t data_offset = ctr && !enc ? kIdeaNonceBytes : 0;
  const std::uint64_t data = size - data_offset;
  IdeaJob job;
  std::array<std::uint8_t, kIdeaNonceBytes> nonce{};
  if (ctr) {
    if (enc) {
      if (options.nonce) idea_store_be64(nonce.data(), *options.nonce);
      else random_bytes(nonce.data(), nonce.size());
    } else {
      input.read_exact(nonce.data(), nonce.size(), 0);
    }
    job = idea_ctr_job(key, load_be64(nonce.data()));
  } else {
    job = idea_ecb_job(key, direction);
  }

  // Chunk j holds data bytes [j*C, min((j+1)*C, data)); ECB encryption with padding appends the
  // padding to the last chunk, so an input of a whole number of chunks (or an empty one) still
  // gets its chunk for the padding block.
  std::uint64_t nchunks = (data + C - 1) / C;
  if (ecb_pad && enc && nchunks == 0) nchunks = 1;
  const std::size_t slot_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(C, (data + 15) / 16 * 16)) + 16;

  io::OutputOptions out_options;
  out_options.mode = enc ? 0666 : 0600;
  out_options.replace = options.replace;
  io::OutputFile output(out, out_options);
  if (ctr && enc) output.write(nonce.data(), nonce.size());

  std::array<HostBuffer<std::uint8_t>, 3> slots;
  for (auto& s : slots) s = executor.host_buffer(slot_bytes);
  std::array<std::size_t, 3> out_len{};
  auto in_len = [&](std::uint64_t j) {
    const std::uint64_t first = j * C;
    return static_cast<std::size_t>(first >= data ? 0 : std::min<std::uint64_t>(C, data - first));
  };

  auto transform = [&](std::uint64_t j) {
    nvtx::Range r("crypt", nvtx::Color::compute, static_cast<std::int64_t>(j));
    std::uint8_t* buf = slots[j % 3].data();
    const std::size_t n = in_len(j);
    const bool last = j + 1 == nchunks;
    std::size_t len = n;
    if (ecb_pad && enc && last) {
      const std::size_t p = kIdeaBlockBytes - n % kIdeaBlockBytes;  // 1..8
      std::memset(buf + len, static_cast<int>(p), p);
      len += p;
    }
    if (len % kIdeaBlockBytes) std::memset(buf + len, 0, kIdeaBlockBytes - len % kIdeaBlockBytes);  // CTR's partial block
    const std::size_t blocks = (len + kIdeaBlockBytes - 1) / kIdeaBlockBytes;
    executor.run(job.advanced(j * (C / kIdeaBlockBytes)), buf, buf, blocks);
    std::size_t keep = ctr ? n : len;
    if (ecb_pad && !enc && last) {
      const std::uint8_t p = buf[len - 1];
      bool ok = p >= 1 && p <= kIdeaBlockBytes;
      for (std::size_t i = 0; ok && i < p; ++i) ok = buf[len - 1 - i] == p;
      if (!ok)
        throw_setting(ErrorCategory::decode, IdeaSetting::pad, in,
                      "bad padding: the last block does not end in PKCS#7 padding: a wrong key, a damaged file, or "
                      "data that was not encrypted with ECB padding");
      keep = len - p;
    }
    out_len[j % 3] = keep;
  };

  // The futures are declared after everything their tasks touch, so that on an exception they are
  // joined (std::async futures wait in their destructor) before those objects go away.
  std::future<void> reading, writing;
  auto start_read = [&](std::uint64_t j) {
    return std::async(std::launch::async, [&, j] {
      nvtx::Range r("read", nvtx::Color::io, static_cast<std::int64_t>(j));
      input.read_exact(slots[j % 3].data(), in_len(j), data_offset + j * C);
    });
  };
  std::uint64_t done = 0;
  if (nchunks) reading = start_read(0);
  for (std::uint64_t j = 0; j < nchunks; ++j) {
    reading.get();
    // Slot (j+1)%3 last held chunk j-2, whose write was waited for in the previous iteration.
    if (j + 1 < nchunks) reading = start_read(j + 1);
    transform(j);
    if (writing.valid()) {
      writing.get();
      done += in_len(j - 1);
      if (progress) progress(done + data_offset, size);
    }
    writing = std::async(std::launch::async, [&, j] {
      nvtx::Range r("write", nvtx::Color::io, static_cast<std::int64_t>(j));
      output.write(slots[j % 3].data(), out_len[j % 3]);
    });
  }
  if (writing.valid()) {
    writing.get();
    done += in_len(nchunks - 1);
  }
  {
    nvtx::Range r("commit", nvtx::Color::io);
    output.commit();
  }
  if (progress) progress(size, size);
  IdeaFileResult result;
  result.bytes_in = size;
  result.bytes_out = output.written();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace wk::cipher
