#pragma once
// IDEA on files: key files, the CTR nonce, ECB padding and streaming of inputs of any size (larger
// than host or GPU memory) through an IdeaExecutor, with the output written to a temporary file
// and renamed into place only when everything succeeded.
//
// File formats
//   key file        exactly 16 raw bytes (the IDEA key)
//   CTR (default)   8-byte random nonce, then the input XORed with the key stream: block i (bytes
//                   8i..8i+7 of the data) uses E_K(nonce + i mod 2^64), nonce and counter read as
//                   big-endian 64-bit integers; a partial last block uses the first bytes of its key
//                   stream. Output size = input size + 8.
//   ECB             each 8-byte block encrypted alone; PKCS#7 padding (1..8 bytes of value n)
//                   unless --no-pad, which needs a whole number of blocks.
// Neither mode detects tampering or a wrong key (ECB notices most wrong keys only through the
// padding check).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include "wk/cipher/idea.hpp"

namespace wk::cipher {

inline constexpr std::size_t kIdeaNonceBytes = 8;

// Reads a key file of exactly 16 bytes. Throws wk::Error{io} (missing, unreadable, not a regular
// file) or {decode} (any other size), the message naming the file.
IdeaKey idea_read_key_file(const std::filesystem::path& path);

// Writes 16 bytes from OpenSSL's CSPRNG (RAND_bytes) to `path` with mode 0600 (a temporary file
// renamed into place). An existing `path` is refused (wk::Error{usage}) unless `overwrite`.
IdeaKey idea_write_key_file(const std::filesystem::path& path, bool overwrite);

struct IdeaFileOptions {
  IdeaMode mode = IdeaMode::ctr;
  bool pad = true;                               // ECB: PKCS#7 padding
  std::size_t chunk_bytes = std::size_t(64) << 20;  // read / transform / write granularity, a multiple of 16
  std::optional<std::uint64_t> nonce;            // CTR encryption: this nonce instead of a random one (tests)
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
// leaves no output (an existing `out` is kept as it was). `out` may not be `in`. Decrypted files
// are created with mode 0600, encrypted ones with 0666 minus the umask.
IdeaFileResult idea_crypt_file(IdeaDirection direction, const std::filesystem::path& in, const std::filesystem::path& out,
                               const IdeaKey& key, const IdeaFileOptions& options, IdeaExecutor& executor,
                               const IdeaProgressFn& progress = {});

}  // namespace wk::cipher
