// The wk-crypt container: the chunk tag's host/device code against OpenSSL, the CPU reference's
// layout, a pinned known answer of the whole format, and every tamper case (a flipped bit in the
// header, a chunk or a tag; truncation at every chunk boundary; swapped chunks; a wrong key,
// passphrase or mode), each refused with nothing written.
#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <cstring>
#include <string>
#include <vector>

#include "cipher/idea/chunk_tag.hpp"
#include "idea_test_util.hpp"
#include "test_support.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_container.hpp"
#include "wk/core/error.hpp"

namespace fs = std::filesystem;
using namespace wk;
using namespace wk::cipher;
using wk::test::random_bytes;
using wk::test::random_key;

namespace {

std::array<std::uint8_t, 32> mac_key_bytes(std::uint32_t seed) {
  const auto b = random_bytes(32, seed);
  std::array<std::uint8_t, 32> k{};
  std::copy(b.begin(), b.end(), k.begin());
  return k;
}

std::vector<std::uint8_t> read_file(const fs::path& p) {
  const std::string s = wk::test::read_bytes(p);
  return {s.begin(), s.end()};
}
void write_file(const fs::path& p, const std::vector<std::uint8_t>& v) {
  wk::test::write_bytes(p, std::string(v.begin(), v.end()));
}

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) (s += d[p[i] >> 4]) += d[p[i] & 15];
  return s;
}

struct Sealed {
  wk::test::TempDir dir;
  IdeaExecutor cpu{IdeaExecution{}};
  std::vector<std::uint8_t> plain;
  IdeaSecret secret;
  ContainerOptions options;
  Sealed(std::size_t n, IdeaMode mode, std::uint32_t seed) : plain(random_bytes(n, seed)) {
    secret.key = random_key(seed + 1);
    options.mode = mode;
    options.chunk_log2 = 10;       // 1 KiB chunks: many chunks in a small file
    options.batch_bytes = 3 << 10;  // batches of 3 chunks: boundaries inside and between batches
    write_file(dir / "plain", plain);
    idea_seal_file(dir / "plain", dir / "sealed", secret, options, cpu);
  }
  // Opens `file` into "out"; returns the error message ("" on success).
  std::string open(const fs::path& file, const IdeaSecret& s, const ContainerOptions& o) {
    fs::remove(dir / "out");
    try {
      idea_open_file(file, dir / "out", s, o, cpu);
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  }
  std::string open(const std::vector<std::uint8_t>& bytes) {
    write_file(dir / "damaged", bytes);
    return open(dir / "damaged", secret, options);
  }
};

}  // namespace

TEST_CASE("container chunk tags: the host/device code equals OpenSSL's SHA-256 and HMAC", "[idea][container]") {
  const std::size_t sizes[] = {0, 1, 55, 56, 63, 64, 65, 1000, 1023, 1024, 1025, 2048, 4096 + 17, 65536};
  for (std::size_t n : sizes) {
    CAPTURE(n);
    const auto data = random_bytes(n, static_cast<std::uint32_t>(n) + 7);
    const IdeaMacKey mac = idea_mac_key(mac_key_bytes(static_cast<std::uint32_t>(n)));
    cipher::detail::HmacSha256State st{};
    std::copy(mac.state.begin(), mac.state.begin() + 8, st.inner);
    std::copy(mac.state.begin() + 8, mac.state.end(), st.outer);
    for (std::uint64_t index : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(0x0123456789abcdefull)})
      for (bool final : {false, true}) {
        CAPTURE(index, final);
        std::vector<std::uint32_t> scratch(8 * (n / 1024 + 1));
        std::uint32_t words[8];
        cipher::detail::chunk_tag_of(st, data.data(), n, index, final, scratch.data(), words);
        std::uint8_t got[32], want[32];
        cipher::detail::store_tag_bytes(words, got);
        idea_chunk_tag(mac, data.data(), n, index, final, want);
        CHECK(hex(got, 32) == hex(want, 32));
      }
    // One leaf is plain SHA-256.
    if (n <= 1024) {
      std::uint32_t d[8];
      cipher::detail::leaf_digest(data.data(), static_cast<std::uint32_t>(n), d);
      std::uint8_t got[32], want[32];
      cipher::detail::store_tag_bytes(d, got);
      SHA256(data.data(), n, want);
      CHECK(hex(got, 32) == hex(want, 32));
    }
  }
}

