// IDEA on files: key files, nonce, padding, and a three-slot pipeline (read chunk j+1, transform
// chunk j, write chunk j-1 at the same time) over an IdeaExecutor, into a temporary file that is
// renamed into place only when everything succeeded.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <utility>

#include "wk/cipher/idea_file.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/io/files.hpp"

namespace fs = std::filesystem;

namespace wk::cipher {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

[[noreturn]] void throw_at(ErrorCategory category, const fs::path& path, const std::string& what) {
  throw Error(category, path.string() + ": " + what);
}

void random_bytes(std::uint8_t* out, std::size_t n) {
  if (RAND_bytes(out, static_cast<int>(n)) != 1)
    throw Error(ErrorCategory::internal, "OpenSSL's RAND_bytes failed: no random bytes for the key or nonce");
}

// A regular file opened for reading, read at explicit offsets (pread: no shared file position).
class InputFile {
 public:
  explicit InputFile(const fs::path& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw_at(ErrorCategory::io, path, "cannot open: " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      const int err = errno;
      ::close(fd_);
      throw_at(ErrorCategory::io, path, "cannot stat: " + errno_text(err));
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw_at(ErrorCategory::io, path, "not a regular file");
    }
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

// The output: ".NAME.wk-XXXXXX" in the destination's folder (the pattern io::is_temporary_name
// knows), created with `mode` (minus the umask), removed again unless commit() renames it.
class OutputFile {
 public:
  OutputFile(const fs::path& path, mode_t mode) : path_(path) {
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw_at(ErrorCategory::io, dir, "cannot create folder: " + ec.message());
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      std::array<std::uint8_t, 6> r{};
      random_bytes(r.data(), r.size());
      std::string name(1, '.');
      name.append(path.filename().string()).append(".wk-");
      for (std::uint8_t b : r) name += kAlphabet[b % 62];
      tmp_ = dir / name;
      fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
      if (fd_ < 0 && errno != EEXIST)
        throw_at(ErrorCategory::io, path, "cannot create a temporary file in " + dir.string() + ": " + errno_text(errno));
    }
    if (fd_ < 0) throw_at(ErrorCategory::io, path, "cannot create a temporary file in " + dir.string());
    registered_ = io::TemporaryRegistration(tmp_);  // an interrupt handler ending the process removes it
  }
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_.c_str());
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write_all(const std::uint8_t* p, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t w = ::write(fd_, p + done, n - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw_at(ErrorCategory::io, path_, "write failed: " + errno_text(errno));
      }
      done += static_cast<std::size_t>(w);
    }
    written_ += n;
  }
  std::uint64_t written() const { return written_; }

  // Closes and renames into place. replace=false: fails if the destination exists (link(2) is
  // atomic about it), for key files that must never be overwritten by accident.
  void commit(bool replace = true) {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) throw_at(ErrorCategory::io, path_, "write failed: " + errno_text(errno));
    if (replace) {
      if (::rename(tmp_.c_str(), path_.c_str()) != 0)
        throw_at(ErrorCategory::io, path_, "cannot rename the temporary file into place: " + errno_text(errno));
    } else {
      if (::link(tmp_.c_str(), path_.c_str()) == 0) {
        ::unlink(tmp_.c_str());
      } else {
        if (errno == EEXIST) throw_at(ErrorCategory::usage, path_, "already exists; refusing to overwrite it");
        if (errno != EPERM && errno != ENOTSUP)
          throw_at(ErrorCategory::io, path_, "cannot move the temporary file into place: " + errno_text(errno));
        // A file system without hard links: check, then rename (a small window, not atomic).
        std::error_code ec;
        if (fs::exists(fs::symlink_status(path_, ec)))
          throw_at(ErrorCategory::usage, path_, "already exists; refusing to overwrite it");
        if (::rename(tmp_.c_str(), path_.c_str()) != 0)
          throw_at(ErrorCategory::io, path_, "cannot rename the temporary file into place: " + errno_text(errno));
      }
    }
    committed_ = true;
  }
  int fd() const { return fd_; }

 private:
  fs::path path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
  std::uint64_t written_ = 0;
  io::TemporaryRegistration registered_;  // released after the rename or the unlink (destructor)
};

