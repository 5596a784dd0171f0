// Setting parsing against libxcrypt's crypt_rn: every accept/reject decision and every canonical
// prefix must match, on listed edge cases and on random settings built from tricky pieces. Fresh
// settings, and the checks of the options they are made from.
#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <set>
#include <string>

#include "hash_test_util.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/setting.hpp"

using namespace wk::hash;

namespace {

// libxcrypt's output minus the hash: what our prefix must equal.
std::string libxcrypt_prefix(const std::string& setting, Method m) {
  // Cheap password, then cut the hash part off the end.
  const auto r = crypt_libxcrypt(setting, "pw");
  if (!r) return "<rejected>";
  const std::size_t hash_chars = m == Method::md5crypt ? 22 : m == Method::sha256crypt ? 43 : m == Method::sha512crypt ? 86 : 31;
  return r->substr(0, r->size() - hash_chars);
}

// Too slow to compute in a test: accept/reject is still compared, the prefix is not.
bool expensive(const Setting& s) {
  return (s.method == Method::bcrypt && s.rounds > 8) ||
         ((s.method == Method::sha256crypt || s.method == Method::sha512crypt) && s.rounds > 20000);
}

void check_against_libxcrypt(const std::string& setting) {
  CAPTURE(setting);
  const SettingParse p = parse_setting(setting);
  if (p.setting && p.setting->method == Method::other) return;  // libxcrypt's business
  if (!p.setting) {
    CHECK_FALSE(p.error.empty());
    CHECK_FALSE(crypt_libxcrypt(setting, "pw").has_value());  // rejections are quick
    return;
  }
  // libxcrypt needs about 5 minutes for rounds=999999999 (measured): large counts are checked
  // for acceptance by the parser tests below, not computed here.
  if (expensive(*p.setting)) return;
  const auto ref = crypt_libxcrypt(setting, "pw");
  REQUIRE(ref.has_value());
  CHECK(p.setting->prefix == libxcrypt_prefix(setting, p.setting->method));
}

}  // namespace

TEST_CASE("setting edge cases are accepted or rejected exactly as libxcrypt does", "[hash][setting]") {
  const char* cases[] = {
      "$6$saltsalt", "$6$saltsalt$", "$6$saltsaltsaltsaltXYZ", "$6$saltsaltsaltsaltXYZ$abc", "$6$rounds=5000$salt",
      "$6$rounds=1000$salt", "$6$rounds=999$salt", "$6$rounds=01000$salt", "$6$rounds=0$salt", "$6$rounds=1000000000$salt",
      "$6$rounds=$salt", "$6$rounds=1000", "$6$rounds=1000x$salt", "$6$rounds=+1000$salt", "$6$rounds=-1000$salt",
      "$6$rounds=18446744073709551617$salt", "$6$rounds=4294967296$x", "$6$", "$6$$", "$6$sa#lt", "$6$sa%lt", "$6$sa*lt",
      "$6$sa:lt", "$6$sa lt", "$6$sa!lt", "$6$sa;lt", "$6$sa\\lt", "$6$sa\x80lt", "$6$sa\x7flt", "$6$sa\tlt",
      "$6$rounds=1000$rounds=2000$x", "$5$rounds=1000$", "$5$rounds=", "$5$ROUNDS=1000$x", "$5$rounds=1000 $x",
      "$5$rounds=1e3$x", "$5$rounds= 1000$x", "$5$rounds=1000$123456789012345678", "$6$salt$ab*c", "$6$salt$abc~",
      "$1$", "$1$abcdefghij", "$1$abc$def", "$1$rounds=1000$abc", "$1$a#c", "$1$12345678901234567890", "$1$ab\xe9",
      "$1", "$6", "$5", "$2b$05$abcdefghijklmnopqrstuu", "$2b$05$abcdefghijklmnopqrstuv", "$2b$05$abcdefghijklmnopqrstu",
      "$2b$05$abcdefghijklmnopqrstuvxyz", "$2b$03$abcdefghijklmnopqrstuu", "$2b$32$abcdefghijklmnopqrstuu",
      "$2b$40$abcdefghijklmnopqrstuu", "$2b$5$abcdefghijklmnopqrstuu", "$2b$05abcdefghijklmnopqrstuuu",
      "$2a$05$abcdefghijklmnopqrstuu", "$2x$05$abcdefghijklmnopqrstuu", "$2y$05$abcdefghijklmnopqrstuu",
      "$2$05$abcdefghijklmnopqrstuu", "$2c$05$abcdefghijklmnopqrstuu", "$2B$05$abcdefghijklmnopqrstuu",
      "$2b$05$abcdefghijklmnopqrst#u", "$2b$05$abcdefghijklmnopqrstu$", "$2b$05$abcdefghijklmnopqrstu.",
      "$2b$05$abcdefghijklmnopqrstu/", "$2b$05$abcdefghijklmnopqrstuO", "$2b$05$abcdefghijklmnopqrstuz",
      "$2b$05$abcdefghijklmnopqrstu9", "$2b$05$abcdefghijklmnopqrstue", "$2b$05$abcdefghijklmnopqrstuu*",
      "$2b$05$abcdefghijklmnopqrstuu~", "$2b$04$abcdefghijklmnopqrstuu", "$2b", "$2b$", "$2b$0", "$2b$05",
      "$2b$05$", "*", "", "!", "$6$sa\nlt",
  };
  for (const char* c : cases) check_against_libxcrypt(c);
}

