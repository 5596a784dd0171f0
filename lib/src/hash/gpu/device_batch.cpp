// DeviceBatch: packs jobs of one method (grouped by kernel configuration and length), uploads
// them from pinned staging, runs the set-up / round / final launches, reads the hashes back and
// wipes every buffer that held password-derived bytes.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <numeric>
#include <tuple>

#include "crypt_launch.hpp"
#include "gpu_runner.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "hash/hd/bcrypt.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/hd/shacrypt.hpp"

namespace wk::hash::gpu {

using namespace detail;

namespace {

constexpr std::array<VariantInfo, 4> kShaVariants{{
    {Variant::reference, "reference", "host code ported: byte-streaming hasher per round, local memory, input order"},
    {Variant::blocks_unsorted, "blocks_unsorted", "rounds as register blocks from global templates, input order"},
    {Variant::blocks_global, "blocks_global", "register blocks, global templates, grouped by length"},
    {Variant::blocks_shared, "blocks_shared", "register blocks, shared-memory templates, grouped by length"},
}};
constexpr std::array<VariantInfo, 5> kBcryptVariants{{
    {Variant::reference, "reference", "S-boxes in thread-private local memory"},
    {Variant::bcrypt_shared, "shared", "S-boxes in shared memory, 8 threads/block, conflict-free"},
    {Variant::bcrypt_shared16, "shared16", "S-boxes in shared memory, 16 threads/block, conflict-free"},
    {Variant::bcrypt_shared_bytes, "shared_bytes", "shared, lookups as byte offsets from a per-thread base"},
    {Variant::bcrypt_packed, "packed", "byte offsets, 14 threads/block: 56 passwords' S-boxes per SM"},
}};

// Rounds per launch: each launch stays well under a second for a full batch (5000-round
// sha512crypt on 2^19 passwords: about 0.6 s per 1000 rounds at the target rate).
constexpr std::uint32_t kDefaultRoundsPerLaunch = 1000;

// Launch parts. Each range's jobs are split into up to kLaunchParts parts of whole thread blocks,
// and each part's launches (set-up, rounds, final) go on a stream of its own. On one stream a
// launch starts only when the one before it has finished, and a launch ends slowly: the warp
// scheduler favours the oldest warps, so the warps sharing an SM do not finish together, and the
// last ones run with the SM half idle. With three sequences in flight the next launch of another
// part fills those SMs. H100, sha512crypt class S: 883 -> 930 kH/s on 65536 jobs, 927 -> 958 on
// 2^18 (a probe of the round kernel alone; docs/apod/hash.md, "Where the kernels stand").
// WK_LAUNCH_PARTS exists for that measurement (1: the single stream of before).
#ifndef WK_LAUNCH_PARTS
#define WK_LAUNCH_PARTS 3
#endif
constexpr int kLaunchParts = WK_LAUNCH_PARTS;
// With a progress callback, a step's fraction is reported once its launches have finished on every
// part, while the next kStepsAhead steps are already queued: the GPU does not wait for the host.
constexpr int kStepsAhead = 2;

const ShaKernels& kernels_for(Method m) {
  switch (m) {
    case Method::md5crypt: return md5crypt_kernels();
    case Method::sha256crypt: return sha256crypt_kernels();
    case Method::sha512crypt: return sha512crypt_kernels();
    default: break;
  }
  throw Error(ErrorCategory::internal, "no round kernels for this method");
}

// Host staging for several device arrays in one pinned buffer (one allocation, wiped once).
struct Staging {
  std::vector<std::pair<std::size_t, std::size_t>> parts;  // offset, bytes
  std::size_t total = 0;
  std::size_t add(std::size_t bytes) {
    total = (total + 15) & ~std::size_t(15);
    parts.emplace_back(total, bytes);
    total += bytes;
    return parts.size() - 1;
  }
};

template <class T>
void upload(DeviceBuffer<T>& dst, const PinnedBuffer<std::uint8_t>& staging, const Staging& layout, std::size_t part,
            cudaStream_t stream) {
  const auto [off, bytes] = layout.parts[part];
  dst = DeviceBuffer<T>(std::max<std::size_t>(1, bytes / sizeof(T)), stream);
  if (bytes) WK_CUDA_CHECK(cudaMemcpyAsync(dst.get(), staging.get() + off, bytes, cudaMemcpyHostToDevice, stream));
}

template <class T>
void wipe_device(DeviceBuffer<T>& d, cudaStream_t stream) {
  if (d.get()) cudaMemsetAsync(d.get(), 0, d.bytes(), stream);
}

// Where a batch's jobs come from: a parsed Setting per job, or fixed-size records of fresh settings
// of one HashOptions (wk-hash hash), read in place -- no object per job.
struct JobSource {
  Method method = Method::other;
  std::span<const std::string_view> passwords;
  std::span<const Setting* const> settings;  // parsed settings; empty for records
  std::string_view records;                  // records: passwords.size() * record_bytes bytes
  std::size_t record_bytes = 0, salt_at = 0, salt_chars = 0;
  std::uint32_t rounds = 0;  // records: every job's round count (bcrypt: the cost)
  char bcrypt_variant = 0;   // records, bcrypt

