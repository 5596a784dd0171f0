// The GPU's fast round code (lib/src/hash/hd/block_rounds.hpp: templates + register blocks + the
// jump on |Y| / 4) compiled for the host, for every block configuration the GPU engine instantiates,
// against libxcrypt: random lengths that fit each configuration, the round loop split at random
// launch boundaries as the GPU splits it.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hash/hd/block_rounds.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/hd/shacrypt.hpp"
#include "hash_test_util.hpp"
#include "wk/hash/crypt.hpp"

using namespace wk::hash;
using namespace wk::hash::test;

namespace {

template <class H>
std::string encode(const std::uint8_t* d) {
  char out[86];
  if constexpr (H::kDigestBytes == 16) {
    hd::encode_md5crypt(d, out);
    return std::string(out, hd::kMd5cryptHashChars);
  } else if constexpr (H::kDigestBytes == 32) {
    hd::encode_sha256crypt(d, out);
    return std::string(out, hd::kSha256cryptHashChars);
  } else {
    hd::encode_sha512crypt(d, out);
    return std::string(out, hd::kSha512cryptHashChars);
  }
}

// The GPU pipeline on the host: set-up, templates, block rounds in launches, encoding.
template <class H, int NBLK, int NW>
std::string block_crypt(const std::string& pw, const std::string& salt, std::uint32_t rounds, std::mt19937& rng) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(pw.data());
  const auto* s = reinterpret_cast<const std::uint8_t*>(salt.data());
  const int pl = int(pw.size()), sl = int(salt.size());
  std::uint8_t c0[H::kDigestBytes];
  std::vector<std::uint8_t> pseq(pl + 1), sseq(16);
  const std::uint8_t *P = p, *S = s;
  if constexpr (H::kDigestBytes == 16) {
    hd::md5crypt_setup(p, pl, s, sl, c0);
  } else {
    hd::shacrypt_setup<H>(p, pl, s, sl, c0, pseq.data(), sseq.data());
    P = pseq.data();
    S = sseq.data();
  }
  std::vector<std::uint32_t> tmpl(hd::kLayouts * NW, 0xdeadbeef);
  hd::build_templates<H>(P, pl, S, sl, NW, [&](int lay, int k, std::uint32_t w) { tmpl[lay * NW + k] = w; });
  std::uint32_t c[H::kDigestWords];
  for (int k = 0; k < H::kDigestWords; ++k) c[k] = hd::bytes_to_word<H>(c0 + 4 * k);
  // Launch boundaries at random places, as the GPU's bounded launches cut the loop.
  std::uint32_t r0 = 0;
  while (r0 < rounds) {
    const std::uint32_t r1 = std::min(rounds, r0 + 1 + std::uint32_t(rng() % 700));
    hd::block_rounds<H, NBLK, NW>(c, pl, sl, r0, r1, [&](int idx) { return tmpl[idx]; });
    r0 = r1;
  }
  std::uint8_t d[H::kDigestBytes];
  for (int k = 0; k < H::kDigestWords; ++k)
    for (int q = 0; q < 4; ++q) d[4 * k + q] = hd::word_byte<H>(c[k], q);
  return encode<H>(d);
}