TEST_CASE("random settings: accept/reject and canonical prefix equal libxcrypt", "[hash][setting]") {
  std::mt19937 rng(2024);
  const std::vector<std::string> heads = {"$1$", "$5$", "$6$", "$2a$", "$2b$", "$2x$", "$2y$", "$5$rounds=", "$6$rounds="};
  const std::vector<std::string> pieces = {"$",    "rounds=", "0",  "1",  "9",   "1000", "999", "5000", "01000", "a",
                                           "Z",    ".",       "/",  "#",  "~",   "*",    ":",   " ",    "\x80",  "05",
                                           "31",   "32",      "04", "03", "12$", "$$",   "x",   "abcdefghijklmnopqrstuv"};
  for (int rep = 0; rep < 3000; ++rep) {
    std::string s = heads[rng() % heads.size()];
    const int n = int(rng() % 6);
    for (int i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
    check_against_libxcrypt(s);
  }
}

TEST_CASE("round counts at the limits are parsed as libxcrypt 4.4 does", "[hash][setting]") {
  // Probed with crypt_rn: 999999999 is accepted (and computed), 1000000000 rejected.
  const auto hi = parse_setting("$6$rounds=999999999$salt");
  REQUIRE(hi.setting);
  CHECK(hi.setting->rounds == 999999999u);
  CHECK(hi.setting->prefix == "$6$rounds=999999999$salt$");
  CHECK_FALSE(parse_setting("$6$rounds=1000000000$salt").setting);
  CHECK_FALSE(parse_setting("$5$rounds=0999$salt").setting);
  const auto lo = parse_setting("$5$rounds=1000$");
  REQUIRE(lo.setting);
  CHECK(lo.setting->rounds == 1000u);
  CHECK(lo.setting->salt.empty());
  const auto cost = parse_setting("$2y$31$abcdefghijklmnopqrstuv");
  REQUIRE(cost.setting);
  CHECK(cost.setting->rounds == 31u);
  CHECK(cost.setting->prefix == "$2y$31$abcdefghijklmnopqrstuu");
}

TEST_CASE("setting errors name a position or a method, never the setting's bytes", "[hash][setting]") {
  // With the columns swapped (PASSWORD<TAB>SETTING) the "setting" is a password: no byte of it may
  // reach a message, as a character or as a number.
  const auto bad = parse_setting("hunter!2");
  REQUIRE_FALSE(bad.setting);
  CHECK(bad.error == "the setting has a byte crypt(3) never accepts in a setting, at position 7");
  for (const char* leak : {"0x21", "!", "hunter", "33"}) CHECK(bad.error.find(leak) == std::string::npos);
  CHECK(parse_setting("\x01pw").error.find("at position 1") != std::string::npos);
  for (const std::string& s : {std::string("$2a$0Z$secret"), std::string("$5$rounds=9x$pw"), std::string("$6$rounds=12$pw"),
                               std::string("$2y$04$short")}) {
    CAPTURE(s);
    const auto p = parse_setting(s);
    REQUIRE_FALSE(p.setting);
    CHECK(p.error.find(s.substr(0, 4)) == std::string::npos);  // not even the "$2a$" it starts with
    CHECK(p.error.find("secret") == std::string::npos);
  }
}

TEST_CASE("passwords: libxcrypt's limits", "[hash][setting]") {
  CHECK(check_password("").empty());
  CHECK(check_password(std::string(511, 'a')).empty());
  CHECK_FALSE(check_password(std::string(512, 'a')).empty());
  CHECK_FALSE(check_password(std::string("a\0b", 3)).empty());
  CHECK_FALSE(crypt_libxcrypt("$6$x", std::string(512, 'a')).has_value());
  CHECK(crypt_libxcrypt("$6$x", std::string(511, 'a')).has_value());
}

TEST_CASE("generated settings in bulk: one shape, distinct salts, every salt character drawn", "[hash][setting]") {
  for (Method m : {Method::md5crypt, Method::sha512crypt, Method::bcrypt}) {
    HashOptions o;
    o.method = m;
    if (m == Method::sha512crypt) o.rounds = 7000;
    CHECK(generate_settings(o, 0).empty());
    const std::vector<std::string> all = generate_settings(o, 3000);
    REQUIRE(all.size() == 3000);
    std::set<std::string> distinct(all.begin(), all.end());
    CHECK(distinct.size() == all.size());
    std::set<char> chars;
    for (const std::string& s : all) {
      CAPTURE(s);
      const SettingParse p = parse_setting(s);
      REQUIRE(p.setting);
      CHECK(p.setting->method == m);
      CHECK(s.size() == all[0].size());
      if (m == Method::sha512crypt) CHECK(p.setting->rounds == 7000);
      if (m == Method::bcrypt) CHECK(p.setting->prefix == s);  // canonical salt as drawn
      chars.insert(s.end() - 8, s.end());
    }
    // 24 000 characters of 6 random bits: a character never drawn means the encoding is off.
    CHECK(chars.size() == 64);
  }
  HashOptions bad;
  bad.method = Method::bcrypt;
  bad.cost = 32;
  CHECK_THROWS_AS(generate_settings(bad, 10), wk::Error);
}

TEST_CASE("generated settings: right shape, libxcrypt accepts them, salts differ", "[hash][setting]") {
  std::set<std::string> seen;
  for (Method m : {Method::md5crypt, Method::sha256crypt, Method::sha512crypt, Method::bcrypt}) {
    for (int rep = 0; rep < 50; ++rep) {
      HashOptions o;
      o.method = m;
      if (m == Method::bcrypt) o.cost = 4;
      if (rep == 0 && (m == Method::sha256crypt || m == Method::sha512crypt)) o.rounds = 1000;
      const std::string s = generate_setting(o);
      CAPTURE(s);
      const SettingParse p = parse_setting(s);
      REQUIRE(p.setting);
      CHECK(p.setting->method == m);
      CHECK(seen.insert(s).second);
      if (m == Method::md5crypt) CHECK(p.setting->salt.size() == 8);
      if (m == Method::sha256crypt || m == Method::sha512crypt) {
        CHECK(p.setting->salt.size() == 16);
        CHECK(p.setting->rounds_custom == (rep == 0));
      }
      for (char c : p.setting->salt) CHECK((std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '/'));
      const auto ref = crypt_libxcrypt(s, "password");
      REQUIRE(ref);
      CHECK(ref->substr(0, p.setting->prefix.size()) == p.setting->prefix);
    }
  }
  HashOptions bad;
  bad.method = Method::md5crypt;
  bad.rounds = 5000;
  CHECK_THROWS_AS(generate_setting(bad), wk::Error);
  bad.method = Method::sha512crypt;
  bad.rounds = 999;
  CHECK_THROWS_AS(generate_setting(bad), wk::Error);
  bad.method = Method::bcrypt;
  bad.rounds.reset();
  bad.cost = 3;
  CHECK_THROWS_AS(generate_setting(bad), wk::Error);
}

TEST_CASE("generate_settings_into: fixed-size records, the lengths of setting and crypt string, libxcrypt agrees",
          "[hash][setting]") {
  for (Method m : {Method::md5crypt, Method::sha256crypt, Method::sha512crypt, Method::bcrypt}) {
    for (int variant = 0; variant < 2; ++variant) {
      HashOptions o;
      o.method = m;
      if (m == Method::bcrypt) {
        o.cost = variant ? 4 : 12;
        o.bcrypt_variant = variant ? 'y' : 'b';
      }
      if (variant && (m == Method::sha256crypt || m == Method::sha512crypt)) o.rounds = 1234;
      const std::size_t record = generated_setting_bytes(o), count = 20000;  // more than one RAND_bytes group
      CAPTURE(method_name(m), variant, record);
      std::string text(record * count + 1, '#');
      generate_settings_into(o, count, text.data());
      CHECK(text.back() == '#');  // nothing written past the last record
      std::set<std::string> distinct;
      for (std::size_t i = 0; i < count; ++i) {
        const std::string s = text.substr(i * record, record);
        distinct.insert(s);
        if (i % 997 != 0) continue;
        CAPTURE(s);
        const SettingParse p = parse_setting(s);
        REQUIRE(p.setting);
        CHECK(p.setting->method == m);
        if (m == Method::bcrypt) CHECK(p.setting->prefix == s);
        else CHECK(p.setting->prefix == s + "$");
        if (m == Method::bcrypt && o.cost == 12) continue;  // too slow to hash here
        const auto ref = crypt_libxcrypt(s, "password");
        REQUIRE(ref);
        CHECK(ref->size() == crypt_string_bytes(o));
        CHECK(ref->substr(0, record) == s);
      }
      CHECK(distinct.size() == count);
      CHECK(generate_settings(o, 3)[0].size() == record);
    }
  }
}

TEST_CASE("option problems are said in the library's terms and name the option they are about", "[hash][setting]") {
  struct Case {
    Method method;
    std::optional<std::uint32_t> rounds;
    unsigned cost;
    char variant;
    HashOption option;
    const char* message;
  };
  const Case cases[] = {
      {Method::md5crypt, 5000u, 5, 'b', HashOption::rounds, "rounds apply to sha256crypt and sha512crypt only"},
      {Method::bcrypt, 5000u, 5, 'b', HashOption::rounds, "rounds apply to sha256crypt and sha512crypt only"},
      {Method::sha512crypt, 999u, 5, 'b', HashOption::rounds,
       "rounds must be in 1000..999999999 (libxcrypt rejects other counts)"},
      {Method::sha256crypt, 1000000000u, 5, 'b', HashOption::rounds,
       "rounds must be in 1000..999999999 (libxcrypt rejects other counts)"},
      {Method::bcrypt, std::nullopt, 3, 'b', HashOption::cost, "bcrypt cost must be in 4..31"},
      {Method::bcrypt, std::nullopt, 32, 'b', HashOption::cost, "bcrypt cost must be in 4..31"},
      {Method::bcrypt, std::nullopt, 5, 'x', HashOption::bcrypt_variant, "bcrypt variant must be 2a, 2b or 2y"},
      {Method::other, std::nullopt, 5, 'b', HashOption::method, "hash: choose md5crypt, sha256crypt, sha512crypt, bcrypt, yescrypt or scrypt"},
  };
  for (const Case& c : cases) {
    HashOptions o;
    o.method = c.method;
    o.rounds = c.rounds;
    o.cost = c.cost;
    o.bcrypt_variant = c.variant;
    CAPTURE(method_name(c.method), c.message);
    const auto p = hash_options_problem(o);
    REQUIRE(p);
    CHECK(p->option == c.option);
    CHECK(p->message == c.message);
    CHECK(p->message.find("--") == std::string::npos);  // flags are the front end's to name
    CHECK_THROWS_WITH(check_hash_options(o), c.message);
  }
  for (Method m : {Method::md5crypt, Method::sha256crypt, Method::sha512crypt, Method::bcrypt}) {
    HashOptions o;
    o.method = m;
    if (m == Method::sha256crypt || m == Method::sha512crypt) o.rounds = 1000;
    CHECK_FALSE(hash_options_problem(o));
    CHECK_NOTHROW(check_hash_options(o));
  }
}
