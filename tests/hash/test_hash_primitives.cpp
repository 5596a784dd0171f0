// MD5, SHA-256, SHA-512 and Blowfish as compiled for the host from the __host__ __device__
// headers the GPU kernels use, against OpenSSL on random inputs and published vectors.
#define OPENSSL_SUPPRESS_DEPRECATED  // BF_* is deprecated in OpenSSL 3 but still the reference
#include <catch2/catch.hpp>
#include <openssl/blowfish.h>
#include <openssl/evp.h>

#include <random>
#include <string>
#include <vector>

#include "hash/hd/crypt_base64.hpp"
#include "hash/primitives/blowfish.hpp"
#include "hash/primitives/md5.hpp"
#include "hash/primitives/sha256.hpp"
#include "hash/primitives/sha512.hpp"

using namespace wk::hash;

namespace {

std::vector<std::uint8_t> openssl_digest(const EVP_MD* md, const std::vector<std::uint8_t>& in) {
  std::vector<std::uint8_t> out(EVP_MD_get_size(md));
  unsigned len = 0;
  REQUIRE(EVP_Digest(in.data(), in.size(), out.data(), &len, md, nullptr) == 1);
  return out;
}

template <class Ctx, int D>
std::vector<std::uint8_t> ours(const std::vector<std::uint8_t>& in, std::size_t split) {
  Ctx ctx;
  ctx.reset();
  ctx.update(in.data(), split);
  ctx.update(in.data() + split, in.size() - split);
  std::vector<std::uint8_t> out(D);
  ctx.final(out.data());
  return out;
}

std::string hex(const std::vector<std::uint8_t>& v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto b : v) {
    s.push_back(d[b >> 4]);
    s.push_back(d[b & 15]);
  }
  return s;
}

}  // namespace

TEST_CASE("MD5, SHA-256, SHA-512 known answers (FIPS 180-4, RFC 1321)", "[hash][primitives]") {
  const std::vector<std::uint8_t> abc = {'a', 'b', 'c'};
  CHECK(hex(ours<md5::Context, 16>(abc, 1)) == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(hex(ours<sha256::Context, 32>(abc, 2)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(ours<sha512::Context, 64>(abc, 0)) ==
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
        "454d4423643ce80e2a9ac94fa54ca49f");
  CHECK(hex(ours<md5::Context, 16>({}, 0)) == "d41d8cd98f00b204e9800998ecf8427e");
}

TEST_CASE("MD5, SHA-256, SHA-512 equal OpenSSL for every length 0..300 and random splits", "[hash][primitives]") {
  std::mt19937 rng(12345);
  int mismatches = 0;
  for (int len = 0; len <= 300; ++len) {
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<std::uint8_t> in(len);
      for (auto& b : in) b = std::uint8_t(rng());
      const std::size_t split = len ? rng() % (len + 1) : 0;
      mismatches += ours<md5::Context, 16>(in, split) != openssl_digest(EVP_md5(), in);
      mismatches += ours<sha256::Context, 32>(in, split) != openssl_digest(EVP_sha256(), in);
      mismatches += ours<sha512::Context, 64>(in, split) != openssl_digest(EVP_sha512(), in);
    }
  }
  CHECK(mismatches == 0);
}

namespace {
// The standard Blowfish key schedule built from the primitives (bcrypt uses the salted variant).
struct StdBlowfish {
  std::uint32_t P[18];
  std::vector<std::uint32_t> S = std::vector<std::uint32_t>(1024);
  explicit StdBlowfish(const std::vector<std::uint8_t>& key) {
    for (int i = 0; i < 18; ++i) {
      std::uint32_t w = 0;
      for (int j = 0; j < 4; ++j) w = (w << 8) | key[(4 * i + j) % key.size()];
      P[i] = tables::blowfish_init(i) ^ w;
    }
    blowfish::LinearSBoxes sb{S.data()};
    blowfish::load_initial_sboxes(sb);
    blowfish::encrypt_state(P, sb);
  }
  void encrypt(std::uint32_t& L, std::uint32_t& R) { blowfish::encrypt(L, R, P, blowfish::LinearSBoxes{S.data()}); }
};
}  // namespace

TEST_CASE("Blowfish equals published vectors and OpenSSL's BF_encrypt", "[hash][primitives]") {
  {  // Eric Young's vectors: key 00..00 / plaintext 0, key FF..FF / plaintext FF..FF
    StdBlowfish bf(std::vector<std::uint8_t>(8, 0));
    std::uint32_t L = 0, R = 0;
    bf.encrypt(L, R);
    CHECK(L == 0x4EF99745u);
    CHECK(R == 0x6198DD78u);
    StdBlowfish bf2(std::vector<std::uint8_t>(8, 0xFF));
    L = R = 0xFFFFFFFFu;
    bf2.encrypt(L, R);
    CHECK(L == 0x51866FD5u);
    CHECK(R == 0xB85ECB8Au);
  }
  std::mt19937 rng(777);
  int mismatches = 0;
  for (int rep = 0; rep < 200; ++rep) {
    const int klen = 1 + int(rng() % 56);
    std::vector<std::uint8_t> key(klen);
    for (auto& b : key) b = std::uint8_t(rng());
    StdBlowfish ours_bf(key);
    BF_KEY ref;
    BF_set_key(&ref, klen, key.data());
    BF_LONG data[2] = {static_cast<BF_LONG>(rng()), static_cast<BF_LONG>(rng())};
    std::uint32_t L = data[0], R = data[1];
    BF_encrypt(data, &ref);
    ours_bf.encrypt(L, R);
    mismatches += L != data[0] || R != data[1];
  }
  CHECK(mismatches == 0);
}

TEST_CASE("bcrypt base-64 round-trips and rejects foreign characters", "[hash][primitives]") {
  std::mt19937 rng(5);
  for (int rep = 0; rep < 100; ++rep) {
    std::uint8_t in[16], back[16];
    for (auto& b : in) b = std::uint8_t(rng());
    char text[23] = {};
    hd::bcrypt_b64_encode(text, in, 16);
    REQUIRE(hd::bcrypt_b64_decode(back, text, 16));
    CHECK(std::equal(in, in + 16, back));
  }
  std::uint8_t out[16];
  CHECK_FALSE(hd::bcrypt_b64_decode(out, "abcdefghij$lmnopqrstuv", 16));
  CHECK_FALSE(hd::bcrypt_b64_decode(out, "abcdefghijklmnopqrstu\x80", 16));
}
