// crypt(3) settings: wk::hash::parse_setting and warpkit's own CPU hash against libxcrypt's
// crypt_rn on the same bytes. Input: SETTING, optionally "\n" and a PASSWORD.
// Invariants: for md5crypt, sha256crypt, sha512crypt and bcrypt, warpkit accepts exactly what
// libxcrypt accepts and computes the same string; a setting warpkit rejects for any method is
// rejected by libxcrypt too. Settings that would take long (sha-crypt rounds above 20000, bcrypt
// cost above 6) are left out so the fuzzer keeps its speed; the unit tests cover large costs.
#include <cctype>
#include <string>

#include "fuzz_util.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/setting.hpp"

using wk::fuzz::check;
using wk::fuzz::fail;

namespace {

// True for settings libxcrypt would spend long on: "rounds=" with a large number anywhere (the
// sha-crypt and SunMD5 forms), bcrypt with a two-digit cost above 6, BSDi "_" with a large count.
bool too_slow(std::string_view s) {
  for (std::size_t p = s.find("rounds="); p != std::string_view::npos; p = s.find("rounds=", p + 1)) {
    std::size_t i = p + 7, digits = 0;
    unsigned long long v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && digits < 20) v = v * 10 + (s[i++] - '0'), ++digits;
    if (digits > 6 || v > 20000) return true;
  }
  if (s.size() >= 6 && s[0] == '$' && s[1] == '2') {
    const std::size_t c = s[2] == '$' ? 3 : 4;  // "$2$" or "$2b$"
    if (s.size() >= c + 2 && std::isdigit(static_cast<unsigned char>(s[c])) && std::isdigit(static_cast<unsigned char>(s[c + 1])) &&
        (s[c] - '0') * 10 + (s[c + 1] - '0') > 6)
      return true;
  }
  // The rest of libxcrypt's methods with a cost in the setting (yescrypt, scrypt, gost-yescrypt,
  // sha1crypt, BSDi DES): only their rejection is compared, and that needs no work.
  return false;
}

bool warpkit_computes(wk::hash::Method m) { return m != wk::hash::Method::other; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in = wk::fuzz::as_text(data, size);
  const std::size_t nl = in.find('\n');
  const std::string_view setting = in.substr(0, nl);
  const std::string_view password = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  if (setting.size() > 256 || too_slow(setting)) return -1;  // not added to the corpus

  const wk::hash::SettingParse parsed = wk::hash::parse_setting(setting);
  check(parsed.setting.has_value() == parsed.error.empty(), "parse_setting: an error exactly when rejected");
  const bool password_ok = wk::hash::check_password(password).empty();
  const bool cstring_safe = setting.find('\0') == std::string_view::npos;

  if (!parsed.setting) {
    // libxcrypt must reject it as well (for every method: warpkit's rejections are a subset).
    if (password_ok && cstring_safe && wk::hash::crypt_libxcrypt(setting, password))
      fail("warpkit rejects a setting libxcrypt accepts: " + parsed.error);
    return 0;
  }
  const wk::hash::Setting& s = *parsed.setting;
  if (!warpkit_computes(s.method)) return 0;  // libxcrypt decides on the other methods later
  if (s.method == wk::hash::Method::yescrypt || s.method == wk::hash::Method::scrypt) {
    // memory-hard: up to 1 MiB of V, a few lanes and time-cost passes (libxcrypt does the same work)
    const wk::hash::YescryptParams& y = s.yescrypt;
    if (y.n_log2 > 13 || (std::uint64_t(128) * y.r << y.n_log2) > (std::uint64_t(1) << 20) || y.p > 4 || y.t > 3) return -1;
  }

  check(s.method == wk::hash::Method::bcrypt || (!s.prefix.empty() && s.prefix.back() == '$'), "prefix ends in '$'");
  if (!password_ok) {
    try {
      (void)wk::hash::crypt_warpkit_host(s, password);
    } catch (const wk::Error& e) {
      check(e.category() == wk::ErrorCategory::usage, "a bad password is a usage error");
      return 0;
    }
    fail("crypt_warpkit_host took a password check_password rejects");
  }
  const std::string ours = wk::hash::crypt_warpkit_host(s, password);
  check(ours.rfind(s.prefix, 0) == 0, "the hash starts with the setting's prefix");
  if (!cstring_safe) return 0;  // libxcrypt would see a shorter C string
  const auto ref = wk::hash::crypt_libxcrypt(setting, password);
  if (!ref) fail("warpkit accepts a setting libxcrypt rejects; warpkit computed " + ours);
  if (*ref != ours) fail("hash differs from libxcrypt: warpkit " + ours + ", libxcrypt " + *ref);
  // The hash as a setting again: the same result (crypt(3) verification).
  const wk::hash::SettingParse again = wk::hash::parse_setting(ours);
  check(again.setting.has_value(), "warpkit's own hash parses as a setting");
  check(wk::hash::crypt_warpkit_host(*again.setting, password) == ours, "re-hashing with the hash as setting is stable");
  return 0;
}
