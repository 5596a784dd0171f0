// md5crypt ($1$, P.-H. Kamp's FreeBSD MD5 crypt): the setting (a salt of up to 8 characters, 1000
// rounds), its host code and its GPU batch on the round engine (kernels: md5crypt.cu).
#include "md5crypt.hpp"

#include <array>

#include "hash/gpu/round_batch.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/hd/shacrypt.hpp"
#include "hash/methods/setting_text.hpp"
#include "md5crypt_gpu.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash {

namespace {

SettingParse parse(std::string_view text) {
  Setting s;
  s.method = Method::md5crypt;
  s.rounds = hd::kMd5Rounds;
  s.salt = salt_before_dollar(text.substr(3), hd::kMaxMd5SaltBytes);
  s.prefix = "$1$" + s.salt + "$";
  return {std::move(s), {}};
}

FreshShape fresh_shape(const HashOptions&) {
  FreshShape s;
  s.head = "$1$";
  s.salt_chars = hd::kMaxMd5SaltBytes;
  s.salt_bytes = crypt_salt_bytes(s.salt_chars);
  s.rounds = hd::kMd5Rounds;
  return s;
}

void host_hash(const Setting& s, std::string_view password, std::string& out) {
  std::uint8_t c[16];
  hd::md5crypt_digest(reinterpret_cast<const std::uint8_t*>(password.data()), std::uint32_t(password.size()),
                      reinterpret_cast<const std::uint8_t*>(s.salt.data()), std::uint32_t(s.salt.size()), c);
  char chars[hd::kMd5cryptHashChars];
  hd::encode_md5crypt(c, chars);
  out.append(chars, sizeof chars);
  wipe(c, sizeof c);
}

std::unique_ptr<gpu::MethodBatch> make_batch(gpu::BatchCore& core) {
  return gpu::make_round_batch(core, gpu::detail::md5crypt_kernels());
}

constexpr gpu::GpuMethod kGpu{gpu::kRoundVariants, gpu::Variant::blocks_shared, std::size_t(1) << 21, make_batch, true};

// Computed with libxcrypt 4.4.33's crypt_rn: the short-password kernel and the two-block one.
constexpr std::array<KnownAnswer, 2> kSelfTest{{
    {"$1$kq2XJbFc", "warpkit self-check", "$1$kq2XJbFc$eG00QsM1tnLHcdqIxLaqb/"},
    {"$1$kq2XJbFc", "a passphrase long enough for the two-block md5crypt kernel, 60b",
     "$1$kq2XJbFc$BiLc7JW4J5Lg3qJuVwCWl0"},
}};

}  // namespace

constinit const MethodModule md5crypt_module{
    .id = Method::md5crypt,
    .name = "md5crypt",
    .prefix = "$1$",
    .formats = "$1$",
    .takes_rounds = false,
    .takes_cost = false,
    .takes_variant = false,
    .claims = nullptr,
    .parse = parse,
    .check_options = nullptr,
    .fresh_shape = fresh_shape,
    .salt_text = crypt_salt_text,
    .hash_chars = hd::kMd5cryptHashChars,
    .dollar_before_hash = true,
    .host_hash = host_hash,
    .gpu = &kGpu,
    .self_test = kSelfTest,
};

}  // namespace wk::hash
