// The wk-crypt container (wk/cipher/idea_container.hpp): header, key derivation (HKDF, scrypt),
// and sealing and opening files through the three-slot pipeline and the executor's authenticated
// runs. Opening checks every tag of a batch before that batch is written.
#include "wk/cipher/idea_container.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "cipher/idea/idea_stream.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;

namespace wk::cipher {

using detail::throw_at;

namespace {

constexpr char kKeyInfo[] = "wk-crypt v1 keys";
constexpr std::size_t kTagged = 40;  // header bytes the header tag covers
constexpr int kMinChunkLog2 = 10, kMaxChunkLog2 = 24;
constexpr ScryptCost kMaxScrypt{20, 32, 16};

std::string mode_name(IdeaMode m) { return m == IdeaMode::ctr ? "CTR" : "ECB"; }

std::array<std::uint8_t, 32> hmac(const std::array<std::uint8_t, 32>& key, const std::uint8_t* data, std::size_t n) {
  std::array<std::uint8_t, 32> out{};
  unsigned len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data, n, out.data(), &len) || len != out.size())
    throw Error(ErrorCategory::internal, "OpenSSL's HMAC-SHA-256 failed");
  return out;
}

void hkdf_sha256(const std::uint8_t* ikm, std::size_t ikm_len, const std::array<std::uint8_t, 16>& salt, std::uint8_t* out,
                 std::size_t out_len) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* ctx = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
  EVP_KDF_free(kdf);
  if (!ctx) throw Error(ErrorCategory::internal, "OpenSSL has no HKDF");
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<std::uint8_t*>(ikm), ikm_len),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<std::uint8_t*>(salt.data()), salt.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(kKeyInfo), sizeof kKeyInfo - 1),
      OSSL_PARAM_construct_end()};
  const int ok = EVP_KDF_derive(ctx, out, out_len, params);
  EVP_KDF_CTX_free(ctx);
  if (ok != 1) throw Error(ErrorCategory::internal, "OpenSSL's HKDF-SHA-256 failed");
}

void check_scrypt_cost(const ScryptCost& c) {
  if (c.log2_n < 10 || c.r < 1 || c.p < 1)
    throw Error(ErrorCategory::usage, "scrypt: the cost must be log2 N >= 10, r >= 1, p >= 1");
  if (c.log2_n > kMaxScrypt.log2_n || c.r > kMaxScrypt.r || c.p > kMaxScrypt.p)
    throw Error(ErrorCategory::unsupported, "scrypt: a cost of log2 N " + std::to_string(c.log2_n) + ", r " +
                                                std::to_string(c.r) + ", p " + std::to_string(c.p) +
                                                " is above the limit (log2 N 20, r 32, p 16: up to 4 GiB of memory)");
}

struct Layout {
  std::uint64_t chunks = 0, data_bytes = 0;
  std::string problem;
};

// What `body` bytes after the header hold: whole chunks of S bytes plus their tags, the last one
// shorter; an empty last chunk only for an empty plaintext.
Layout layout_of(std::uint64_t body, std::size_t S, IdeaMode mode) {
  const std::uint64_t R = S + kIdeaTagBytes, q = body / R, rem = body % R;
  Layout l;
  if (body == 0) {
    l.problem = "truncated: no chunk follows the header";
  } else if (rem == 0) {
    l.chunks = q;
    l.data_bytes = q * S;
  } else if (rem < kIdeaTagBytes) {
    l.problem = "truncated or damaged: the file ends " + std::to_string(rem) + " bytes into chunk " + std::to_string(q) +
                ", too short for its 32-byte tag";
  } else if (rem == kIdeaTagBytes && q > 0) {
    l.problem = "damaged: an empty chunk follows chunk " + std::to_string(q - 1);
  } else {
    l.chunks = q + 1;
    l.data_bytes = q * S + rem - kIdeaTagBytes;
  }
  if (l.problem.empty() && mode == IdeaMode::ecb && (l.data_bytes % kIdeaBlockBytes != 0 || l.data_bytes == 0))
    l.problem = "damaged: " + std::to_string(l.data_bytes) + " bytes of ECB ciphertext is not a whole, nonzero number of 8-byte blocks";
  return l;
}

ContainerHeader read_header(detail::InputStream& input) {
  std::array<std::uint8_t, kContainerHeaderBytes> bytes{};
  const std::size_t got = input.read(bytes.data(), bytes.size());
  try {
    if (got >= kContainerMagic.size() && !has_container_magic(bytes))
      throw Error(ErrorCategory::decode,
                  "not a wk-crypt container (no WKCRYPT header); a file written with --raw is decrypted with --raw");
    if (got < bytes.size())
      throw Error(ErrorCategory::decode, "truncated: " + std::to_string(got) + " bytes, shorter than the " +
                                             std::to_string(kContainerHeaderBytes) + "-byte container header");
    return parse_container_header(bytes);
  } catch (const Error& e) {
    throw_at(e.category(), input.name(), e.what());
  }
}