  std::size_t size() const noexcept { return passwords.size(); }
  bool parsed() const noexcept { return !settings.empty() || records.empty(); }
  std::string_view salt(std::size_t i) const {
    return parsed() ? std::string_view(settings[i]->salt) : records.substr(i * record_bytes + salt_at, salt_chars);
  }
  std::uint32_t rounds_of(std::size_t i) const { return parsed() ? settings[i]->rounds : rounds; }
  char bcrypt_variant_of(std::size_t i) const { return parsed() ? settings[i]->bcrypt_variant : bcrypt_variant; }
  // bcrypt: the 16 salt bytes (records hold the 22 characters, canonical: generate_settings_into
  // encoded them from 16 random bytes).
  void bcrypt_salt(std::size_t i, std::uint8_t* out) const {
    if (parsed()) std::memcpy(out, settings[i]->bcrypt_salt.data(), 16);
    else if (!hd::bcrypt_b64_decode(out, records.data() + i * record_bytes + salt_at, 16))
      throw Error(ErrorCategory::internal, "DeviceBatch: a fresh bcrypt setting with a malformed salt");
  }
};

// The packed order of a batch whose jobs differ only in password length (records of fresh
// settings: one salt length, one round count), for the grouped rungs: by configuration key
// (cfg_of_length[pl] + 1: reference first), then by length, stable -- what the counting sort on
// the full key in pack_sha gives, but on all cores: per-chunk counts of each length, the
// chunks' starts in each length's group, a parallel scatter. `order` gets the jobs in packed
// order, `pw_at` (n + 1 entries) their password offsets; returns the groups of equal length.
struct LengthGroup {
  std::size_t first = 0, count = 0;  // packed positions
  std::size_t pl = 0;                // password bytes of every job in it
  int cfg = -1;                      // the configuration that fits (-1: reference)
};
std::vector<LengthGroup> order_by_length(std::span<const std::string_view> passwords, std::span<const int> cfg_of_length,
                                         std::vector<std::uint32_t>& order, std::vector<std::size_t>& pw_at) {
  const std::size_t n = passwords.size(), lengths = cfg_of_length.size();
  const std::size_t chunks = (n + kHostGrain - 1) / kHostGrain;
  std::vector<std::uint32_t> at(chunks * lengths, 0);  // per chunk and length: count, then next position
  parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    std::uint32_t* c = at.data() + begin / kHostGrain * lengths;
    for (std::size_t i = begin; i < end; ++i) ++c[passwords[i].size()];
  });
  std::vector<std::size_t> used;
  for (std::size_t pl = 0; pl < lengths; ++pl)
    for (std::size_t c = 0; c < chunks; ++c)
      if (at[c * lengths + pl]) {
        used.push_back(pl);
        break;
      }
  std::stable_sort(used.begin(), used.end(),
                   [&](std::size_t a, std::size_t b) { return cfg_of_length[a] + 1 < cfg_of_length[b] + 1; });
  std::vector<LengthGroup> groups;
  std::size_t next = 0;
  for (const std::size_t pl : used) {
    LengthGroup g;
    g.first = next;
    g.pl = pl;
    g.cfg = cfg_of_length[pl];
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::uint32_t k = at[c * lengths + pl];
      at[c * lengths + pl] = std::uint32_t(next);
      next += k;
    }
    g.count = next - g.first;
    groups.push_back(g);
  }
  order.resize(n);
  parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    std::uint32_t* c = at.data() + begin / kHostGrain * lengths;
    for (std::size_t i = begin; i < end; ++i) order[c[passwords[i].size()]++] = std::uint32_t(i);
  });
  // Offsets: within a group every password has the group's length.
  std::vector<std::size_t> group_bytes(groups.size() + 1, 0);
  for (std::size_t g = 0; g < groups.size(); ++g) group_bytes[g + 1] = group_bytes[g] + groups[g].count * groups[g].pl;
  pw_at.resize(n + 1);
  pw_at[n] = group_bytes.back();
  parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    std::size_t g = std::size_t(std::upper_bound(groups.begin(), groups.end(), begin,
                                                 [](std::size_t p, const LengthGroup& x) { return p < x.first; }) -
                                groups.begin()) - 1;
    for (std::size_t p = begin; p < end; ++p) {
      while (p >= groups[g].first + groups[g].count) ++g;
      pw_at[p] = group_bytes[g] + (p - groups[g].first) * groups[g].pl;
    }
  });
  return groups;
}

}  // namespace

// ---- PinnedPool ---------------------------------------------------------------------------------
struct PinnedPool::Impl {
  std::mutex mutex;
  std::vector<PinnedBuffer<std::uint8_t>> free;  // at most kKeep, smallest first
  // Enough for two buffers per batch of up to 16 slices in wk-hash's engine (4 by default;
  // WK_HASH_IN_ENGINE accepts up to 64, and beyond 16 buffers are dropped): a buffer dropped is a
  // cudaFreeHost, which waits for the whole device, i.e. for the other slices' kernels.
  static constexpr std::size_t kKeep = 32;
};

PinnedPool::PinnedPool() : impl_(std::make_unique<Impl>()) {}
PinnedPool::~PinnedPool() = default;

