// IDEA on files in the --raw format: key files, nonce, padding, through the three-slot pipeline of
// idea_stream.hpp (read batch j+1, transform batch j, write batch j-1 at the same time) over an
// IdeaExecutor, into an io::OutputFile that becomes the output only when everything succeeded.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "wk/cipher/idea_file.hpp"
#include "wk/core/error.hpp"
#include "wk/io/output_file.hpp"
#include "cipher/idea/idea_stream.hpp"

namespace fs = std::filesystem;

namespace wk::cipher {

using detail::file_kind;
using detail::random_bytes;
using detail::throw_at;
using detail::throw_setting;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

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

  detail::InputStream input(in, out, options.replace);
  const fs::path& name = input.name();
  // What a file's size says before any work (standard input says it at its end, below).
  auto check_size = [&](std::uint64_t size) {
    const std::string n_bytes = std::to_string(size) + (size == 1 ? " byte" : " bytes");
    if (ctr && !enc && size < kIdeaNonceBytes)
      throw_at(ErrorCategory::decode, name, "truncated: " + n_bytes + ", shorter than the 8-byte CTR nonce it must start with");
    if (!ctr && !enc && size % kIdeaBlockBytes != 0)
      throw_at(ErrorCategory::decode, name, "truncated or not ECB ciphertext: " + n_bytes + " is not a whole number of 8-byte blocks");
    if (ecb_pad && !enc && size == 0)
      throw_setting(ErrorCategory::decode, IdeaSetting::pad, name, "empty, but a padded ECB ciphertext holds at least one block");
    if (!ctr && enc && !options.pad && size % kIdeaBlockBytes != 0)
      throw_setting(ErrorCategory::decode, IdeaSetting::pad, name,
                    n_bytes + " is not a whole number of 8-byte blocks, which ECB without padding needs");
  };
  if (input.size()) check_size(*input.size());

  IdeaJob job;
  std::array<std::uint8_t, kIdeaNonceBytes> nonce{};
  std::uint64_t header = 0;
  if (ctr) {
    if (enc) {
      if (options.nonce) idea_store_be64(nonce.data(), *options.nonce);
      else random_bytes(nonce.data(), nonce.size());
    } else {
      header = input.read(nonce.data(), nonce.size());
      if (header < kIdeaNonceBytes) check_size(header);
    }
    job = idea_ctr_job(key, idea_load_be64(nonce.data()));
  } else {
    job = idea_ecb_job(key, direction);
  }

  io::OutputOptions out_options;
  out_options.mode = enc ? 0666 : 0600;
  out_options.replace = options.replace;
  io::OutputFile output(out, out_options);
  if (ctr && enc) output.write(nonce.data(), nonce.size());

  // Batch j holds data bytes [j*C, (j+1)*C); ECB encryption with padding appends the padding to
  // the last batch (its slot has room for it).
  const std::uint64_t size = input.size().value_or(0);
  const std::size_t data_bytes = static_cast<std::size_t>(
      std::min<std::uint64_t>(C, input.size() ? (size - header + 15) / 16 * 16 : C));
  detail::SlotPipeline pipe;
  for (auto& s : pipe.slots) s.in = executor.host_buffer(data_bytes + 16);
  std::uint64_t total = header;
  pipe.read = detail::batch_reader(input, C, data_bytes);
  pipe.transform = [&](std::uint64_t j, const detail::Batch& batch, detail::Slot& slot) -> std::size_t {
    total += batch.bytes;
    if (batch.last && !input.size()) check_size(total);
    std::uint8_t* buf = slot.in.data();
    std::size_t len = batch.bytes;
    if (ecb_pad && enc && batch.last) {
      const std::size_t p = kIdeaBlockBytes - len % kIdeaBlockBytes;  // 1..8
      std::memset(buf + len, static_cast<int>(p), p);
      len += p;
    }
    if (len % kIdeaBlockBytes) std::memset(buf + len, 0, kIdeaBlockBytes - len % kIdeaBlockBytes);  // CTR's partial block
    executor.run(job.advanced(j * (C / kIdeaBlockBytes)), buf, buf, (len + kIdeaBlockBytes - 1) / kIdeaBlockBytes);
    std::size_t keep = ctr ? batch.bytes : len;
    if (ecb_pad && !enc && batch.last) {
      const std::uint8_t p = buf[len - 1];
      bool ok = p >= 1 && p <= kIdeaBlockBytes;
      for (std::size_t i = 0; ok && i < p; ++i) ok = buf[len - 1 - i] == p;
      if (!ok)
        throw_setting(ErrorCategory::decode, IdeaSetting::pad, name,
                      "bad padding: the last block does not end in PKCS#7 padding: a wrong key, a damaged file, or "
                      "data that was not encrypted with ECB padding");
      keep = len - p;
    }
    return keep;
  };
  return pipe.run_into(output, input, header, progress, t0);
}

}  // namespace wk::cipher