void wipe(void* p, std::size_t n) { OPENSSL_cleanse(p, n); }

}  // namespace

IdeaSecret::~IdeaSecret() {
  if (key) wipe(key->data(), key->size());
  if (!passphrase.empty()) wipe(passphrase.data(), passphrase.size());
}

ContainerKeys::~ContainerKeys() {
  wipe(idea.data(), idea.size());
  wipe(mac.data(), mac.size());
}

bool has_container_magic(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= kContainerMagic.size() && std::equal(kContainerMagic.begin(), kContainerMagic.end(), bytes.begin());
}

ContainerHeader parse_container_header(std::span<const std::uint8_t> b) {
  if (b.size() < kContainerHeaderBytes)
    throw Error(ErrorCategory::decode, "a container header has " + std::to_string(kContainerHeaderBytes) + " bytes, not " +
                                           std::to_string(b.size()));
  if (!has_container_magic(b)) throw Error(ErrorCategory::decode, "not a wk-crypt container (no WKCRYPT header)");
  ContainerHeader h;
  h.version = b[8];
  if (h.version != kContainerVersion)
    throw Error(ErrorCategory::decode, "container version " + std::to_string(h.version) +
                                           " is not one this wk-crypt reads (it reads version " +
                                           std::to_string(kContainerVersion) + ")");
  if (b[9] != 1 && b[9] != 2) throw Error(ErrorCategory::decode, "damaged header: unknown mode " + std::to_string(b[9]));
  h.mode = b[9] == 1 ? IdeaMode::ctr : IdeaMode::ecb;
  if (b[10] != 1 && b[10] != 2)
    throw Error(ErrorCategory::decode, "damaged header: unknown key derivation " + std::to_string(b[10]));
  h.kdf = static_cast<ContainerKdf>(b[10]);
  h.chunk_log2 = b[11];
  if (h.chunk_log2 < kMinChunkLog2 || h.chunk_log2 > kMaxChunkLog2)
    throw Error(ErrorCategory::decode, "damaged header: a chunk size of 2^" + std::to_string(h.chunk_log2) +
                                           " bytes is outside 2^10..2^24");
  h.scrypt = {b[12], b[13], b[14]};
  const bool scrypt = h.kdf == ContainerKdf::scrypt;
  if (scrypt ? (h.scrypt.log2_n == 0 || h.scrypt.r == 0 || h.scrypt.p == 0)
             : (h.scrypt.log2_n || h.scrypt.r || h.scrypt.p))
    throw Error(ErrorCategory::decode, "damaged header: scrypt parameters that do not match the key derivation");
  if (b[15] != 0) throw Error(ErrorCategory::decode, "damaged header: a reserved byte is not zero");
  std::copy_n(b.begin() + 16, 16, h.salt.begin());
  h.nonce = idea_load_be64(b.data() + 32);
  std::copy_n(b.begin() + 40, 32, h.tag.begin());
  return h;
}

std::array<std::uint8_t, kContainerHeaderBytes> encode_container_header(const ContainerHeader& h) {
  std::array<std::uint8_t, kContainerHeaderBytes> b{};
  std::copy(kContainerMagic.begin(), kContainerMagic.end(), b.begin());
  b[8] = h.version;
  b[9] = h.mode == IdeaMode::ctr ? 1 : 2;
  b[10] = static_cast<std::uint8_t>(h.kdf);
  b[11] = static_cast<std::uint8_t>(h.chunk_log2);
  b[12] = static_cast<std::uint8_t>(h.scrypt.log2_n);
  b[13] = static_cast<std::uint8_t>(h.scrypt.r);
  b[14] = static_cast<std::uint8_t>(h.scrypt.p);
  std::copy(h.salt.begin(), h.salt.end(), b.begin() + 16);
  idea_store_be64(b.data() + 32, h.nonce);
  std::copy(h.tag.begin(), h.tag.end(), b.begin() + 40);
  return b;
}