TEST_CASE("container chunk tags: the final flag, the index and every leaf change the tag", "[idea][container]") {
  const auto data = random_bytes(5000, 3);
  const IdeaMacKey mac = idea_mac_key(mac_key_bytes(9));
  std::uint8_t base[32], other[32];
  idea_chunk_tag(mac, data.data(), data.size(), 4, false, base);
  idea_chunk_tag(mac, data.data(), data.size(), 4, true, other);
  CHECK(std::memcmp(base, other, 32) != 0);
  idea_chunk_tag(mac, data.data(), data.size(), 5, false, other);
  CHECK(std::memcmp(base, other, 32) != 0);
  for (std::size_t leaf = 0; leaf < 5; ++leaf) {
    auto flipped = data;
    flipped[leaf * 1024 + 17] ^= 0x40;
    idea_chunk_tag(mac, flipped.data(), flipped.size(), 4, false, other);
    CHECK(std::memcmp(base, other, 32) != 0);
  }
  idea_chunk_tag(mac, data.data(), data.size() - 1, 4, false, other);  // one byte shorter
  CHECK(std::memcmp(base, other, 32) != 0);
}

TEST_CASE("container runs on the CPU: ciphertext is IDEA of the data, each chunk followed by its tag", "[idea][container]") {
  for (IdeaMode mode : {IdeaMode::ctr, IdeaMode::ecb})
    for (std::size_t n : {std::size_t(0), std::size_t(8), std::size_t(1024), std::size_t(4096 + 24), std::size_t(10000)}) {
      if (mode == IdeaMode::ecb && n % 8) continue;
      CAPTURE(to_string(mode), n);
      const auto data = random_bytes(n + 16, 5);
      IdeaSealJob job;
      job.cipher = mode == IdeaMode::ctr ? idea_ctr_job(random_key(1), 0xfffffffffffffff0ull)
                                         : idea_ecb_job(random_key(1), IdeaDirection::encrypt);
      job.mac = idea_mac_key(mac_key_bytes(2));
      job.chunk_bytes = 2048;
      job.first_index = 7;
      job.last_final = true;
      std::vector<std::uint8_t> sealed(idea_sealed_bytes(n, 2048) + 16);
      idea_seal_cpu(job, data.data(), n, sealed.data());
      std::vector<std::uint8_t> whole(n + 16);
      idea_cpu(job.cipher, data.data(), whole.data(), (n + 7) / 8);
      const std::size_t chunks = idea_sealed_chunks(n, 2048);
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t len = std::min<std::size_t>(2048, n - c * 2048);
        const std::uint8_t* rec = sealed.data() + c * (2048 + 32);
        CHECK(std::memcmp(rec, whole.data() + c * 2048, len) == 0);
        std::uint8_t tag[32];
        idea_chunk_tag(job.mac, rec, len, 7 + c, c + 1 == chunks, tag);
        CHECK(std::memcmp(rec + len, tag, 32) == 0);
      }
      // open inverts seal and computes the same tags.
      IdeaSealJob open_job = job;
      if (mode == IdeaMode::ecb) open_job.cipher = idea_ecb_job(random_key(1), IdeaDirection::decrypt);
      std::vector<std::uint8_t> back(n + 16), tags(32 * chunks);
      idea_open_cpu(open_job, sealed.data(), n, back.data(), tags.data());
      CHECK(std::memcmp(back.data(), data.data(), n) == 0);
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t len = std::min<std::size_t>(2048, n - c * 2048);
        CHECK(std::memcmp(tags.data() + 32 * c, sealed.data() + c * 2080 + len, 32) == 0);
      }
    }
}

