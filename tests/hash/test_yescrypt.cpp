// yescrypt ($y$) and scrypt ($7$): warpkit's host code against libxcrypt's crypt_rn on thousands
// of settings across every parameter a crypt string can carry (flavours 0 / WORM / RW, N, r, p,
// t, salts of 0..64 bytes, prehashing at large N), passwords of 0..511 bytes with any byte; the
// setting reader claims only what libxcrypt computes; fresh settings match crypt_gensalt's.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "hash/methods/method_module.hpp"
#include "hash/methods/yescrypt/yescrypt_text.hpp"
#include "hash_test_util.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/setting.hpp"

using namespace wk::hash;
using wk::hash::test::random_length;
using wk::hash::test::random_password;

namespace {

const std::string kAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

std::string random_chars(std::mt19937& rng, std::size_t n) {
  std::string s(n, '.');
  std::uniform_int_distribution<std::size_t> pick(0, 63);
  for (char& c : s) c = kAlphabet[pick(rng)];
  return s;
}

// A $y$ setting with small memory: flavour, N, r and the optional p / t fields, the salt as
// encoded bytes (or, once in a while, raw characters that may not decode).
std::string random_yescrypt_setting(std::mt19937& rng) {
  std::uniform_int_distribution<int> coin(0, 9);
  const int f = coin(rng);
  const std::uint32_t flavor = f == 0 ? 0 : f == 1 ? 1 : 47;  // classic, WORM, RW default ('j')
  const std::uint32_t n_log2 = std::uniform_int_distribution<std::uint32_t>(1, 9)(rng);
  const std::uint32_t r = std::uniform_int_distribution<std::uint32_t>(1, 6)(rng);
  std::string s = "$y$" + yescrypt_text::encode_uint(flavor, 0) + yescrypt_text::encode_uint(n_log2, 1) +
                  yescrypt_text::encode_uint(r, 1);
  std::uint32_t have = 0, p = 1, t = 0;
  if (coin(rng) < 3) p = std::uniform_int_distribution<std::uint32_t>(2, 4)(rng), have |= 1;
  if (coin(rng) < 3) t = std::uniform_int_distribution<std::uint32_t>(1, 3)(rng), have |= 2;
  if (have) {
    s += yescrypt_text::encode_uint(have, 1);
    if (have & 1) s += yescrypt_text::encode_uint(p, 2);
    if (have & 2) s += yescrypt_text::encode_uint(t, 1);
  }
  s += '$';
  const std::size_t salt_chars = coin(rng) == 0 ? std::uniform_int_distribution<std::size_t>(0, 90)(rng)
                                                : std::uniform_int_distribution<std::size_t>(0, 30)(rng);
  if (coin(rng) < 8) {
    std::string bytes(std::uniform_int_distribution<std::size_t>(0, 64)(rng), '\0');
    for (char& b : bytes) b = char(rng());
    char text[100];
    const int n = hd::yescrypt::encode64(text, reinterpret_cast<const std::uint8_t*>(bytes.data()), int(bytes.size()));
    s.append(text, std::size_t(n));
  } else {
    s += random_chars(rng, salt_chars);
  }
  return s;
}

// A $7$ setting with small memory: N as one character, r and p as five.
std::string random_scrypt_setting(std::mt19937& rng) {
  const std::uint32_t n_log2 = std::uniform_int_distribution<std::uint32_t>(1, 9)(rng);
  const std::uint32_t r = std::uniform_int_distribution<std::uint32_t>(1, 6)(rng);
  const std::uint32_t p = std::uniform_int_distribution<std::uint32_t>(1, 3)(rng);
  return yescrypt_text::scrypt_head(n_log2, r, p) + random_chars(rng, std::uniform_int_distribution<std::size_t>(0, 40)(rng));
}

// What warpkit makes of (setting, password) when it claims the setting, else nullopt.
std::optional<std::string> warpkit(const std::string& setting, const std::string& password) {
  const SettingParse p = parse_setting(setting);
  if (!p.setting || p.setting->method == Method::other) return std::nullopt;
  return crypt_warpkit_host(*p.setting, password);
}

void compare_many(std::string (*make)(std::mt19937&), Method method, int count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  int claimed = 0;
  for (int i = 0; i < count; ++i) {
    const std::string setting = make(rng);
    const std::string password = random_password(rng, random_length(rng));
    CAPTURE(setting, password.size());
    const auto ref = crypt_libxcrypt(setting, password);
    const SettingParse p = parse_setting(setting);
    if (!p.setting || p.setting->method == Method::other) {
      // not claimed: libxcrypt computes or rejects it; a claim must never be missing for what
      // libxcrypt accepts with parameters in warpkit's range (all of these are)
      CHECK_FALSE(ref);
      continue;
    }
    ++claimed;
    CHECK(p.setting->method == method);
    REQUIRE(ref);
    CHECK(crypt_warpkit_host(*p.setting, password) == *ref);
  }
  CHECK(claimed > count / 2);
}

}  // namespace