ContainerKeys derive_container_keys(const ContainerHeader& header, const IdeaSecret& secret) {
  std::array<std::uint8_t, 48> okm{};
  if (header.kdf == ContainerKdf::key_file) {
    if (!secret.key)
      throw Error(ErrorCategory::usage, "the container was sealed with a key file, not a passphrase: give its key file");
    hkdf_sha256(secret.key->data(), secret.key->size(), header.salt, okm.data(), okm.size());
  } else {
    if (secret.key || secret.passphrase.empty())
      throw Error(ErrorCategory::usage, "the container was sealed with a passphrase, not a key file: give the passphrase");
    check_scrypt_cost(header.scrypt);
    std::array<std::uint8_t, 32> ikm{};
    const std::uint64_t N = std::uint64_t(1) << header.scrypt.log2_n;
    const std::uint64_t maxmem = 128ull * header.scrypt.r * (N + header.scrypt.p + 2) + (1u << 20);
    nvtx::Range r("scrypt", nvtx::Color::compute);
    const int ok = EVP_PBE_scrypt(secret.passphrase.data(), secret.passphrase.size(), header.salt.data(), header.salt.size(), N,
                                  static_cast<std::uint64_t>(header.scrypt.r), static_cast<std::uint64_t>(header.scrypt.p),
                                  maxmem, ikm.data(), ikm.size());
    if (ok != 1) throw Error(ErrorCategory::internal, "OpenSSL's scrypt failed (out of memory?)");
    hkdf_sha256(ikm.data(), ikm.size(), header.salt, okm.data(), okm.size());
    wipe(ikm.data(), ikm.size());
  }
  ContainerKeys k;
  std::copy_n(okm.begin(), 16, k.idea.begin());
  std::copy_n(okm.begin() + 16, 32, k.mac.begin());
  wipe(okm.data(), okm.size());
  return k;
}

IdeaFileResult idea_seal_file(const fs::path& in, const fs::path& out, const IdeaSecret& secret, const ContainerOptions& options,
                              IdeaExecutor& executor, const IdeaProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.chunk_log2 < kMinChunkLog2 || options.chunk_log2 > kMaxChunkLog2)
    throw Error(ErrorCategory::usage, "the chunk size must be 2^10..2^24 bytes (1 KiB..16 MiB)");
  if (!secret.key && secret.passphrase.empty()) throw Error(ErrorCategory::usage, "no key file and no passphrase");
  detail::InputStream input(in, out, options.replace);

  ContainerHeader h;
  h.mode = options.mode;
  h.chunk_log2 = options.chunk_log2;
  if (secret.key) {
    h.kdf = ContainerKdf::key_file;
  } else {
    check_scrypt_cost(options.scrypt);
    h.kdf = ContainerKdf::scrypt;
    h.scrypt = options.scrypt;
  }
  if (options.salt) h.salt = *options.salt;
  else detail::random_bytes(h.salt.data(), h.salt.size());
  if (h.mode == IdeaMode::ctr) {
    if (options.nonce) h.nonce = *options.nonce;
    else {
      std::uint8_t n[8];
      detail::random_bytes(n, sizeof n);
      h.nonce = idea_load_be64(n);
    }
  }
  const ContainerKeys keys = derive_container_keys(h, secret);
  auto header = encode_container_header(h);
  const auto tag = hmac(keys.mac, header.data(), kTagged);
  std::copy(tag.begin(), tag.end(), header.begin() + kTagged);

  const std::size_t S = h.chunk_bytes();
  const std::size_t K = std::max<std::size_t>(1, options.batch_bytes / S), B = K * S;
  const bool ecb = h.mode == IdeaMode::ecb;
  IdeaSealJob job;
  job.cipher = ecb ? idea_ecb_job(keys.idea, IdeaDirection::encrypt) : idea_ctr_job(keys.idea, h.nonce);
  job.mac = idea_mac_key(keys.mac);
  job.chunk_bytes = S;
  job.last_final = true;

  io::OutputOptions out_options;
  out_options.replace = options.replace;
  io::OutputFile output(out, out_options);
  output.write(header.data(), header.size());

  // A small file gets slots of its size, not of a whole batch.
  const std::size_t cap = input.size() ? static_cast<std::size_t>(std::min<std::uint64_t>(B, (*input.size() + S - 1) / S * S)) : B;
  detail::SlotPipeline pipe;
  for (auto& s : pipe.slots) {
    s.in = executor.host_buffer(cap + 16);
    s.out = executor.host_buffer(idea_sealed_bytes(cap + kIdeaBlockBytes, S) + 16);
  }
  std::uint64_t total = 0;
  pipe.read = detail::batch_reader(input, B, cap);
  pipe.transform = [&](std::uint64_t j, const detail::Batch& batch, detail::Slot& slot) -> std::size_t {
    total += batch.bytes;
    std::size_t len = batch.bytes;
    if (ecb && batch.last) {  // PKCS#7 over the whole plaintext: 1..8 bytes of value n
      const std::size_t p = kIdeaBlockBytes - len % kIdeaBlockBytes;
      std::memset(slot.in.data() + len, static_cast<int>(p), p);
      len += p;
    }
    executor.seal(job.part(j * K, batch.last), slot.in.data(), len, slot.out.data());
    return idea_sealed_bytes(len, S);
  };
  return pipe.run_into(output, input, 0, progress, t0);
}

