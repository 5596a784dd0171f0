// sha512crypt ($6$, U. Drepper, "Unix crypt using SHA-256 and SHA-512"): the setting (optional
// rounds=N, a salt of up to 16 characters; shacrypt_family.cpp), its host code and its GPU batch
// on the round engine (kernels: sha512crypt.cu).
#include "sha512crypt.hpp"

#include <array>

#include "hash/gpu/round_batch.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/methods/setting_text.hpp"
#include "hash/methods/shacrypt_family.hpp"
#include "sha512crypt_gpu.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash {

namespace {

constexpr const char* kName = "sha512crypt";
constexpr const char* kTag = "$6$";

SettingParse parse(std::string_view text) { return parse_shacrypt(Method::sha512crypt, kName, kTag, text); }

FreshShape fresh_shape(const HashOptions& options) { return shacrypt_fresh_shape(kTag, options); }

std::unique_ptr<gpu::MethodBatch> make_batch(gpu::BatchCore& core) {
  return gpu::make_round_batch(core, gpu::detail::sha512crypt_kernels());
}

constexpr gpu::GpuMethod kGpu{gpu::kRoundVariants, gpu::Variant::blocks_shared, std::size_t(1) << 19, make_batch, true};

// Computed with libxcrypt 4.4.33's crypt_rn: the short-password kernel and the two-block one.
constexpr std::array<KnownAnswer, 2> kSelfTest{{
    {"$6$Xc8vTe2LqR5uJm0A", "warpkit self-check",
     "$6$Xc8vTe2LqR5uJm0A$baLN..SFZLjyAtz7qyxaTVW/.ogA6FjuaK6YK8GxIBgjArm/bAPkIFrxWb6EgLmMpZ7FLnNPlbME6Bk9qaA5n1"},
    {"$6$rounds=1000$Xc8vTe2LqR5uJm0A",
     "a passphrase long enough for the two-block sha512crypt kernel, well past 64 bytes of it",
     "$6$rounds=1000$Xc8vTe2LqR5uJm0A$JTQOooEYKYnUquQSOeBxFzqikk5Ml5yJGp9Cy/0tmKcdj73YQMvyfxG3qf.Dfjg9A9zMhsKjmz.MYXS7fxpaV."},
}};

}  // namespace

constinit const MethodModule sha512crypt_module{
    .id = Method::sha512crypt,
    .name = kName,
    .prefix = kTag,
    .formats = "$6$, optional rounds=N",
    .takes_rounds = true,
    .takes_cost = false,
    .takes_variant = false,
    .claims = nullptr,
    .parse = parse,
    .check_options = check_shacrypt_options,
    .fresh_shape = fresh_shape,
    .salt_text = crypt_salt_text,
    .hash_chars = hd::kSha512cryptHashChars,
    .dollar_before_hash = true,
    .host_hash = shacrypt_host_hash<hd::Sha512Traits, hd::kSha512cryptHashChars, hd::encode_sha512crypt>,
    .gpu = &kGpu,
    .self_test = kSelfTest,
};

}  // namespace wk::hash