TEST_CASE("container format: a pinned known answer (key file, CTR, 1 KiB chunks)", "[idea][container]") {
  wk::test::TempDir dir;
  std::vector<std::uint8_t> plain(3000);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<std::uint8_t>(i * 7 + 1);
  write_file(dir / "plain", plain);
  IdeaSecret secret;
  secret.key = wk::test::kPaperKey;
  ContainerOptions o;
  o.chunk_log2 = 10;
  o.salt = std::array<std::uint8_t, 16>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  o.nonce = 0x0102030405060708ull;
  IdeaExecutor cpu{IdeaExecution{}};
  idea_seal_file(dir / "plain", dir / "sealed", secret, o, cpu);
  const auto c = read_file(dir / "sealed");
  REQUIRE(c.size() == 72 + 3000 + 3 * 32);
  CHECK(hex(c.data(), 16) == "574b43525950541a0101010a00000000");  // magic, v1, CTR, key file, 2^10
  CHECK(hex(c.data() + 16, 24) == "0102030405060708090a0b0c0d0e0f100102030405060708");
  std::uint8_t digest[32];
  SHA256(c.data(), c.size(), digest);
  // The format's fingerprint: any change of layout, key derivation or tag breaks it.
  CHECK(hex(digest, 32) == "245e71cdf072b6f92e74fae3df953fd4f82fe514f36e77267b165fa22d9f66c6");
}

TEST_CASE("container tampering: every case is refused by name and nothing is written", "[idea][container]") {
  for (IdeaMode mode : {IdeaMode::ctr, IdeaMode::ecb}) {
    CAPTURE(to_string(mode));
    Sealed s(5 * 1024 + 300, mode, 11);  // 6 chunks of 1 KiB, the last one short
    const auto good = read_file(s.dir / "sealed");
    const std::size_t R = 1024 + 32;
    REQUIRE(good.size() == 72 + (mode == IdeaMode::ctr ? 5 * 1024 + 300 : 5 * 1024 + 304) + 6 * 32);
    REQUIRE(s.open(s.dir / "sealed", s.secret, s.options).empty());
    CHECK(read_file(s.dir / "out") == s.plain);

    // A flipped bit anywhere in the header.
    for (std::size_t byte = 0; byte < 72; ++byte) {
      CAPTURE(byte);
      auto bad = good;
      bad[byte] ^= 0x10;
      CHECK_FALSE(s.open(bad).empty());
      CHECK(!fs::exists(s.dir / "out"));
    }
    // A flipped bit in a chunk or in a tag.
    for (std::size_t at : {std::size_t(72 + 5), 72 + R + 1023, 72 + 2 * R + 1024, 72 + 5 * R + 3, good.size() - 1}) {
      CAPTURE(at);
      auto bad = good;
      bad[at] ^= 0x01;
      const std::string e = s.open(bad);
      CHECK_THAT(e, Catch::Contains("fails authentication") && Catch::Contains("damaged"));
      CHECK(!fs::exists(s.dir / "out"));
    }
    // Truncated at every chunk boundary, and inside chunks and tags.
    for (std::size_t k = 0; k <= 5; ++k) {
      CAPTURE(k);
      const std::string e = s.open(std::vector<std::uint8_t>(good.begin(), good.begin() + 72 + k * R));
      CHECK_THAT(e, Catch::Contains("truncated"));
      CHECK(!fs::exists(s.dir / "out"));
    }
    for (std::size_t cut : {std::size_t(10), std::size_t(71), 72 + R + 10, 72 + 2 * R - 5, good.size() - 1}) {
      CAPTURE(cut);
      CHECK_FALSE(s.open(std::vector<std::uint8_t>(good.begin(), good.begin() + cut)).empty());
      CHECK(!fs::exists(s.dir / "out"));
    }
    // Two chunks swapped (within a batch and across batches), a chunk repeated, data appended.
    for (auto [a, b] : {std::pair<std::size_t, std::size_t>{0, 1}, {2, 3}, {1, 4}}) {
      CAPTURE(a, b);
      auto bad = good;
      std::swap_ranges(bad.begin() + 72 + a * R, bad.begin() + 72 + (a + 1) * R, bad.begin() + 72 + b * R);
      CHECK_THAT(s.open(bad), Catch::Contains("fails authentication"));
      CHECK(!fs::exists(s.dir / "out"));
    }
    {
      auto bad = good;
      std::copy(good.begin() + 72, good.begin() + 72 + R, bad.begin() + 72 + R);
      CHECK_THAT(s.open(bad), Catch::Contains("chunk 1"));
      bad = good;
      bad.insert(bad.end(), good.begin() + 72, good.begin() + 72 + R);
      CHECK_FALSE(s.open(bad).empty());
      CHECK(!fs::exists(s.dir / "out"));
    }
    // A wrong key; a passphrase for a key-file container; a wrong mode.
    IdeaSecret wrong;
    wrong.key = random_key(999);
    CHECK_THAT(s.open(s.dir / "sealed", wrong, s.options), Catch::Contains("wrong key"));
    IdeaSecret pass;
    pass.passphrase = "hunter2";
    CHECK_THAT(s.open(s.dir / "sealed", pass, s.options), Catch::Contains("sealed with a key file"));
    ContainerOptions other = s.options;
    other.expect_mode = mode == IdeaMode::ctr ? IdeaMode::ecb : IdeaMode::ctr;
    CHECK_THAT(s.open(s.dir / "sealed", s.secret, other), Catch::Contains("was encrypted in") && Catch::Contains("mode, not"));
    CHECK(!fs::exists(s.dir / "out"));
    // The chunk size in the header is authenticated too (another size reads other boundaries).
    auto bad = good;
    bad[11] = 11;
    CHECK_FALSE(s.open(bad).empty());
  }
}

