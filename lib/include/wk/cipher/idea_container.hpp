#pragma once
// The wk-crypt container: IDEA (CTR or ECB) in a versioned file format whose every chunk is
// authenticated, so that a wrong key or passphrase, a wrong mode, a flipped bit, truncation and
// reordered chunks are all detected before any plaintext reaches the destination.
//
// Layout (all integers big-endian)
//   header, 72 bytes
//     0  magic "WKCRYPT" 0x1A
//     8  version (1)
//     9  mode: 1 CTR, 2 ECB (PKCS#7 padding of the whole plaintext)
//    10  key derivation: 1 key file, 2 passphrase (scrypt)
//    11  log2 of the chunk size (10..24; 16 = 64 KiB by default)
//    12  scrypt log2 N, r, p (three bytes; zero for a key file)
//    15  zero
//    16  salt, 16 random bytes
//    32  nonce, 8 bytes: CTR's initial counter (random; zero for ECB)
//    40  header tag: HMAC-SHA-256(K_mac, bytes 0..39)
//   then the chunks: the ciphertext of chunk i (chunk-size bytes; the last one 1..chunk-size
//   bytes, or 0 for an empty plaintext) followed by its 32-byte tag (wk/cipher/idea.hpp):
//     HMAC-SHA-256(K_mac, SHA-256 of each 1 KiB leaf of the ciphertext || be64(i) || final byte)
//   final is 1 for the last chunk only. CTR: chunk i starts at block counter nonce + i*chunk/8.
//
// Keys: IKM = the key file's 16 bytes, or scrypt(passphrase, salt, N, r, p) of 32 bytes; then
// K_idea (16 bytes) || K_mac (32 bytes) = HKDF-SHA-256(IKM, salt, "wk-crypt v1 keys"). Every
// primitive but IDEA comes from OpenSSL on the CPU; the GPU computes the same tags.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_file.hpp"

namespace wk::cipher {

inline constexpr std::size_t kContainerHeaderBytes = 72;
inline constexpr std::uint8_t kContainerVersion = 1;
inline constexpr std::array<std::uint8_t, 8> kContainerMagic{'W', 'K', 'C', 'R', 'Y', 'P', 'T', 0x1A};

enum class ContainerKdf : std::uint8_t { key_file = 1, scrypt = 2 };

struct ScryptCost {
  int log2_n = 17;  // N = 2^17: 128 MiB of memory with r = 8
  int r = 8;
  int p = 1;
};

struct ContainerHeader {
  std::uint8_t version = kContainerVersion;
  IdeaMode mode = IdeaMode::ctr;
  ContainerKdf kdf = ContainerKdf::key_file;
  int chunk_log2 = 16;
  ScryptCost scrypt{0, 0, 0};
  std::array<std::uint8_t, 16> salt{};
  std::uint64_t nonce = 0;
  std::array<std::uint8_t, 32> tag{};
  std::size_t chunk_bytes() const { return std::size_t(1) << chunk_log2; }
};

// True when `bytes` starts with the container's magic.
bool has_container_magic(std::span<const std::uint8_t> bytes);
// Parses the first kContainerHeaderBytes of `bytes`; the tag is not checked (that needs the key).
// Throws wk::Error{decode} saying what is wrong (no magic, a version or field it does not know,
// fewer bytes than a header).
ContainerHeader parse_container_header(std::span<const std::uint8_t> bytes);
std::array<std::uint8_t, kContainerHeaderBytes> encode_container_header(const ContainerHeader& header);

// What a container is sealed with: a key file's 16 bytes or a passphrase. Wiped on destruction.
struct IdeaSecret {
  std::optional<IdeaKey> key;
  std::string passphrase;  // used when key is empty; never empty then
  IdeaSecret() = default;
  IdeaSecret(const IdeaSecret&) = delete;
  IdeaSecret& operator=(const IdeaSecret&) = delete;
  ~IdeaSecret();
};

// The keys of one container (HKDF from the key file or scrypt's output).
struct ContainerKeys {
  IdeaKey idea{};
  std::array<std::uint8_t, 32> mac{};
  ~ContainerKeys();
};
// Throws wk::Error{usage} for a KDF that does not match the secret, {unsupported} for a scrypt cost
// above the limit (log2 N > 20, r > 32, p > 16), {internal} when OpenSSL fails.
ContainerKeys derive_container_keys(const ContainerHeader& header, const IdeaSecret& secret);

struct ContainerOptions {
  IdeaMode mode = IdeaMode::ctr;        // sealing
  int chunk_log2 = 16;                  // sealing: 10..24
  ScryptCost scrypt;                    // sealing with a passphrase
  std::optional<IdeaMode> expect_mode;  // opening: refuse a container of another mode
                                        // (IdeaSettingError{usage, mode}) before any work
  std::size_t batch_bytes = std::size_t(64) << 20;  // read / transform / write granularity
  bool replace = true;                  // false: an existing regular output is refused
  std::optional<std::array<std::uint8_t, 16>> salt;  // tests: fixed salt and nonce
  std::optional<std::uint64_t> nonce;
};

// Seals `in` ("-": standard input) into the container `out` ("-": standard output). Throws
// wk::Error naming the file; the output appears only when everything succeeded.
IdeaFileResult idea_seal_file(const std::filesystem::path& in, const std::filesystem::path& out, const IdeaSecret& secret,
                              const ContainerOptions& options, IdeaExecutor& executor, const IdeaProgressFn& progress = {});

// Opens the container `in` into `out`. Every chunk's tag is checked before its plaintext is
// written; a regular `out` appears only when every tag checked (standard output or a FIFO gets the
// chunks that checked, then the error). Throws wk::Error{decode} naming the file and the cause: not
// a container, an unknown version, a wrong key or passphrase (the header's tag), a wrong mode
// (expect_mode), a damaged, reordered or tampered chunk (its index and offset), truncation.
IdeaFileResult idea_open_file(const std::filesystem::path& in, const std::filesystem::path& out, const IdeaSecret& secret,
                              const ContainerOptions& options, IdeaExecutor& executor, const IdeaProgressFn& progress = {});

// What `wk-crypt info` prints: the header and what the file's size says, nothing that needs a key.
struct ContainerInfo {
  ContainerHeader header;
  std::uint64_t file_bytes = 0;
  std::uint64_t chunks = 0;
  std::uint64_t data_bytes = 0;  // ciphertext bytes (the plaintext's for CTR, padded for ECB)
  std::string problem;           // "" when the size is that of whole chunks
};
// Throws wk::Error{io} for an unreadable file, {decode} for one that is no container.
ContainerInfo idea_container_info(const std::filesystem::path& path);
// The lines `wk-crypt info` prints.
std::string describe_container(const ContainerInfo& info);

}  // namespace wk::cipher