IdeaFileResult idea_open_file(const fs::path& in, const fs::path& out, const IdeaSecret& secret, const ContainerOptions& options,
                              IdeaExecutor& executor, const IdeaProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  detail::InputStream input(in, out, options.replace);
  const fs::path& name = input.name();
  const ContainerHeader h = read_header(input);
  if (options.expect_mode && *options.expect_mode != h.mode)
    detail::throw_setting(ErrorCategory::decode, IdeaSetting::mode, name,
                          "the container was encrypted in " + mode_name(h.mode) + " mode, not " + mode_name(*options.expect_mode) +
                              "; nothing was decrypted");
  const std::size_t S = h.chunk_bytes(), R = S + kIdeaTagBytes;
  // A regular file's size tells truncation before any work.
  if (input.size()) {
    const Layout l = layout_of(*input.size() - kContainerHeaderBytes, S, h.mode);
    if (!l.problem.empty()) throw_at(ErrorCategory::decode, name, l.problem);
  }
  ContainerKeys keys;
  try {
    keys = derive_container_keys(h, secret);
  } catch (const Error& e) {
    if (e.category() != ErrorCategory::usage) throw;
    throw_at(e.category(), name, e.what());
  }
  {
    auto header = encode_container_header(h);
    const auto tag = hmac(keys.mac, header.data(), kTagged);
    if (CRYPTO_memcmp(tag.data(), h.tag.data(), tag.size()) != 0)
      throw_at(ErrorCategory::decode, name,
               h.kdf == ContainerKdf::scrypt ? "wrong passphrase, or a damaged header (its tag does not match); nothing was decrypted"
                                             : "wrong key, or a damaged header (its tag does not match); nothing was decrypted");
  }
  const std::size_t K = std::max<std::size_t>(1, options.batch_bytes / S), B = K * R;
  IdeaSealJob job;
  job.cipher = h.mode == IdeaMode::ecb ? idea_ecb_job(keys.idea, IdeaDirection::decrypt) : idea_ctr_job(keys.idea, h.nonce);
  job.mac = idea_mac_key(keys.mac);
  job.chunk_bytes = S;
  job.last_final = true;

  io::OutputOptions out_options;
  out_options.mode = 0600;
  out_options.replace = options.replace;
  io::OutputFile output(out, out_options);

  const std::uint64_t body = input.size() ? *input.size() - kContainerHeaderBytes : 0;
  const std::size_t cap = input.size() ? static_cast<std::size_t>(std::min<std::uint64_t>(B, body)) : B;
  const std::size_t cap_chunks = (cap + R - 1) / R;
  detail::SlotPipeline pipe;
  std::array<std::vector<std::uint8_t>, 3> tags;
  for (std::size_t i = 0; i < 3; ++i) {
    pipe.slots[i].in = executor.host_buffer(cap + 16);
    pipe.slots[i].out = executor.host_buffer(cap_chunks * S + 16);
    tags[i].resize(cap_chunks * kIdeaTagBytes);
  }
  std::uint64_t total = kContainerHeaderBytes;
  pipe.read = detail::batch_reader(input, B, cap);
  pipe.transform = [&](std::uint64_t j, const detail::Batch& batch, detail::Slot& slot) -> std::size_t {
    total += batch.bytes;
    std::size_t chunks = K, plain = K * S;
    if (batch.last) {
      const Layout l = layout_of(total - kContainerHeaderBytes, S, h.mode);
      if (!l.problem.empty()) throw_at(ErrorCategory::decode, name, l.problem);
      chunks = static_cast<std::size_t>(l.chunks - j * K);
      plain = static_cast<std::size_t>(l.data_bytes - std::uint64_t(j) * K * S);
    }
    std::vector<std::uint8_t>& computed = tags[j % 3];
    executor.open(job.part(j * K, batch.last), slot.in.data(), plain, slot.out.data(), computed.data());
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t n = std::min(S, plain - c * S);
      const std::uint8_t* stored = slot.in.data() + c * R + n;
      if (CRYPTO_memcmp(stored, computed.data() + c * kIdeaTagBytes, kIdeaTagBytes) == 0) continue;
      const std::uint64_t index = std::uint64_t(j) * K + c;
      const std::uint64_t at = kContainerHeaderBytes + index * R;
      if (batch.last && c + 1 == chunks) {
        std::uint8_t not_final[kIdeaTagBytes];
        idea_chunk_tag(job.mac, slot.in.data() + c * R, n, index, false, not_final);
        if (CRYPTO_memcmp(stored, not_final, kIdeaTagBytes) == 0)
          throw_at(ErrorCategory::decode, name,
                   "truncated: the file ends after chunk " + std::to_string(index) +
                       ", which is not its last chunk (the rest is missing); nothing was decrypted");
      }
      throw_at(ErrorCategory::decode, name,
               "chunk " + std::to_string(index) + " (bytes " + std::to_string(at) + ".." + std::to_string(at + n + kIdeaTagBytes - 1) +
                   ") fails authentication: the file was damaged or tampered with, or its chunks reordered or cut; "
                   "nothing was decrypted");
    }
    std::size_t keep = plain;
    if (h.mode == IdeaMode::ecb && batch.last) {
      const std::uint8_t p = slot.out.data()[plain - 1];
      bool ok = p >= 1 && p <= kIdeaBlockBytes && p <= plain;
      for (std::size_t i = 0; ok && i < p; ++i) ok = slot.out.data()[plain - 1 - i] == p;
      // Authenticated ciphertext with bad padding was sealed so on purpose: refuse it all the same.
      if (!ok) throw_at(ErrorCategory::decode, name, "bad padding in an authenticated chunk: not a container wk-crypt wrote");
      keep = plain - p;
    }
    return keep;
  };
  return pipe.run_into(output, input, kContainerHeaderBytes, progress, t0);
}

