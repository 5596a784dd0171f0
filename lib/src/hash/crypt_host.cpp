// One crypt(3) hash on the host: through libxcrypt (the reference) or through warpkit's own
// host/device code compiled for the host (what CI tests against libxcrypt).
#include <crypt.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/hash/crypt.hpp"
#include "hash/hd/bcrypt.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/hd/shacrypt.hpp"

namespace wk::hash {

void wipe(void* data, std::size_t bytes) noexcept {
  if (data && bytes) OPENSSL_cleanse(data, bytes);
}

void wipe_on_all_cores(void* data, std::size_t bytes) noexcept {
  constexpr std::size_t kPiece = std::size_t(1) << 20;
  auto* p = static_cast<unsigned char*>(data);
  if (!p || bytes == 0) return;
  try {
    parallel_for((bytes + kPiece - 1) / kPiece, 1, [&](std::size_t begin, std::size_t end) {
      for (std::size_t q = begin; q < end; ++q) OPENSSL_cleanse(p + q * kPiece, std::min(kPiece, bytes - q * kPiece));
    });
  } catch (...) {
    OPENSSL_cleanse(p, bytes);
  }
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  // Compare over the longer length so the time depends only on the (public) lengths.
  const std::size_t n = std::max(a.size(), b.size());
  if (n == 0) return true;
  std::vector<unsigned char> x(n, 0), y(n, 0);
  std::copy(a.begin(), a.end(), x.begin());
  std::copy(b.begin(), b.end(), y.begin());
  const bool same_bytes = CRYPTO_memcmp(x.data(), y.data(), n) == 0;
  return same_bytes && a.size() == b.size();
}

std::optional<std::string> crypt_libxcrypt(std::string_view setting, std::string_view password) {
  if (password.size() >= CRYPT_MAX_PASSPHRASE_SIZE || password.find('\0') != std::string_view::npos) return std::nullopt;
  if (setting.find('\0') != std::string_view::npos) return std::nullopt;
  // crypt_rn wants C strings: copy into buffers that are wiped before they are freed.
  auto data = std::make_unique<crypt_data>();
  char pw[CRYPT_MAX_PASSPHRASE_SIZE];
  std::copy(password.begin(), password.end(), pw);
  pw[password.size()] = '\0';
  const std::string set(setting);
  const char* r = crypt_rn(pw, set.c_str(), data.get(), int(sizeof(crypt_data)));
  std::optional<std::string> out;
  if (r && r[0] != '*') out = std::string(r);
  OPENSSL_cleanse(pw, sizeof pw);
  OPENSSL_cleanse(data.get(), sizeof(crypt_data));
  return out;
}

std::string crypt_warpkit_host(const Setting& s, std::string_view password) {
  if (const std::string why = check_password(password); !why.empty()) throw Error(ErrorCategory::usage, why);
  const auto* pw = reinterpret_cast<const std::uint8_t*>(password.data());
  const auto pl = std::uint32_t(password.size());
  const auto* salt = reinterpret_cast<const std::uint8_t*>(s.salt.data());
  const auto sl = std::uint32_t(s.salt.size());
  std::string out = s.prefix;
  switch (s.method) {
    case Method::md5crypt: {
      std::uint8_t c[16];
      hd::md5crypt_digest(pw, pl, salt, sl, c);
      char chars[hd::kMd5cryptHashChars];
      hd::encode_md5crypt(c, chars);
      out.append(chars, sizeof chars);
      wipe(c, sizeof c);
      break;
    }
    case Method::sha256crypt: {
      std::uint8_t c[32], p[hd::kMaxPasswordBytes];
      hd::shacrypt_digest<hd::Sha256Traits>(pw, pl, salt, sl, s.rounds, p, c);
      char chars[hd::kSha256cryptHashChars];
      hd::encode_sha256crypt(c, chars);
      out.append(chars, sizeof chars);
      wipe(p, sizeof p);
      wipe(c, sizeof c);
      break;
    }
    case Method::sha512crypt: {
      std::uint8_t c[64], p[hd::kMaxPasswordBytes];
      hd::shacrypt_digest<hd::Sha512Traits>(pw, pl, salt, sl, s.rounds, p, c);
      char chars[hd::kSha512cryptHashChars];
      hd::encode_sha512crypt(c, chars);
      out.append(chars, sizeof chars);
      wipe(p, sizeof p);
      wipe(c, sizeof c);
      break;
    }
    case Method::bcrypt: {
      std::vector<std::uint32_t> sboxes(blowfish::kSWords);
      std::uint32_t salt_words[4], words[6];
      hd::bcrypt_salt_words(s.bcrypt_salt.data(), salt_words);
      hd::bcrypt_digest(pw, pl, salt_words, s.rounds, hd::bcrypt_flags(s.bcrypt_variant),
                        blowfish::LinearSBoxes{sboxes.data()}, words);
      std::uint8_t bytes[24];
      for (int i = 0; i < 24; ++i) bytes[i] = std::uint8_t(words[i >> 2] >> (24 - 8 * (i & 3)));
      char chars[32];
      hd::bcrypt_b64_encode(chars, bytes, 23);
      out.append(chars, hd::kBcryptHashChars);
      wipe(sboxes.data(), sboxes.size() * 4);
      wipe(bytes, sizeof bytes);
      break;
    }
    case Method::other:
      throw Error(ErrorCategory::unsupported, "warpkit computes md5crypt, sha256crypt, sha512crypt and bcrypt only");
  }
  return out;
}

}  // namespace wk::hash
