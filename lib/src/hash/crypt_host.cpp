// One crypt(3) hash on the host: through libxcrypt (the reference) or through warpkit's own
// host/device code compiled for the host (each method module's host_hash; what CI tests against
// libxcrypt). The wipes and the constant-time comparison the engine and the apps use.
#include <crypt.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "hash/methods/method_module.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/hash/crypt.hpp"

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
  const MethodModule* mod = find_module(s.method);
  if (!mod) throw Error(ErrorCategory::unsupported, "warpkit computes " + module_names(" and ") + " only");
  std::string out = s.prefix;
  mod->host_hash(s, password, out);
  return out;
}

}  // namespace wk::hash