ContainerInfo idea_container_info(const fs::path& path) {
  detail::InputStream input(path);
  ContainerInfo info;
  info.header = read_header(input);
  std::uint64_t size = 0;
  if (input.size()) {
    size = *input.size();
  } else {  // standard input: read through it to learn its size
    std::vector<std::uint8_t> buf(1 << 20);
    size = kContainerHeaderBytes;
    while (const std::size_t n = input.read(buf.data(), buf.size())) size += n;
  }
  info.file_bytes = size;
  const Layout l = layout_of(size - kContainerHeaderBytes, info.header.chunk_bytes(), info.header.mode);
  info.chunks = l.chunks;
  info.data_bytes = l.data_bytes;
  info.problem = l.problem;
  return info;
}

std::string describe_container(const ContainerInfo& info) {
  const ContainerHeader& h = info.header;
  auto hex = [](const std::uint8_t* p, std::size_t n) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < n; ++i) (s += d[p[i] >> 4]) += d[p[i] & 15];
    return s;
  };
  std::uint8_t nonce[8];
  idea_store_be64(nonce, h.nonce);
  const std::size_t S = h.chunk_bytes();
  const std::string size = S >= (1u << 20) ? std::to_string(S >> 20) + " MiB" : std::to_string(S >> 10) + " KiB";
  std::string s;
  s += "format:      wk-crypt container, version " + std::to_string(h.version) + "\n";
  s += "cipher:      IDEA-" + mode_name(h.mode) +
       (h.mode == IdeaMode::ctr ? ", nonce " + hex(nonce, 8) : std::string(", PKCS#7 padding")) + "\n";
  s += h.kdf == ContainerKdf::key_file ? std::string("key:         a key file (HKDF-SHA-256)\n")
                                       : "key:         a passphrase (scrypt, N = 2^" + std::to_string(h.scrypt.log2_n) +
                                             ", r = " + std::to_string(h.scrypt.r) + ", p = " + std::to_string(h.scrypt.p) +
                                             ", then HKDF-SHA-256)\n";
  s += "salt:        " + hex(h.salt.data(), h.salt.size()) + "\n";
  s += "chunks:      " + std::to_string(info.chunks) + " of up to " + size +
       ", each with an HMAC-SHA-256 tag over the SHA-256 digests of its 1 KiB leaves\n";
  s += "file:        " + std::to_string(info.file_bytes) + " bytes\n";
  if (h.mode == IdeaMode::ctr) s += "plaintext:   " + std::to_string(info.data_bytes) + " bytes\n";
  else if (info.data_bytes)
    s += "plaintext:   " + std::to_string(info.data_bytes - 8) + ".." + std::to_string(info.data_bytes - 1) +
         " bytes (the padding says which)\n";
  s += "size check:  " + (info.problem.empty() ? std::string("plausible (the tags, checked with the key at decryption, tell a cut or damaged file)")
                                                 : info.problem) + "\n";
  return s;
}

}  // namespace wk::cipher