PinnedBuffer<std::uint8_t> PinnedPool::take(std::size_t bytes) {
  {
    std::lock_guard lock(impl_->mutex);
    auto& f = impl_->free;
    for (auto it = f.begin(); it != f.end(); ++it)
      if (it->bytes() >= bytes) {
        PinnedBuffer<std::uint8_t> b = std::move(*it);
        f.erase(it);
        return b;
      }
  }
  // A quarter more than asked, so that the next slice's slightly larger batch fits too.
  return PinnedBuffer<std::uint8_t>(std::max<std::size_t>(1, bytes + bytes / 4));
}

void PinnedPool::give(PinnedBuffer<std::uint8_t>&& buffer) {
  if (!buffer.get()) return;
  PinnedBuffer<std::uint8_t> dropped;  // freed outside the lock
  std::lock_guard lock(impl_->mutex);
  auto& f = impl_->free;
  const auto at = std::find_if(f.begin(), f.end(), [&](const auto& b) { return b.bytes() >= buffer.bytes(); });
  f.insert(at, std::move(buffer));
  if (f.size() > Impl::kKeep) {
    dropped = std::move(f.front());
    f.erase(f.begin());
  }
}

std::span<const VariantInfo> variants(Method method) {
  if (method == Method::bcrypt) return kBcryptVariants;
  return kShaVariants;
}

Variant default_variant(Method method) {
  // The fastest rungs measured on the H100 (docs/apod/hash.md).
  return method == Method::bcrypt ? Variant::bcrypt_packed : Variant::blocks_shared;
}

const char* variant_name(Variant v) noexcept {
  for (const auto& i : kShaVariants)
    if (i.variant == v) return i.name;
  for (const auto& i : kBcryptVariants)
    if (i.variant == v) return i.name;
  return "?";
}

Variant parse_variant(Method method, std::string_view name) {
  std::string names;
  for (const auto& v : variants(method)) {
    if (name == v.name) return v.variant;
    names += std::string(names.empty() ? "" : ", ") + v.name;
  }
  throw Error(ErrorCategory::usage,
              std::string(method_name(method)) + ": unknown variant '" + std::string(name) + "' (known: " + names + ")");
}

struct DeviceBatch::Impl {
  Method method = Method::other;
  Variant variant = Variant::reference;
  cudaStream_t stream = nullptr;
  std::size_t n = 0;
  PinnedPool* pool = nullptr;
  std::vector<std::uint32_t> order;  // order[p] = input index of the job at packed position p
  std::string prefixes;              // every job's prefix, back to back in input order
  std::vector<std::uint32_t> prefix_end;  // job i's prefix ends at prefix_end[i] (parsed settings)
  // Records of fresh settings: every prefix is the record (prefix_record bytes) and, for
  // md5crypt / sha-crypt, a '$' (the crypt string's separator before the hash).
  std::size_t prefix_record = 0;
  bool prefix_dollar = false;
  std::size_t prefix_bytes(std::size_t i) const {
    if (prefix_record) return prefix_record + (prefix_dollar ? 1 : 0);
    return prefix_end[i] - (i ? prefix_end[i - 1] : 0);
  }
  // Writes job i's prefix at dst; returns the end.
  char* write_prefix(std::size_t i, char* dst) const {
    if (prefix_record) {
      std::memcpy(dst, prefixes.data() + i * prefix_record, prefix_record);
      dst += prefix_record;
      if (prefix_dollar) *dst++ = '$';
      return dst;
    }
    const std::size_t from = i ? prefix_end[i - 1] : 0;
    std::memcpy(dst, prefixes.data() + from, prefix_end[i] - from);
    return dst + (prefix_end[i] - from);
  }
  int hash_chars = 0;
  int out_stride = kOutStride;  // d_out's and h_out's bytes per job: out_stride_for(hash_chars)
  PinnedBuffer<std::uint8_t> staging;
  // Set once the batch's stream has been waited for after its uploads (download_results): the
  // staging is no longer read by a copy, and the wipe need not wait for the device.
  bool staging_idle = false;
  PinnedBuffer<std::uint8_t> h_out;
  DeviceBuffer<char> d_out;

  // md5crypt / sha-crypt
  DeviceBuffer<std::uint8_t> d_pw, d_salt, d_sl, d_pseq, d_sseq;
  DeviceBuffer<std::uint32_t> d_pw_off, d_rounds, d_state, d_tmpl;
  DeviceBuffer<std::uint16_t> d_pl;
  std::vector<ShaRange> ranges;
  std::vector<std::uint32_t> range_rounds;  // the largest round count in each range
  ShaBatch sha;

  // bcrypt
  DeviceBuffer<std::uint8_t> d_bpw, d_bpl, d_cost, d_flags;
  DeviceBuffer<std::uint32_t> d_bsalt, d_bstate;
  BcryptBatch bc;
  std::uint64_t max_iterations = 0;

  std::uint32_t rounds_per_launch = kDefaultRoundsPerLaunch;
  std::uint64_t bcrypt_chunk = 0;  // 0: automatic

  // Launch parts 1.. run on part_streams (part 0 on the batch's stream), forked after the uploads
  // and joined back before the results are read (join_parts).
  std::vector<Stream> part_streams;
  Event forked{cudaEventDisableTiming};
  std::vector<Event> joined;                        // one per part stream
  std::vector<Event> step_done;                     // (kStepsAhead + 1) * kLaunchParts, for progress
  cudaStream_t part_stream(int q) const { return q == 0 ? stream : part_streams[std::size_t(q) - 1].get(); }
  void make_parts();
  void join_parts() noexcept;

