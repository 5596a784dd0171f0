// sha256crypt ($5$, U. Drepper, "Unix crypt using SHA-256 and SHA-512"): the setting (optional
// rounds=N, a salt of up to 16 characters; shacrypt_family.cpp), its host code and its GPU batch
// on the round engine (kernels: sha256crypt.cu).
#include "sha256crypt.hpp"

#include <array>

#include "hash/gpu/round_batch.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/methods/setting_text.hpp"
#include "hash/methods/shacrypt_family.hpp"
#include "sha256crypt_gpu.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash {

namespace {

constexpr const char* kName = "sha256crypt";
constexpr const char* kTag = "$5$";

SettingParse parse(std::string_view text) { return parse_shacrypt(Method::sha256crypt, kName, kTag, text); }

FreshShape fresh_shape(const HashOptions& options) { return shacrypt_fresh_shape(kTag, options); }

std::unique_ptr<gpu::MethodBatch> make_batch(gpu::BatchCore& core) {
  return gpu::make_round_batch(core, gpu::detail::sha256crypt_kernels());
}

constexpr gpu::GpuMethod kGpu{gpu::kRoundVariants, gpu::Variant::blocks_shared, std::size_t(1) << 19, make_batch, true};

// Computed with libxcrypt 4.4.33's crypt_rn: the short-password kernel and the three-block one.
constexpr std::array<KnownAnswer, 2> kSelfTest{{
    {"$5$Zg1hQy9cO3pWbN7E", "warpkit self-check", "$5$Zg1hQy9cO3pWbN7E$C2ZEgaL1HJUhlL8e2YbfMJsfJJdfzpCX5MozbyxV/4A"},
    {"$5$rounds=1000$Zg1hQy9cO3pWbN7E", "a passphrase long enough for the three-block sha256crypt kernel",
     "$5$rounds=1000$Zg1hQy9cO3pWbN7E$8/ugkOKDU6vflqMq.FdQQkCZMYJesceR6jRYmYP77x6"},
}};

}  // namespace

constinit const MethodModule sha256crypt_module{
    .id = Method::sha256crypt,
    .name = kName,
    .prefix = kTag,
    .formats = "$5$",
    .takes_rounds = true,
    .takes_cost = false,
    .takes_variant = false,
    .claims = nullptr,
    .parse = parse,
    .check_options = check_shacrypt_options,
    .fresh_shape = fresh_shape,
    .salt_text = crypt_salt_text,
    .hash_chars = hd::kSha256cryptHashChars,
    .dollar_before_hash = true,
    .host_hash = shacrypt_host_hash<hd::Sha256Traits, hd::kSha256cryptHashChars, hd::encode_sha256crypt>,
    .gpu = &kGpu,
    .self_test = kSelfTest,
};

}  // namespace wk::hash
