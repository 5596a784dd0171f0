#pragma once
// crypt(3) settings: parsing with exactly libxcrypt 4.4's acceptance rules for the four formats
// warpkit computes itself, formatting, and fresh settings with salts from OpenSSL's CSPRNG.
//
// A "setting" is what crypt(3) takes besides the password: "$6$rounds=10000$SALT", or a whole
// crypt string ("$6$SALT$HASH"), whose hash part is then ignored.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wk::hash {

enum class Method {
  md5crypt,     // $1$
  sha256crypt,  // $5$
  sha512crypt,  // $6$
  bcrypt,       // $2a$ $2b$ $2x$ $2y$
  yescrypt,     // $y$
  scrypt,       // $7$
  other,        // anything else: descrypt, $gy$, ... (libxcrypt only)
};

const char* method_name(Method m) noexcept;  // "md5crypt", ..., "other"
// The name of a method of the table ("md5crypt", ..., "yescrypt", "scrypt"); nullopt otherwise.
std::optional<Method> parse_method_name(std::string_view name);

// A method warpkit computes itself (GPU and CPU), as a front end lists it and checks its options.
struct MethodInfo {
  Method id;
  const char* name;      // "sha512crypt"
  const char* formats;   // the settings it takes, for help texts: "$6$, optional rounds=N"
  bool takes_rounds;     // HashOptions::rounds applies
  bool takes_cost;       // HashOptions::cost applies
  bool takes_variant;    // HashOptions::bcrypt_variant applies
};
// In the order of the library's method table: md5crypt, sha256crypt, sha512crypt, bcrypt,
// yescrypt, scrypt.
std::span<const MethodInfo> computed_methods();

// yescrypt's parameters as a $y$ or $7$ setting carries them (yescrypt_params_t without ROM).
struct YescryptParams {
  std::uint32_t flags = 0;   // 0 (classic scrypt), 1 (WORM) or 0xb6 (RW, yescrypt's default flavour)
  std::uint32_t n_log2 = 0;  // N = 2^n_log2
  std::uint32_t r = 0, p = 1, t = 0;
};

struct Setting {
  Method method = Method::other;
  // md5crypt / sha-crypt: the salt characters actually used (at most 8 / 16). yescrypt: the salt's
  // decoded bytes; scrypt: its characters (the KDF's salt either way).
  std::string salt;
  // sha-crypt: the round count (5000 unless rounds=N); md5crypt: 1000; bcrypt: the cost.
  std::uint32_t rounds = 0;
  bool rounds_custom = false;         // sha-crypt: "rounds=N$" present (then it is echoed)
  char bcrypt_variant = 0;            // 'a', 'b', 'x' or 'y'
  std::array<std::uint8_t, 16> bcrypt_salt{};  // the decoded 128-bit salt
  YescryptParams yescrypt;            // yescrypt and scrypt
  // The output's text before the hash: "$6$rounds=10000$SALT$", "$1$SALT$", or for bcrypt
  // "$2b$05$" plus the 22 salt characters in canonical form; yescrypt / scrypt: the setting up to
  // its salt's end, then '$'. Empty for Method::other.
  std::string prefix;
};

struct SettingParse {
  std::optional<Setting> setting;  // set when accepted
  std::string error;               // why not, for a user (never contains the setting's bytes
                                   // beyond its method prefix)
};

// Method::other settings are accepted here untouched (libxcrypt decides on them later), except
// that characters libxcrypt never accepts in any setting are rejected for all methods.
SettingParse parse_setting(std::string_view text);

// Empty when libxcrypt would take the password; else the reason (length >= 512, a NUL byte).
std::string check_password(std::string_view password);

struct HashOptions {
  Method method = Method::yescrypt;     // libxcrypt's and mkpasswd's default
  std::optional<std::uint32_t> rounds;  // sha-crypt only: 1000..999999999; echoed as rounds=N
  // bcrypt: 4..31; yescrypt: 1..11; scrypt: 6..11 (crypt_gensalt's count). Unset: the method's
  // default as libxcrypt has it (bcrypt 5, yescrypt 5 = "j9T", scrypt 7).
  std::optional<unsigned> cost;
  char bcrypt_variant = 'b';
};
// The option a HashOptionsProblem is about; a front end names it in its own terms (a flag).
enum class HashOption { method, rounds, cost, bcrypt_variant };
struct HashOptionsProblem {
  HashOption option;
  std::string message;  // in the library's terms: "bcrypt cost must be in 4..31"
};
// The first option that does not fit the method, and why; nullopt when they all fit.
std::optional<HashOptionsProblem> hash_options_problem(const HashOptions& options);
// Throws wk::Error{usage} with hash_options_problem's message for options that do not fit.
void check_hash_options(const HashOptions& options);
// A fresh setting with a random salt (16 characters for sha-crypt, 8 for md5crypt, 128 bits for
// bcrypt) from OpenSSL's RAND_bytes. Throws wk::Error{internal} if the CSPRNG fails.
std::string generate_setting(const HashOptions& options);
// `count` fresh settings, the salts drawn with one RAND_bytes call per few thousand (what wk-hash
// draws per slice of input; one call per salt costs more than the formatting).
std::vector<std::string> generate_settings(const HashOptions& options, std::size_t count);

// The fixed-size form of the same (wk-hash hash): every setting of one HashOptions has the same
// length, generated_setting_bytes(options) ("$1$" + 8 salt characters = 11, "$6$" + 16 = 19,
// "$6$rounds=N$" + 16, "$2b$05$" + 22 = 29), and so has every crypt string made from one,
// crypt_string_bytes(options) (34, 63 / 106 + the rounds=N$ part, 60).
std::size_t generated_setting_bytes(const HashOptions& options);
std::size_t crypt_string_bytes(const HashOptions& options);
// `count` fresh settings written back to back into out[0 .. count * generated_setting_bytes)
// (no separator, no NUL): the same text generate_settings makes, with no object per setting.
// Salts drawn from RAND_bytes in one call per 64 KiB. Thread-safe (wk-hash calls it on all cores).
void generate_settings_into(const HashOptions& options, std::size_t count, char* out);

}  // namespace wk::hash