  void init(const JobSource& src, Variant variant, cudaStream_t stream, PinnedPool* pool);
  void pack_sha(const JobSource& src);
  void pack_bcrypt(const JobSource& src);
  PinnedBuffer<std::uint8_t> pinned(std::size_t bytes) {
    return pool ? pool->take(bytes) : PinnedBuffer<std::uint8_t>(std::max<std::size_t>(1, bytes));
  }
  void wipe() noexcept;
};

void DeviceBatch::Impl::pack_sha(const JobSource& src) {
  const std::span<const std::string_view> passwords = src.passwords;
  const ShaKernels& k = kernels_for(method);
  hash_chars = k.hash_chars;
  // Packed order: by kernel configuration (the first block configuration that fits, else
  // reference) and, for the grouped rungs, by password length, salt length and round count,
  // stable. Each job's sort key and round count are gathered on all cores into compact arrays
  // (the serial passes below then read those, not the settings); a counting sort on the key --
  // one pass whatever the batch size --, then a stable sort by rounds inside each group whose
  // round counts differ (rare: they are equal unless the settings ask otherwise).
  const bool grouped = variant == Variant::blocks_global || variant == Variant::blocks_shared;
  // Records of fresh settings (one salt length, one round count) in a grouped rung: the key is a
  // function of the password length alone, and the order is made on all cores (order_by_length)
  // instead of the serial passes below (~3 ns per job on one core: ~1 ms of every wk-hash slice).
  const bool by_length = grouped && !src.parsed();
  std::vector<std::uint32_t> key, job_rounds;
  std::vector<std::size_t> pw_at;  // password offsets in packed order (n + 1)
  std::vector<LengthGroup> groups;
  if (by_length) {
    std::vector<int> cfg_of_length(std::size_t(hd::kMaxPasswordBytes) + 1, -1);
    for (std::size_t pl = 0; pl < cfg_of_length.size(); ++pl)
      for (int c = 0; c < k.config_count; ++c)
        if (k.fits(k.configs[c], int(pl), int(src.salt_chars))) {
          cfg_of_length[pl] = c;
          break;
        }
    groups = order_by_length(passwords, cfg_of_length, order, pw_at);
  } else {
    key.resize(n);
    job_rounds.resize(n);
    parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const std::size_t pl = passwords[i].size(), sl = src.salt(i).size();
        int cfg = -1;
        if (variant != Variant::reference)
          for (int c = 0; c < k.config_count; ++c)
            if (k.fits(k.configs[c], int(pl), int(sl))) {
              cfg = c;
              break;
            }
        const std::uint32_t c = std::uint32_t(cfg + 1);  // 0..config_count
        key[i] = grouped ? (c << 14) | std::uint32_t(pl << 5) | std::uint32_t(sl) : c;  // 511 bytes, 16 chars at most
        job_rounds[i] = src.rounds_of(i);
      }
    });
    {
      const std::size_t buckets = std::size_t(k.config_count + 1) << (grouped ? 14 : 0);
      std::vector<std::uint32_t> start(buckets + 1, 0);
      for (std::size_t i = 0; i < n; ++i) ++start[key[i] + 1];
      for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
      order.resize(n);
      for (std::size_t i = 0; i < n; ++i) order[start[key[i]]++] = std::uint32_t(i);
      if (grouped)
        for (std::size_t p = 0; p < n;) {
          std::size_t q = p + 1;
          bool uniform = true;
          while (q < n && key[order[q]] == key[order[p]]) {
            uniform &= job_rounds[order[q]] == job_rounds[order[p]];
            ++q;
          }
          if (!uniform)
            std::stable_sort(order.begin() + std::ptrdiff_t(p), order.begin() + std::ptrdiff_t(q),
                             [&](std::uint32_t a, std::uint32_t b) { return job_rounds[a] < job_rounds[b]; });
          p = q;
        }
    }
    pw_at.assign(n + 1, 0);
    for (std::size_t p = 0; p < n; ++p) pw_at[p + 1] = pw_at[p] + passwords[order[p]].size();
  }
  auto cfg_of = [&](std::uint32_t i) { return int(grouped ? key[i] >> 14 : key[i]) - 1; };

  // Packed layout.
  const std::size_t pw_total = pw_at[n];
  Staging lay;
  const std::size_t p_pw = lay.add(pw_total), p_off = lay.add(4 * n), p_pl = lay.add(2 * n), p_salt = lay.add(16 * n),
                    p_sl = lay.add(n), p_rounds = lay.add(4 * n);
  staging = pinned(lay.total);
  std::uint8_t* h = staging.get();
  auto* off = reinterpret_cast<std::uint32_t*>(h + lay.parts[p_off].first);
  auto* pl = reinterpret_cast<std::uint16_t*>(h + lay.parts[p_pl].first);
  std::uint8_t* salt = h + lay.parts[p_salt].first;
  std::uint8_t* sl = h + lay.parts[p_sl].first;
  auto* rounds = reinterpret_cast<std::uint32_t*>(h + lay.parts[p_rounds].first);
  parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    std::memset(salt + 16 * begin, 0, 16 * (end - begin));
    for (std::size_t p = begin; p < end; ++p) {
      const std::uint32_t i = order[p];
      const std::string_view pw = passwords[i];
      std::memcpy(h + lay.parts[p_pw].first + pw_at[p], pw.data(), pw.size());
      off[p] = std::uint32_t(pw_at[p]);
      pl[p] = std::uint16_t(pw.size());
      const std::string_view s = src.salt(i);
      std::memcpy(salt + 16 * p, s.data(), s.size());
      sl[p] = std::uint8_t(s.size());
      rounds[p] = by_length ? src.rounds : job_rounds[i];
    }
  });
  // Ranges of equal configuration, each with its slice of the template buffer (by_length: runs
  // of groups of one configuration).
  std::size_t tmpl_words = 0;
  for (std::size_t p = 0, g = 0; p < n;) {
    std::size_t q = p;
    if (by_length) {
      const int c = groups[g].cfg;
      while (g < groups.size() && groups[g].cfg == c) q += groups[g++].count;
    } else {
      while (q < n && cfg_of(order[q]) == cfg_of(order[p])) ++q;
    }
    ShaRange r;
    r.begin = int(p);
    r.count = int(q - p);
    r.last = r.count;  // the whole range; run() launches parts of it
    const int c = by_length ? groups[g - 1].cfg : cfg_of(order[p]);
    if (c >= 0) {
      r.nblk = k.configs[c].nblk;
      r.nw = k.configs[c].nw;
      r.shared = variant == Variant::blocks_shared && k.configs[c].shared_ok;
    }
    std::uint32_t max_r = by_length ? src.rounds : 0;
    if (!by_length)
      for (std::size_t x = p; x < q; ++x) max_r = std::max(max_r, rounds[x]);
    ranges.push_back(r);
    range_rounds.push_back(max_r);
    tmpl_words += std::size_t(8) * r.nw * r.count;
    p = q;
  }
  upload(d_pw, staging, lay, p_pw, stream);
  upload(d_pw_off, staging, lay, p_off, stream);
  upload(d_pl, staging, lay, p_pl, stream);
  upload(d_salt, staging, lay, p_salt, stream);
  upload(d_sl, staging, lay, p_sl, stream);
  upload(d_rounds, staging, lay, p_rounds, stream);
  d_state = DeviceBuffer<std::uint32_t>(std::size_t(k.digest_bytes / 4) * n, stream);
  d_pseq = DeviceBuffer<std::uint8_t>(std::max<std::size_t>(1, pw_total), stream);
  d_sseq = DeviceBuffer<std::uint8_t>(16 * n, stream);
  d_tmpl = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(1, tmpl_words), stream);
  std::size_t at = 0;
  for (ShaRange& r : ranges) {
    r.tmpl = d_tmpl.get() + at;
    at += std::size_t(8) * r.nw * r.count;
  }
  sha.n = int(n);
  sha.pw = d_pw.get();
  sha.pw_off = d_pw_off.get();
  sha.pl = d_pl.get();
  sha.salt = d_salt.get();
  sha.sl = d_sl.get();
  sha.rounds = d_rounds.get();
  sha.state = d_state.get();
  sha.pseq = d_pseq.get();
  sha.sseq = d_sseq.get();
  sha.out = d_out.get();
  sha.out_stride = out_stride;
}

