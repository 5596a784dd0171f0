// Authenticated IDEA runs on the CPU: the reference of the container's chunk layer. The cipher is
// idea_cpu; the leaf digests and tags come from OpenSSL (SHA256, HMAC), independent of the
// host/device code in chunk_tag.hpp that the GPU runs and the tests compare with.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "cipher/idea/chunk_tag.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"

namespace wk::cipher {

IdeaMacKey idea_mac_key(const std::array<std::uint8_t, 32>& key) {
  IdeaMacKey k;
  k.key = key;
  const detail::HmacSha256State s = detail::hmac_sha256_state(key.data());
  std::copy(std::begin(s.inner), std::end(s.inner), k.state.begin());
  std::copy(std::begin(s.outer), std::end(s.outer), k.state.begin() + 8);
  return k;
}

namespace {

void check_job(const IdeaSealJob& job) {
  if (job.chunk_bytes == 0 || job.chunk_bytes % kIdeaLeafBytes != 0)
    throw Error(ErrorCategory::usage, "idea: the authenticated chunk size must be a positive multiple of 1 KiB");
}

}  // namespace

void idea_chunk_tag(const IdeaMacKey& mac, const std::uint8_t* p, std::size_t n, std::uint64_t index, bool final,
            std::uint8_t out[kIdeaTagBytes]) {
  const std::size_t leaves = (n + kIdeaLeafBytes - 1) / kIdeaLeafBytes;
  std::vector<std::uint8_t> message(leaves * SHA256_DIGEST_LENGTH + 9);
  for (std::size_t j = 0; j < leaves; ++j) {
    const std::size_t len = std::min(kIdeaLeafBytes, n - j * kIdeaLeafBytes);
    SHA256(p + j * kIdeaLeafBytes, len, message.data() + j * SHA256_DIGEST_LENGTH);
  }
  std::uint8_t* t = message.data() + leaves * SHA256_DIGEST_LENGTH;
  for (int i = 0; i < 8; ++i) t[i] = std::uint8_t(index >> (56 - 8 * i));
  t[8] = final ? 1 : 0;
  unsigned len = 0;
  if (!HMAC(EVP_sha256(), mac.key.data(), static_cast<int>(mac.key.size()), message.data(), message.size(), out, &len) ||
      len != kIdeaTagBytes)
    throw Error(ErrorCategory::internal, "OpenSSL's HMAC-SHA-256 failed");
}

namespace {

struct ChunkSpan {
  std::size_t offset, bytes;
};
ChunkSpan chunk_span(const IdeaSealJob& job, std::size_t bytes, std::size_t c) {
  const std::size_t off = c * job.chunk_bytes;
  return {off, std::min(job.chunk_bytes, bytes - std::min(bytes, off))};
}

}  // namespace

void idea_seal_cpu(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed) {
  check_job(job);
  const std::size_t chunks = idea_sealed_chunks(bytes, job.chunk_bytes);
  const std::size_t stride = job.chunk_bytes + kIdeaTagBytes;
  parallel_for(chunks, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) {
      const auto [off, n] = chunk_span(job, bytes, c);
      std::uint8_t* rec = h_sealed + c * stride;
      const std::size_t blocks = (n + kIdeaBlockBytes - 1) / kIdeaBlockBytes;
      idea_cpu(job.part(c, false).cipher, h_plain + off, rec, blocks, 1);
      idea_chunk_tag(job.mac, rec, n, job.first_index + c, job.last_final && c + 1 == chunks, rec + n);
    }
  });
}

void idea_open_cpu(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
                   std::uint8_t* h_tags) {
  check_job(job);
  const std::size_t chunks = idea_sealed_chunks(bytes, job.chunk_bytes);
  const std::size_t stride = job.chunk_bytes + kIdeaTagBytes;
  parallel_for(chunks, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) {
      const auto [off, n] = chunk_span(job, bytes, c);
      const std::uint8_t* rec = h_sealed + c * stride;
      idea_chunk_tag(job.mac, rec, n, job.first_index + c, job.last_final && c + 1 == chunks, h_tags + c * kIdeaTagBytes);
      // A partial last CTR block is processed whole: through a copy, so that the bytes after it
      // (the tag, or the next chunk's plaintext) are neither read as data nor overwritten.
      const std::size_t whole = n / kIdeaBlockBytes * kIdeaBlockBytes;
      idea_cpu(job.part(c, false).cipher, rec, h_plain + off, whole / kIdeaBlockBytes, 1);
      if (whole < n) {
        std::uint8_t block[kIdeaBlockBytes] = {};
        std::memcpy(block, rec + whole, n - whole);
        idea_cpu(job.part(c, false).cipher.advanced(whole / kIdeaBlockBytes), block, block, 1, 1);
        std::memcpy(h_plain + off + whole, block, n - whole);
      }
    }
  });
}

}  // namespace wk::cipher