TEST_CASE("container passphrases: scrypt, the cost in the header, a wrong passphrase refused", "[idea][container]") {
  wk::test::TempDir dir;
  const auto plain = random_bytes(3000, 4);
  write_file(dir / "plain", plain);
  IdeaSecret secret;
  secret.passphrase = "correct horse battery staple";
  ContainerOptions o;
  o.scrypt.log2_n = 10;
  IdeaExecutor cpu{IdeaExecution{}};
  idea_seal_file(dir / "plain", dir / "sealed", secret, o, cpu);
  const ContainerInfo info = idea_container_info(dir / "sealed");
  CHECK(info.header.kdf == ContainerKdf::scrypt);
  CHECK(info.header.scrypt.log2_n == 10);
  CHECK(info.header.scrypt.r == 8);
  CHECK(info.problem.empty());
  CHECK(info.data_bytes == 3000);
  CHECK_THAT(describe_container(info), Catch::Contains("scrypt, N = 2^10"));
  idea_open_file(dir / "sealed", dir / "back", secret, {}, cpu);
  CHECK(read_file(dir / "back") == plain);
  IdeaSecret wrong;
  wrong.passphrase = "correct horse battery stapler";
  CHECK_THROWS_WITH(idea_open_file(dir / "sealed", dir / "back2", wrong, {}, cpu), Catch::Contains("wrong passphrase"));
  CHECK(!fs::exists(dir / "back2"));
  // A header that asks for more memory than the limit is refused before scrypt runs.
  auto bytes = read_file(dir / "sealed");
  bytes[12] = 30;
  write_file(dir / "costly", bytes);
  CHECK_THROWS_WITH(idea_open_file(dir / "costly", dir / "back3", secret, {}, cpu), Catch::Contains("above the limit"));
}