void DeviceBatch::Impl::pack_bcrypt(const JobSource& src) {
  const std::span<const std::string_view> passwords = src.passwords;
  hash_chars = hd::kBcryptHashChars;
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  // Equal costs side by side: a warp's threads then finish in the same launch (records: one cost).
  if (src.parsed())
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return src.rounds_of(a) < src.rounds_of(b); });
  Staging lay;
  const std::size_t p_pw = lay.add(kBcryptKeySlot * n), p_pl = lay.add(n), p_salt = lay.add(16 * n), p_cost = lay.add(n),
                    p_flags = lay.add(n);
  staging = pinned(lay.total);
  std::uint8_t* h = staging.get();
  std::memset(h, 0, lay.total);
  auto* salt = reinterpret_cast<std::uint32_t*>(h + lay.parts[p_salt].first);
  for (std::size_t p = 0; p < n; ++p) {
    const std::uint32_t i = order[p];
    // bcrypt reads at most 72 key bytes (the password cycled with its terminating zero), so the
    // first 72 bytes are all it needs.
    const std::size_t len = std::min<std::size_t>(passwords[i].size(), kBcryptKeySlot);
    std::memcpy(h + lay.parts[p_pw].first + kBcryptKeySlot * p, passwords[i].data(), len);
    h[lay.parts[p_pl].first + p] = std::uint8_t(len);
    std::uint8_t salt_bytes[16];
    src.bcrypt_salt(i, salt_bytes);
    std::uint32_t words[4];
    hd::bcrypt_salt_words(salt_bytes, words);
    for (int k = 0; k < 4; ++k) salt[k * n + p] = words[k];
    const std::uint32_t cost = src.rounds_of(i);
    h[lay.parts[p_cost].first + p] = std::uint8_t(cost);
    h[lay.parts[p_flags].first + p] = std::uint8_t(hd::bcrypt_flags(src.bcrypt_variant_of(i)));
    max_iterations = std::max(max_iterations, std::uint64_t(1) << cost);
  }
  upload(d_bpw, staging, lay, p_pw, stream);
  upload(d_bpl, staging, lay, p_pl, stream);
  upload(d_bsalt, staging, lay, p_salt, stream);
  upload(d_cost, staging, lay, p_cost, stream);
  upload(d_flags, staging, lay, p_flags, stream);
  bc.n = int(n);
  bc.pw = d_bpw.get();
  bc.pl = d_bpl.get();
  bc.salt = d_bsalt.get();
  bc.cost = d_cost.get();
  bc.flags = d_flags.get();
  bc.out = d_out.get();
  bc.out_stride = out_stride;
}