std::uint64_t load_be64(const std::uint8_t* p) { return idea_load_be64(p); }

}  // namespace

IdeaKey idea_read_key_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_at(ErrorCategory::io, path, "cannot open the key file: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw_at(ErrorCategory::io, path, "the key file is not a regular file");
  }
  if (st.st_size != static_cast<off_t>(kIdeaKeyBytes)) {
    ::close(fd);
    throw_at(ErrorCategory::decode, path,
             "a key file holds exactly 16 raw bytes (wk-crypt keygen makes one); this one has " +
                 std::to_string(st.st_size) + " bytes");
  }
  IdeaKey key{};
  std::size_t done = 0;
  while (done < key.size()) {
    const ssize_t r = ::read(fd, key.data() + done, key.size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int err = r < 0 ? errno : 0;
      ::close(fd);
      throw_at(ErrorCategory::io, path, "cannot read the key file: " + (err ? errno_text(err) : std::string("it shrank")));
    }
    done += static_cast<std::size_t>(r);
  }
  ::close(fd);
  return key;
}

IdeaKey idea_write_key_file(const fs::path& path, bool overwrite) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw_at(ErrorCategory::usage, path, "is a folder, not a key file name");
  if (!overwrite && fs::exists(fs::symlink_status(path, ec)))
    throw_at(ErrorCategory::usage, path, "already exists; refusing to overwrite a key (use --force to replace it)");
  IdeaKey key{};
  random_bytes(key.data(), key.size());
  OutputFile out(path, 0600);
  if (::fchmod(out.fd(), 0600) != 0) throw_at(ErrorCategory::io, path, "cannot set mode 0600: " + errno_text(errno));
  out.write_all(key.data(), key.size());
  out.commit(overwrite);
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

  InputFile input(in);
  {
    std::error_code ec;
    if (fs::exists(out, ec) && fs::equivalent(in, out, ec))
      throw_at(ErrorCategory::usage, out, "is the input file itself; choose another output");
    if (fs::is_directory(out, ec)) throw_at(ErrorCategory::usage, out, "is a folder; name the output file");
  }
  const std::uint64_t size = input.size();
  const std::string n_bytes = std::to_string(size) + (size == 1 ? " byte" : " bytes");
  if (ctr && !enc && size < kIdeaNonceBytes)
    throw_at(ErrorCategory::decode, in, "truncated: " + n_bytes + ", shorter than the 8-byte CTR nonce it must start with");
  if (!ctr && !enc && size % kIdeaBlockBytes != 0)
    throw_at(ErrorCategory::decode, in, "truncated or not ECB ciphertext: " + n_bytes + " is not a whole number of 8-byte blocks");
  if (ecb_pad && !enc && size == 0)
    throw_at(ErrorCategory::decode, in, "empty, but a padded ECB ciphertext holds at least one block (use --no-pad for unpadded data)");
  if (!ctr && enc && !options.pad && size % kIdeaBlockBytes != 0)
    throw_at(ErrorCategory::decode, in, n_bytes + " is not a whole number of 8-byte blocks, which --no-pad needs (without it, PKCS#7 pads)");

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

  OutputFile output(out, enc ? 0666 : 0600);
  if (ctr && enc) output.write_all(nonce.data(), nonce.size());

  std::array<IdeaHostBuffer, 3> slots;
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
        throw_at(ErrorCategory::decode, in,
                 "bad padding: the last block does not end in PKCS#7 padding (wrong key, a damaged file, or data "
                 "that was not encrypted with ECB padding; --no-pad keeps every byte)");
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
      output.write_all(slots[j % 3].data(), out_len[j % 3]);
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
