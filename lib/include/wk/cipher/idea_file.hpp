#pragma once
// IDEA on files in the book's headerless format (wk-crypt --raw; the authenticated container that
// wk-crypt writes by default is wk/cipher/idea_container.hpp): key files, the CTR nonce, ECB
// padding and streaming of inputs of any size (larger than host or GPU memory) through an
// IdeaExecutor. Every file is written through io::OutputFile:
// a regular output appears whole or not at all (an unnamed temporary file, fsync'ed, then linked
// and renamed into place; nothing is left behind even after SIGKILL), a symbolic link is followed
// and stays a link, a FIFO or character device is written in place.
//
// File formats
//   key file        exactly 16 raw bytes (the IDEA key)
//   CTR (default)   8-byte random nonce, then the input XORed with the key stream: block i (bytes
//                   8i..8i+7 of the data) uses E_K(nonce + i mod 2^64), nonce and counter read as
//                   big-endian 64-bit integers; a partial last block uses the first bytes of its key
//                   stream. Output size = input size + 8.
//   ECB             each 8-byte block encrypted alone; PKCS#7 padding (1..8 bytes of value n)
//                   unless padding is off (IdeaFileOptions::pad), which needs a whole number of
//                   blocks.
// Neither mode detects tampering or a wrong key (ECB notices most wrong keys only through the
// padding check): the container does.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "wk/cipher/idea.hpp"
#include "wk/core/error.hpp"

namespace wk::cipher {

inline constexpr std::size_t kIdeaNonceBytes = 8;

// The setting of a call that decides an error, for a caller that offers it under a name of its
// own (wk-crypt: --force, --no-pad, --strict-perms) and can say which to change.
enum class IdeaSetting {
  replace,       // an existing output or key file is refused (IdeaFileOptions::replace, overwrite)
  pad,           // ECB padding on or off (IdeaFileOptions::pad)
  strict_perms,  // a key file others may read is refused (IdeaKeyFileCheck::strict_perms)
  mode,          // a container of another mode than the one asked for (ContainerOptions::expect_mode)
};

// A wk::Error that the setting `setting()` decides; the message says what is wrong in the
// library's terms.
class IdeaSettingError : public Error {
 public:
  IdeaSettingError(ErrorCategory category, IdeaSetting setting, const std::string& message)
      : Error(category, message), setting_(setting) {}
  IdeaSetting setting() const noexcept { return setting_; }

 private:
  IdeaSetting setting_;
};

// What idea_read_key_file does about a key file that users other than its owner may read or
// write (any of the mode bits 077), as ssh does about private keys.
struct IdeaKeyFileCheck {
  bool strict_perms = false;                       // refuse it: IdeaSettingError{io}, nothing read
  std::function<void(const std::string&)> warn;    // else called with the warning, when set
};

// Reads a key file of exactly 16 bytes. Opening never blocks (O_NONBLOCK, then fstat): a FIFO, a
// device or a folder is refused, and a file of any other size is refused without being read.
// Throws wk::Error{io} (missing, unreadable, not a regular file; refused permissions:
// IdeaSettingError{io, strict_perms}) or {decode} (any other size), the message naming the file;
// no message quotes the file's content.
IdeaKey idea_read_key_file(const std::filesystem::path& path, const IdeaKeyFileCheck& check = {});

// "PATH is readable by others (mode 0644); chmod 600 it" for a key file whose mode lets others
// than its owner read or write it (`mode`: st_mode or its permission bits); "" for 0600, 0400.
std::string idea_key_file_exposure(const std::filesystem::path& path, unsigned mode);

// Writes 16 bytes from OpenSSL's CSPRNG (RAND_bytes) to `path` with mode 0600 through
// io::OutputFile (a symbolic link is followed; a FIFO or character device is written in place).
// An existing regular file (also behind a link) is refused (IdeaSettingError{usage, replace})
// unless `overwrite`.
IdeaKey idea_write_key_file(const std::filesystem::path& path, bool overwrite);

struct IdeaFileOptions {
  IdeaMode mode = IdeaMode::ctr;
  bool pad = true;                               // ECB: PKCS#7 padding
  std::size_t chunk_bytes = std::size_t(64) << 20;  // read / transform / write granularity, a multiple of 16
  std::optional<std::uint64_t> nonce;            // CTR encryption: this nonce instead of a random one (tests)
  bool replace = true;                           // false: an existing regular output is refused
                                                 // (IdeaSettingError{usage, replace})
};

struct IdeaFileResult {
  std::uint64_t bytes_in = 0;   // size of the input file
  std::uint64_t bytes_out = 0;  // size of the output file
  double seconds = 0;           // wall time of the whole call
};

// Called after each chunk is written, with the input bytes done and the input's size.
using IdeaProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

// Encrypts or decrypts `in` into `out` (missing parent folders are created). `out` appears only
// when everything succeeded: a truncated input (ECB: not a whole number of blocks; CTR: shorter
// than its nonce), bad padding, or a read or write error throws wk::Error naming the file and
// leaves no output (an existing `out` is kept as it was); the errors that padding decides are
// IdeaSettingError{decode, pad}. `out` may not be `in`, also not through a link
// (wk::Error{usage}). `in` is a regular file (opening it never blocks) or "-", standard input
// (streamed; its size checks happen at its end). `out` may be a
// symbolic link (its target is replaced), a FIFO or character device (written in place) or "-"
// (standard output). With options.replace false, an existing regular `out` is refused before
// anything is written (IdeaSettingError{usage, replace}). Decrypted files are created with mode
// 0600, encrypted ones with 0666 minus the umask.
IdeaFileResult idea_crypt_file(IdeaDirection direction, const std::filesystem::path& in, const std::filesystem::path& out,
                               const IdeaKey& key, const IdeaFileOptions& options, IdeaExecutor& executor,
                               const IdeaProgressFn& progress = {});

}  // namespace wk::cipher