void DeviceBatch::Impl::make_parts() {
  if (!part_streams.empty()) return;
  for (int q = 1; q < kLaunchParts; ++q) {
    part_streams.emplace_back();
    joined.emplace_back(cudaEventDisableTiming);
  }
  // Blocking-sync: the progress waits sleep. wk-hash keeps several batches in flight, each waiting
  // on its thread most of the time; spinning, they would take that many cores from the host work
  // (packing, formatting) of the others.
  for (int e = 0; e < (kStepsAhead + 1) * kLaunchParts; ++e)
    step_done.emplace_back(cudaEventBlockingSync | cudaEventDisableTiming);
}

// The batch's stream waits for everything queued on the part streams.
void DeviceBatch::Impl::join_parts() noexcept {
  for (std::size_t q = 0; q < part_streams.size(); ++q)
    if (cudaEventRecord(joined[q].get(), part_streams[q]) == cudaSuccess) cudaStreamWaitEvent(stream, joined[q].get(), 0);
}

void DeviceBatch::Impl::wipe() noexcept {
  // Device buffers first: memsets on the batch's stream, after any launch still queued on the part
  // streams, and before the buffers' stream-ordered frees (the members' destructors), so no later
  // allocation sees their bytes. Nothing on the host waits for them. The host staging is wiped
  // once no copy reads it: right away after results were downloaded (the stream was waited for
  // then), else after waiting for the stream (an exception, or a batch whose results were not
  // read). Waiting every time cost a slice up to a kernel's length (~4 ms of md5crypt): the
  // memsets queue behind the other slices' kernels.
  join_parts();
  wipe_device(d_pw, stream);
  wipe_device(d_pseq, stream);
  wipe_device(d_sseq, stream);
  wipe_device(d_tmpl, stream);
  wipe_device(d_state, stream);
  wipe_device(d_bpw, stream);
  wipe_device(d_bstate, stream);
  if (!staging_idle) {
    try {
      wait_sleeping(stream);
    } catch (...) {
      cudaStreamSynchronize(stream);
    }
  }
  if (staging.get()) wipe_on_all_cores(staging.get(), staging.bytes());  // ~11 MB per md5crypt slice
  if (pool) {
    pool->give(std::move(staging));
    pool->give(std::move(h_out));
  }
}

void DeviceBatch::Impl::init(const JobSource& src, Variant v, cudaStream_t s, PinnedPool* p) {
  method = src.method;
  variant = v;
  stream = s;
  pool = p;
  n = src.size();
  bool known = false;
  for (const auto& x : variants(method)) known |= x.variant == variant;
  if (!known) throw Error(ErrorCategory::usage, std::string("variant ") + variant_name(variant) + " does not apply to " + method_name(method));
  if (src.parsed()) {
    // Every job's prefix, back to back: lengths, offsets, then the bytes copied on all cores.
    prefix_end.resize(n);
    std::atomic<bool> mixed{false};
    parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if (src.settings[i]->method != method) mixed = true;
        prefix_end[i] = std::uint32_t(src.settings[i]->prefix.size());
      }
    });
    if (mixed) throw Error(ErrorCategory::internal, "DeviceBatch: mixed methods");
    std::partial_sum(prefix_end.begin(), prefix_end.end(), prefix_end.begin());
    prefixes.resize(n ? prefix_end.back() : 0);
    parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const std::string& pre = src.settings[i]->prefix;
        std::memcpy(prefixes.data() + prefix_end[i] - pre.size(), pre.data(), pre.size());
      }
    });
  } else {
    // Fresh settings: each record is its job's prefix as it stands (bcrypt's salt characters are
    // canonical), then '$' for md5crypt / sha-crypt. Copied, so the caller's records may go.
    prefix_record = src.record_bytes;
    prefix_dollar = method != Method::bcrypt;
    prefixes.resize(src.records.size());
    parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
      std::memcpy(prefixes.data() + begin * prefix_record, src.records.data() + begin * prefix_record,
                  (end - begin) * prefix_record);
    });
  }
  if (n == 0) return;
  hash_chars = method == Method::bcrypt ? hd::kBcryptHashChars : kernels_for(method).hash_chars;
  out_stride = out_stride_for(hash_chars);
  d_out = DeviceBuffer<char>(std::size_t(out_stride) * n, stream);
  // Only the hash characters of each slot are written; zero the rest so the copy back reads
  // initialized memory (compute-sanitizer initcheck).
  WK_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0, d_out.bytes(), stream));
  try {
    if (method == Method::bcrypt) pack_bcrypt(src);
    else pack_sha(src);
  } catch (...) {
    wipe();
    throw;
  }
}

