// yescrypt ($y$) and scrypt ($7$) as libxcrypt computes them: the two modules over one setting
// reader and one KDF (yescrypt_text.hpp, hash/hd/yescrypt.hpp).
#include "yescrypt.hpp"

#include <array>

#include "hash/gpu/method_batch.hpp"
#include "hash/hd/yescrypt.hpp"
#include "yescrypt_batch.hpp"
#include "yescrypt_text.hpp"

namespace wk::hash {

namespace {

namespace yt = yescrypt_text;

constexpr unsigned kYescryptDefaultCost = 5;  // crypt_gensalt's: "j9T", N = 4096, r = 32 (16 MiB)
constexpr unsigned kScryptDefaultCost = 7;    // crypt_gensalt's: N = 16384, r = 32, p = 1 (64 MiB)

// Each module claims the settings of its own prefix that warpkit computes (yescrypt_text.hpp).
bool claims_prefix(std::string_view text, char letter) {
  Setting s;
  return text.size() >= 3 && text[1] == letter && yt::read_setting(text, s);
}
bool claims_yescrypt(std::string_view text) { return claims_prefix(text, 'y'); }
bool claims_scrypt(std::string_view text) { return claims_prefix(text, '7'); }

SettingParse parse(std::string_view text) {
  Setting s;
  if (!yt::read_setting(text, s)) return {std::nullopt, "the setting is not one warpkit computes"};  // never: claimed
  return {std::move(s), {}};
}

std::optional<HashOptionsProblem> check_yescrypt(const HashOptions& o) {
  const unsigned cost = o.cost.value_or(kYescryptDefaultCost);
  if (cost < 1 || cost > 11) return HashOptionsProblem{HashOption::cost, "yescrypt cost must be in 1..11"};
  return std::nullopt;
}

std::optional<HashOptionsProblem> check_scrypt(const HashOptions& o) {
  const unsigned cost = o.cost.value_or(kScryptDefaultCost);
  if (cost < 6 || cost > 11) return HashOptionsProblem{HashOption::cost, "scrypt cost must be in 6..11"};
  return std::nullopt;
}

FreshShape shape_of(std::string head) {
  FreshShape s;
  s.head = std::move(head);
  s.salt_bytes = 16;  // crypt_gensalt's 128 bits
  s.salt_chars = 22;
  return s;
}

// "$y$j9T$": the default flavour, N and r of the cost (yescrypt_encode_params_r).
FreshShape fresh_yescrypt(const HashOptions& o) {
  const yt::CostParams c = yt::yescrypt_cost(o.cost.value_or(kYescryptDefaultCost));
  const std::uint32_t flavor = hd::yescrypt::kRw + (hd::yescrypt::kDefaultFlavor >> 2);
  return shape_of("$y$" + yt::encode_uint(flavor, 0) + yt::encode_uint(c.n_log2, 1) + yt::encode_uint(c.r, 1) + "$");
}

// "$7$" + N, r and p = 1 of the cost (gensalt_scrypt_rn).
FreshShape fresh_scrypt(const HashOptions& o) {
  const yt::CostParams c = yt::scrypt_cost(o.cost.value_or(kScryptDefaultCost));
  return shape_of(yt::scrypt_head(c.n_log2, c.r, 1));
}

// The rungs (crypt_gpu.hpp describes them); lanes is the fastest measured for both methods.
constexpr std::array<gpu::VariantInfo, 2> kYescryptVariants{{
    {gpu::Variant::reference, "reference", "one thread per hash, the host code on global memory"},
    {gpu::Variant::yescrypt_lanes, "lanes", "4 threads per hash (pwxform's gather lanes), S-boxes and block in shared memory"},
}};
constexpr std::array<gpu::VariantInfo, 2> kScryptVariants{{
    {gpu::Variant::reference, "reference", "one thread per hash, the host code on global memory"},
    {gpu::Variant::scrypt_lanes, "lanes", "4 threads per hash, block in registers, Salsa20/8 rows by warp shuffles (r <= 8)"},
}};
// Jobs per batch: several waves of the ~2000 hashes in flight at the default cost.
constexpr gpu::GpuMethod kYescryptGpu{kYescryptVariants, gpu::Variant::yescrypt_lanes, std::size_t(1) << 14,
                                      gpu::make_yescrypt_batch};
constexpr gpu::GpuMethod kScryptGpu{kScryptVariants, gpu::Variant::scrypt_lanes, std::size_t(1) << 14,
                                    gpu::make_yescrypt_batch};

// Computed with libxcrypt 4.4.33's crypt_rn: yescrypt's lowest and default costs (the lanes
// kernel, the prehash), scrypt with p = 1 and p = 2 (the lanes kernel's lane loop).
constexpr std::array<KnownAnswer, 2> kYescryptSelfTest{{
    {"$y$j75$abcdefghijklmnopqrstu/", "warpkit self-check",
     "$y$j75$abcdefghijklmnopqrstu/$pqBk42XU5zSgtQNLQ.mdZ4dgoQ7CZtU17hUPNOUNmi1"},
    {"$y$j9T$MOoTVZuCBIRyY8cfTIJxE1", "a passphrase of 40 bytes for the check!",
     "$y$j9T$MOoTVZuCBIRyY8cfTIJxE1$R4CohXmVAE.dCcqOjZMWloC2uNQMduTxb7gqucJvLXD"},
}};
constexpr std::array<KnownAnswer, 2> kScryptSelfTest{{
    {"$7$A/..../....abcdefghijklmnop", "warpkit self-check",
     "$7$A/..../....abcdefghijklmnop$wEdGMbdQ7jNUAVkMAbEy8Pg9XYLtkN6LtjicQ8ZghE1"},
    // p = 2, a password longer than an HMAC key block
    {"$7$5/....0....p2saltX", "a passphrase longer than one HMAC key block of sixty-four bytes, 76 bytes",
     "$7$5/....0....p2saltX$ZMDYo1rrhJCiKb/uUv2I5LxjlbwhkejeoBBWjSsTix8"},
}};

}  // namespace

constinit const MethodModule yescrypt_module{
    .id = Method::yescrypt,
    .name = "yescrypt",
    .prefix = "$y$",
    .formats = "$y$ (cost 1..11, default 5 = j9T)",
    .takes_rounds = false,
    .takes_cost = true,
    .takes_variant = false,
    .claims = claims_yescrypt,
    .parse = parse,
    .check_options = check_yescrypt,
    .fresh_shape = fresh_yescrypt,
    .salt_text = yt::salt16_text,
    .hash_chars = hd::yescrypt::kHashChars,
    .dollar_before_hash = true,
    .host_hash = yt::host_hash,
    .gpu = &kYescryptGpu,
    .self_test = kYescryptSelfTest,
};

constinit const MethodModule scrypt_module{
    .id = Method::scrypt,
    .name = "scrypt",
    .prefix = "$7$",
    .formats = "$7$ (cost 6..11, default 7 = N 2^14, r 32)",
    .takes_rounds = false,
    .takes_cost = true,
    .takes_variant = false,
    .claims = claims_scrypt,
    .parse = parse,
    .check_options = check_scrypt,
    .fresh_shape = fresh_scrypt,
    .salt_text = yt::salt16_text,
    .hash_chars = hd::yescrypt::kHashChars,
    .dollar_before_hash = true,
    .host_hash = yt::host_hash,
    .gpu = &kScryptGpu,
    .self_test = kScryptSelfTest,
};

}  // namespace wk::hash