template <class H, std::size_t I>
int check_config(const char* tag, int vectors, unsigned seed) {
  constexpr hd::BlockConfig cfg = hd::BlockConfigs<H>::list[I];
  std::mt19937 rng(seed);
  int bad = 0, tried = 0;
  const int max_salt = H::kDigestBytes == 16 ? 8 : 16;
  // Every (pl, sl) pair at the edge of the configuration, then random fitting ones.
  std::vector<std::pair<int, int>> lengths;
  for (int pl = 0; pl <= 200; ++pl)
    for (int sl = 0; sl <= max_salt; ++sl)
      if (hd::block_config_fits<H>(cfg.nblk, cfg.nw, pl, sl) && !hd::block_config_fits<H>(cfg.nblk, cfg.nw, pl + 1, sl))
        lengths.emplace_back(pl, sl);
  while (int(lengths.size()) < vectors) {
    const int pl = int(rng() % 120), sl = int(rng() % (max_salt + 1));
    if (hd::block_config_fits<H>(cfg.nblk, cfg.nw, pl, sl)) lengths.emplace_back(pl, sl);
  }
  for (const auto& [pl, sl] : lengths) {
    const std::string pw = random_password(rng, pl);
    const std::string salt = random_salt(rng, sl);
    std::string setting = tag;
    std::uint32_t rounds = hd::kMd5Rounds;
    if (H::kDigestBytes != 16) {
      rounds = 1000 + std::uint32_t(rng() % 50);
      setting += "rounds=" + std::to_string(rounds) + "$";
    }
    setting += salt;
    const auto ref = crypt_libxcrypt(setting, pw);
    REQUIRE(ref);
    const std::string ours = block_crypt<H, cfg.nblk, cfg.nw>(pw, salt, rounds, rng);
    ++tried;
    if (ref->substr(ref->size() - ours.size()) != ours) {
      if (++bad <= 3) UNSCOPED_INFO(tag << " nblk " << cfg.nblk << " nw " << cfg.nw << " pl " << pl << " sl " << sl);
    }
  }
  CHECK(tried >= vectors);
  return bad;
}

template <class H, std::size_t... I>
int check_all(const char* tag, int vectors, std::index_sequence<I...>) {
  return (check_config<H, I>(tag, vectors, unsigned(1000 + I)) + ...);
}

template <class H>
int check_all(const char* tag, int vectors) {
  constexpr std::size_t n = sizeof(hd::BlockConfigs<H>::list) / sizeof(hd::BlockConfig);
  return check_all<H>(tag, vectors, std::make_index_sequence<n>{});
}

}  // namespace

TEST_CASE("block rounds (GPU fast path) equal libxcrypt: md5crypt, every configuration", "[hash][gpu-code]") {
  CHECK(check_all<hd::Md5Traits>("$1$", 150) == 0);
}

TEST_CASE("block rounds (GPU fast path) equal libxcrypt: sha256crypt, every configuration", "[hash][gpu-code]") {
  CHECK(check_all<hd::Sha256Traits>("$5$", 150) == 0);
}

TEST_CASE("block rounds (GPU fast path) equal libxcrypt: sha512crypt, every configuration", "[hash][gpu-code]") {
  CHECK(check_all<hd::Sha512Traits>("$6$", 150) == 0);
}

TEST_CASE("block configurations cover the benchmark classes and passphrases up to 64 bytes", "[hash][gpu-code]") {
  auto first_fit = [](auto traits, int pl, int sl) {
    using H = decltype(traits);
    for (const hd::BlockConfig& c : hd::BlockConfigs<H>::list)
      if (hd::block_config_fits<H>(c.nblk, c.nw, pl, sl)) return c;
    return hd::BlockConfig{0, 0, false};
  };
  // Class S (7-byte passwords, 8-character salts): one block per round, templates in shared memory.
  CHECK(first_fit(hd::Md5Traits{}, 7, 8).nblk == 1);
  CHECK(first_fit(hd::Sha256Traits{}, 7, 8).nblk == 1);
  CHECK(first_fit(hd::Sha512Traits{}, 7, 8).nblk == 1);
  // Class R (12-byte passwords, 16-character salts, 8 for md5crypt).
  CHECK(first_fit(hd::Md5Traits{}, 12, 8).nblk == 1);
  CHECK(first_fit(hd::Sha256Traits{}, 12, 16).nblk == 2);
  CHECK(first_fit(hd::Sha256Traits{}, 12, 16).shared_ok);
  CHECK(first_fit(hd::Sha512Traits{}, 12, 16).nblk == 1);
  // Passphrases up to 64 bytes never fall back to the reference rounds.
  for (int pl = 0; pl <= 64; ++pl) {
    CHECK(first_fit(hd::Md5Traits{}, pl, 8).nblk > 0);
    CHECK(first_fit(hd::Sha256Traits{}, pl, 16).nblk > 0);
    CHECK(first_fit(hd::Sha512Traits{}, pl, 16).nblk > 0);
  }
}