DeviceBatch::DeviceBatch(Method method, std::span<const Setting* const> settings, std::span<const std::string_view> passwords,
                         Variant variant, cudaStream_t stream, PinnedPool* pool)
    : impl_(std::make_unique<Impl>()) {
  if (settings.size() != passwords.size()) throw Error(ErrorCategory::internal, "DeviceBatch: settings and passwords differ in count");
  nvtx::Range r("pack", nvtx::Color::transfer, std::int64_t(settings.size()));
  JobSource src;
  src.method = method;
  src.passwords = passwords;
  src.settings = settings;
  impl_->init(src, variant, stream, pool);
}

DeviceBatch::DeviceBatch(const HashOptions& options, std::string_view settings, std::span<const std::string_view> passwords,
                         Variant variant, cudaStream_t stream, PinnedPool* pool)
    : impl_(std::make_unique<Impl>()) {
  nvtx::Range r("pack", nvtx::Color::transfer, std::int64_t(passwords.size()));
  JobSource src;
  src.method = options.method;
  src.passwords = passwords;
  src.record_bytes = generated_setting_bytes(options);
  if (settings.size() != src.record_bytes * passwords.size())
    throw Error(ErrorCategory::internal, "DeviceBatch: the fresh settings differ from the passwords in count");
  src.records = settings;
  // Every password the packing copies must fit its slots (the caller checked them).
  std::atomic<bool> too_long{false};
  parallel_for(passwords.size(), kHostGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (passwords[i].size() > std::size_t(hd::kMaxPasswordBytes)) too_long = true;
  });
  if (too_long) throw Error(ErrorCategory::internal, "DeviceBatch: a password over 511 bytes");
  if (options.method == Method::bcrypt) {
    src.salt_at = 7;  // "$2b$05$"
    src.salt_chars = 22;
    src.rounds = options.cost;
    src.bcrypt_variant = options.bcrypt_variant;
  } else {
    src.salt_chars = options.method == Method::md5crypt ? std::size_t(hd::kMaxMd5SaltBytes) : std::size_t(hd::kMaxShaSaltBytes);
    src.salt_at = src.record_bytes - src.salt_chars;
    src.rounds = options.method == Method::md5crypt ? hd::kMd5Rounds : options.rounds.value_or(hd::kShaDefaultRounds);
  }
  impl_->init(src, variant, stream, pool);
}

DeviceBatch::~DeviceBatch() {
  if (!impl_) return;
  nvtx::Range r("wipe", nvtx::Color::transfer);
  impl_->wipe();
}

std::size_t DeviceBatch::size() const noexcept { return impl_->n; }

void DeviceBatch::set_launch_limits(std::uint32_t rounds_per_launch, std::uint64_t bcrypt_iterations_per_launch) {
  impl_->rounds_per_launch = rounds_per_launch ? rounds_per_launch : kDefaultRoundsPerLaunch;
  impl_->bcrypt_chunk = bcrypt_iterations_per_launch;
}

