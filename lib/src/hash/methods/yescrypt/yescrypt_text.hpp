#pragma once
// What the yescrypt ($y$) and scrypt ($7$) modules share: reading their settings with libxcrypt's
// rules (yescrypt_r in alg-yescrypt-common.c), the KDF's parameters, and the host hash.
//
// A module claims a setting only when warpkit computes it exactly as libxcrypt does: parameters
// libxcrypt's KDF accepts without a ROM or hash upgrades (g), at most kMaxVBytes of V, and a
// salt of the crypt alphabet. Every other $y$ / $7$ setting stays Method::other, so libxcrypt
// computes or rejects it on the CPU -- the output stays byte-identical either way.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "hash/hd/yescrypt.hpp"
#include "wk/hash/setting.hpp"

namespace wk::hash::yescrypt_text {

// The largest V warpkit computes itself: 1 GiB (libxcrypt's cost 11 uses 1 GiB).
inline constexpr std::uint64_t kMaxVBytes = std::uint64_t(1) << 30;
// libxcrypt's CRYPT_OUTPUT_SIZE: setting, '$', 43 hash characters and a NUL must fit.
inline constexpr std::size_t kMaxSettingChars = 384 - 1 - 43 - 1;

// The setting read as libxcrypt reads it: method yescrypt or scrypt, the parameters, the KDF's
// salt and the prefix of the output. false when this module does not compute it (see above).
bool read_setting(std::string_view text, Setting& out);

hd::yescrypt::Params kdf_params(const YescryptParams& p);

// The 43 hash characters of `password` under the parsed setting, appended to `out`; every
// buffer that held password-derived bytes is wiped.
void host_hash(const Setting& s, std::string_view password, std::string& out);

// crypt_gensalt's parameters for a cost ("count"): yescrypt 1..11 (r = 8 below 3), scrypt 6..11.
struct CostParams {
  std::uint32_t n_log2, r;
};
CostParams yescrypt_cost(unsigned cost);
CostParams scrypt_cost(unsigned cost);

// yescrypt's variable-length number encoding (encode64_uint32 with a minimum): the parameter
// characters of "$y$j9T$".
std::string encode_uint(std::uint32_t value, std::uint32_t min);
// "$7$" + N's log2 as one character, r and p as 5 characters each (30 bits, least significant
// first): the parameters of a scrypt setting (gensalt_scrypt_rn).
std::string scrypt_head(std::uint32_t n_log2, std::uint32_t r, std::uint32_t p);
// 22 characters of the crypt alphabet for a 16-byte salt, as encode64 writes it.
void salt16_text(char* out, const unsigned char* random, std::size_t chars);

}  // namespace wk::hash::yescrypt_text