TEST_CASE("yescrypt matches libxcrypt on random settings and passwords", "[hash][yescrypt]") {
  compare_many(random_yescrypt_setting, Method::yescrypt, 2500, 2026);
}

TEST_CASE("scrypt matches libxcrypt on random settings and passwords", "[hash][yescrypt]") {
  compare_many(random_scrypt_setting, Method::scrypt, 2500, 1127);
}

TEST_CASE("yescrypt at libxcrypt's costs matches it, the default cost with its prehash included", "[hash][yescrypt]") {
  std::mt19937 rng(7);
  for (unsigned cost : {1u, 2u, 3u, 5u}) {
    HashOptions o;
    o.method = Method::yescrypt;
    o.cost = cost;
    for (const std::string& setting : generate_settings(o, cost == 5 ? 6 : 12)) {
      const std::string password = random_password(rng, random_length(rng));
      CAPTURE(setting, password.size());
      const auto ref = crypt_libxcrypt(setting, password);
      REQUIRE(ref);
      CHECK(warpkit(setting, password) == *ref);
    }
  }
}

TEST_CASE("scrypt at the cost hashcat measures (N 2^14, r 8, p 1) matches libxcrypt", "[hash][yescrypt]") {
  std::mt19937 rng(8);
  for (int i = 0; i < 3; ++i) {
    const std::string setting = "$7$C6..../...." + random_chars(rng, 22);
    const std::string password = random_password(rng, random_length(rng));
    CAPTURE(setting);
    const auto ref = crypt_libxcrypt(setting, password);
    REQUIRE(ref);
    CHECK(warpkit(setting, password) == *ref);
  }
}

TEST_CASE("yescrypt prehashes at large N whatever the cost encoding", "[hash][yescrypt]") {
  // N / p >= 256 and N / p * r >= 2^17: N 256, r 512 (16 MiB) and N 2^13, r 32 with p 2
  std::mt19937 rng(9);
  for (const std::string setting : {"$y$j5" + yescrypt_text::encode_uint(512, 1) + "$" + random_chars(rng, 20) + "..",
                                    "$y$jAT" + yescrypt_text::encode_uint(1, 1) + yescrypt_text::encode_uint(2, 2) + "$" +
                                        random_chars(rng, 20) + ".."}) {
    CAPTURE(setting);
    const auto ref = crypt_libxcrypt(setting, "prehash");
    REQUIRE(ref);
    CHECK(warpkit(setting, "prehash") == *ref);
  }
}

TEST_CASE("the setting reader claims a whole crypt string and leaves the rest to libxcrypt", "[hash][yescrypt]") {
  const std::string full = "$y$j9T$MOoTVZuCBIRyY8cfTIJxE1$R4CohXmVAE.dCcqOjZMWloC2uNQMduTxb7gqucJvLXD";
  const SettingParse p = parse_setting(full);
  REQUIRE(p.setting);
  CHECK(p.setting->method == Method::yescrypt);
  CHECK(p.setting->prefix == "$y$j9T$MOoTVZuCBIRyY8cfTIJxE1$");
  CHECK(p.setting->yescrypt.flags == 0xb6);
  CHECK(p.setting->yescrypt.n_log2 == 12);
  CHECK(p.setting->yescrypt.r == 32);
  CHECK(p.setting->salt.size() == 16);
  // Not computed by warpkit (libxcrypt decides): a ROM, a hash upgrade, an unknown flavour, a salt
  // that does not decode, a huge N.
  for (const char* s : {"$y$j9TB$abcdefgh", "$y$j9T5.$abcdefgh", "$y$k9T$abcdefgh", "$y$j9T$abcde", "$y$jzT$abcdefgh",
                        "$7$zzzzzzzzzzzabc"}) {
    CAPTURE(s);
    const SettingParse q = parse_setting(s);
    REQUIRE(q.setting);
    CHECK(q.setting->method == Method::other);
  }
}

TEST_CASE("fresh yescrypt and scrypt settings look like crypt_gensalt's", "[hash][yescrypt]") {
  HashOptions o;  // the default method: yescrypt at libxcrypt's default cost
  CHECK(o.method == Method::yescrypt);
  const std::string y = generate_setting(o);
  CHECK(y.rfind("$y$j9T$", 0) == 0);
  CHECK(y.size() == 7 + 22);
  CHECK(crypt_string_bytes(o) == 7 + 22 + 1 + 43);
  o.cost = 1;
  CHECK(generate_setting(o).rfind("$y$j75$", 0) == 0);
  o.cost = 11;
  CHECK(generate_setting(o).rfind("$y$jFT$", 0) == 0);
  o.cost = 12;
  CHECK(hash_options_problem(o));
  o = {};
  o.method = Method::scrypt;
  const std::string s = generate_setting(o);
  CHECK(s.rfind("$7$CU..../....", 0) == 0);  // N 2^14, r 32, p 1
  o.cost = 5;
  CHECK(hash_options_problem(o));
}