void DeviceBatch::run(cudaStream_t stream, const std::function<void(double)>& progress,
                      const std::function<void()>& queued) {
  Impl& m = *impl_;
  if (m.n == 0) return;
  if (m.method == Method::bcrypt) {
    // Iterations per launch: about 2^22 job-iterations (~0.3 s at the target rate), a power of two
    // so that cost-c jobs end exactly at a launch boundary.
    std::uint64_t chunk = m.bcrypt_chunk;
    if (chunk == 0) {
      chunk = 1;
      while (chunk * 2 * m.n <= (std::uint64_t(1) << 22) && chunk < (std::uint64_t(1) << 31)) chunk *= 2;
    }
    const BcryptKernel kernel = m.variant == Variant::reference             ? BcryptKernel::reference
                                : m.variant == Variant::bcrypt_shared16     ? BcryptKernel::shared16
                                : m.variant == Variant::bcrypt_shared_bytes ? BcryptKernel::shared_bytes
                                : m.variant == Variant::bcrypt_packed       ? BcryptKernel::packed
                                                                            : BcryptKernel::shared;
    if (chunk < m.max_iterations && !m.d_bstate.get()) {
      m.d_bstate = DeviceBuffer<std::uint32_t>(std::size_t(kBcryptStateWords) * m.n, m.stream);
      m.bc.state = m.d_bstate.get();
    }
    for (std::uint64_t it0 = 0; it0 < m.max_iterations; it0 += chunk) {
      nvtx::Range r("bcrypt loop", nvtx::Color::compute, std::int64_t(it0));
      bcrypt_launch(kernel, m.bc, it0, chunk, stream);
      if (queued && it0 + chunk >= m.max_iterations) queued();
      if (progress) {
        wait_sleeping(stream);
        progress(double(std::min(it0 + chunk, m.max_iterations)) / double(m.max_iterations));
      }
    }
    return;
  }
  const ShaKernels& k = kernels_for(m.method);
  m.make_parts();
  // Part q of a range: its jobs in blocks [nb * q / P, nb * (q + 1) / P) of the round kernels.
  auto part = [](const ShaRange& range, int q) {
    ShaRange p = range;
    const int nb = (range.count + kRoundThreads - 1) / kRoundThreads;
    p.first = std::min(range.count, nb * q / kLaunchParts * kRoundThreads);
    p.last = std::min(range.count, nb * (q + 1) / kLaunchParts * kRoundThreads);
    return p;
  };
  m.forked.record(stream);  // the uploads (and a previous run) before any part's launches
  for (const Stream& s : m.part_streams) WK_CUDA_CHECK(cudaStreamWaitEvent(s, m.forked.get(), 0));
  {
    nvtx::Range r("setup", nvtx::Color::compute);
    for (int q = 0; q < kLaunchParts; ++q)
      for (const ShaRange& range : m.ranges) k.setup(m.sha, part(range, q), m.part_stream(q));
  }
  const std::uint32_t max_rounds = *std::max_element(m.range_rounds.begin(), m.range_rounds.end());
  const std::uint32_t steps = max_rounds / m.rounds_per_launch + (max_rounds % m.rounds_per_launch != 0);
  auto step_end = [&](std::uint32_t s) {
    return std::uint32_t(std::min<std::uint64_t>(max_rounds, std::uint64_t(s + 1) * m.rounds_per_launch));
  };
  auto event = [&](std::uint32_t s, int q) -> Event& { return m.step_done[(s % (kStepsAhead + 1)) * kLaunchParts + q]; };
  auto report = [&](std::uint32_t s) {
    for (int q = 0; q < kLaunchParts; ++q) event(s, q).synchronize();
    progress(double(step_end(s)) / double(max_rounds));
  };
  for (std::uint32_t s = 0; s < steps; ++s) {
    const std::uint32_t r0 = s * m.rounds_per_launch, r1 = step_end(s);
    nvtx::Range r("rounds", nvtx::Color::compute, std::int64_t(r0));
    for (int q = 0; q < kLaunchParts; ++q)
      for (std::size_t i = 0; i < m.ranges.size(); ++i)
        if (r0 < m.range_rounds[i]) k.rounds(m.sha, part(m.ranges[i], q), r0, r1, m.part_stream(q));
    if (progress) {
      for (int q = 0; q < kLaunchParts; ++q) event(s, q).record(m.part_stream(q));
      if (s >= kStepsAhead && s + 1 < steps) report(s - kStepsAhead);
    }
  }
  {
    nvtx::Range r("final", nvtx::Color::compute);
    for (int q = 0; q < kLaunchParts; ++q)
      for (const ShaRange& range : m.ranges) {
        const ShaRange p = part(range, q);
        k.final(m.sha, range.begin + p.first, range.begin + p.last, m.part_stream(q));
      }
  }
  m.join_parts();
  if (queued) queued();
  if (progress)
    for (std::uint32_t s = steps > kStepsAhead + 1 ? steps - kStepsAhead - 1 : 0; s < steps; ++s) report(s);
}

// The kernels' hash characters, out_stride bytes per job in packing order, copied to pinned
// host memory (the batch's, made on first use).
static const char* download_results(DeviceBatch::Impl& m, cudaStream_t stream) {
  nvtx::Range r("d2h", nvtx::Color::transfer);
  if (!m.h_out.get()) m.h_out = m.pinned(std::size_t(m.out_stride) * m.n);
  WK_CUDA_CHECK(cudaMemcpyAsync(m.h_out.get(), m.d_out.get(), m.d_out.bytes(), cudaMemcpyDeviceToHost, stream));
  wait_sleeping(stream);
  // The uploads were queued on the batch's stream before its kernels: done if this is that stream.
  if (stream == m.stream) m.staging_idle = true;
  return reinterpret_cast<const char*>(m.h_out.get());
}

void DeviceBatch::results(cudaStream_t stream, std::vector<std::string>& out) {
  Impl& m = *impl_;
  out.assign(m.n, {});
  if (m.n == 0) return;
  const char* text = download_results(m, stream);
  parallel_for(m.n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      const std::uint32_t i = m.order[p];
      std::string& s = out[i];
      s.resize(m.prefix_bytes(i) + std::size_t(m.hash_chars));
      char* at = m.write_prefix(i, s.data());
      std::memcpy(at, text + p * std::size_t(m.out_stride), std::size_t(m.hash_chars));
    }
  });
}

void DeviceBatch::results_into(cudaStream_t stream, char* out, std::size_t stride) {
  Impl& m = *impl_;
  if (m.n == 0) return;
  const char* text = download_results(m, stream);
  nvtx::Range r("results", nvtx::Color::compute, std::int64_t(m.n));
  std::atomic<bool> too_long{false};
  parallel_for(m.n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      const std::uint32_t i = m.order[p];
      if (m.prefix_bytes(i) + std::size_t(m.hash_chars) > stride) {
        too_long = true;
        continue;
      }
      char* at = m.write_prefix(i, out + std::size_t(i) * stride);
      std::memcpy(at, text + p * std::size_t(m.out_stride), std::size_t(m.hash_chars));
    }
  });
  if (too_long) throw Error(ErrorCategory::internal, "DeviceBatch::results_into: a crypt string longer than the stride");
}

}  // namespace wk::hash::gpu
