// The round engine's device batch (md5crypt, sha256crypt, sha512crypt): packs the jobs grouped by
// kernel configuration and length, runs the method's set-up / round / final launches in launch
// parts on streams of their own, and wipes its device buffers.
#include "round_batch.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <vector>

#include "cross.hpp"
#include "gpu_runner.hpp"
#include "hash/hd/shacrypt.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/parallel.hpp"

namespace wk::hash::gpu {

using namespace detail;

namespace {

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

// The packed order of a batch whose jobs differ only in password length (records of fresh
// settings: one salt length, one round count), for the grouped rungs: by configuration key
// (cfg_of_length[pl] + 1: reference first), then by length, stable -- what the counting sort on
// the full key in order_by_key gives, but on all cores: per-chunk counts of each length, the
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

// The packed order and what it is made of (pack's first step).
struct PackedOrder {
  bool grouped = false;    // a grouped rung: jobs by configuration, password length, salt length
  bool by_length = false;  // records in a grouped rung: ordered by order_by_length
  std::vector<std::uint32_t> key, job_rounds;  // per input job (not by_length): sort key, round count
  std::vector<std::size_t> pw_at;               // password offsets in packed order (n + 1)
  std::vector<LengthGroup> groups;              // by_length: the groups of equal length
  // The configuration of input job i (not by_length): -1 for the reference rounds.
  int cfg_of(std::uint32_t i) const { return int(grouped ? key[i] >> 14 : key[i]) - 1; }
};

class RoundMethodBatch final : public MethodBatch {
 public:
  RoundMethodBatch(BatchCore& core, const ShaKernels& kernels) : core_(core), k_(kernels) {}
  ~RoundMethodBatch() override = default;
  void pack(const JobSource& src) override;
  void set_launch_limits(std::uint32_t rounds_per_launch, std::uint64_t) override {
    rounds_per_launch_ = rounds_per_launch ? rounds_per_launch : kDefaultRoundsPerLaunch;
  }
  void run(cudaStream_t stream, const std::function<void(double)>& progress, const std::function<void()>& queued) override;
  void wipe() noexcept override;

 private:
  BatchCore& core_;
  const ShaKernels& k_;
  DeviceBuffer<std::uint8_t> d_pw_, d_salt_, d_sl_, d_pseq_, d_sseq_;
  DeviceBuffer<std::uint32_t> d_pw_off_, d_rounds_, d_state_, d_tmpl_;
  DeviceBuffer<std::uint16_t> d_pl_;
  std::vector<ShaRange> ranges_;
  std::vector<std::uint32_t> range_rounds_;  // the largest round count in each range
  ShaBatch sha_;
  std::uint32_t rounds_per_launch_ = kDefaultRoundsPerLaunch;

  // Launch parts 1.. run on part_streams_ (part 0 on the batch's stream), forked after the uploads
  // and joined back before the results are read (join_parts).
  std::vector<Stream> part_streams_;
  Event forked_{cudaEventDisableTiming};
  std::vector<Event> joined_;     // one per part stream
  std::vector<Event> step_done_;  // (kStepsAhead + 1) * kLaunchParts, for progress
  cudaStream_t part_stream(int q) const { return q == 0 ? core_.stream : part_streams_[std::size_t(q) - 1].get(); }
  void make_parts();
  void join_parts() noexcept;

  // Crossed jobs (pack_cross): the candidates and accounts once each, and the blocks of jobs the
  // expansion kernel makes of them.
  DeviceBuffer<std::uint8_t> d_cand_, d_acc_salt_, d_acc_sl_;
  DeviceBuffer<std::uint32_t> d_cand_at_, d_cand_index_, d_acc_rounds_, d_acc_index_;
  DeviceBuffer<CrossBlock> d_blocks_;
  DeviceBuffer<uint2> d_mask_sets_;  // a mask's candidates: per position, its charset in d_cand_
  // Words through rules: the run's words and rules, each candidate's length, and per length a
  // count, then a cursor, the first sorted index and the first byte (4 x kRuleLengths words).
  DeviceBuffer<std::uint8_t> d_words_;
  DeviceBuffer<std::uint32_t> d_word_at_, d_rule_at_, d_rule_table_;
  DeviceBuffer<RuleOp> d_rule_ops_;
  DeviceBuffer<std::uint16_t> d_rule_len_;
  void pack_cross(const JobSource& src);
  // The run's rules applied on the device (pass 1): the candidates of each length, counted.
  std::vector<std::uint32_t> rule_lengths(const CandidateRun& run, RuleInput& in);
  // pack's last step: the round state, sequences and templates allocated, sha_ filled.
  void allocate_rounds(std::size_t pw_total, std::size_t tmpl_words);

  PackedOrder order_jobs(const JobSource& src);
  void order_by_key(const JobSource& src, PackedOrder& po);
  // Makes ranges_ of equal configuration over the packed jobs (rounds: their round counts in
  // packed order); returns the template words they take.
  std::size_t make_ranges(const JobSource& src, const PackedOrder& po, const std::uint32_t* rounds);
};

PackedOrder RoundMethodBatch::order_jobs(const JobSource& src) {
  PackedOrder po;
  const Variant variant = core_.variant;
  po.grouped = variant == Variant::blocks_global || variant == Variant::blocks_shared;
  // Records of fresh settings (one salt length, one round count) in a grouped rung: the key is a
  // function of the password length alone, and the order is made on all cores (order_by_length)
  // instead of the serial passes of order_by_key (~3 ns per job on one core: ~1 ms of every
  // wk-hash slice).
  po.by_length = po.grouped && !src.parsed();
  if (po.by_length) {
    std::vector<int> cfg_of_length(std::size_t(hd::kMaxPasswordBytes) + 1, -1);
    for (std::size_t pl = 0; pl < cfg_of_length.size(); ++pl)
      for (int c = 0; c < k_.config_count; ++c)
        if (k_.fits(k_.configs[c], int(pl), int(src.salt_chars))) {
          cfg_of_length[pl] = c;
          break;
        }
    po.groups = order_by_length(src.passwords, cfg_of_length, core_.order, po.pw_at);
  } else {
    order_by_key(src, po);
  }
  return po;
}

// Packed order: by kernel configuration (the first block configuration that fits, else
// reference) and, for the grouped rungs, by password length, salt length and round count, stable.
// Each job's sort key and round count are gathered on all cores into compact arrays (the serial
// passes below then read those, not the settings); a counting sort on the key -- one pass
// whatever the batch size --, then a stable sort by rounds inside each group whose round counts
// differ (rare: they are equal unless the settings ask otherwise).
void RoundMethodBatch::order_by_key(const JobSource& src, PackedOrder& po) {
  const std::size_t n = core_.n;
  const std::span<const std::string_view> passwords = src.passwords;
  const bool grouped = po.grouped, reference = core_.variant == Variant::reference;
  std::vector<std::uint32_t>& key = po.key;
  std::vector<std::uint32_t>& job_rounds = po.job_rounds;
  key.resize(n);
  job_rounds.resize(n);
  parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t pl = passwords[i].size(), sl = src.salt(i).size();
      int cfg = -1;
      if (!reference)
        for (int c = 0; c < k_.config_count; ++c)
          if (k_.fits(k_.configs[c], int(pl), int(sl))) {
            cfg = c;
            break;
          }
      const std::uint32_t c = std::uint32_t(cfg + 1);  // 0..config_count
      key[i] = grouped ? (c << 14) | std::uint32_t(pl << 5) | std::uint32_t(sl) : c;  // 511 bytes, 16 chars at most
      job_rounds[i] = src.rounds_of(i);
    }
  });
  std::vector<std::uint32_t>& order = core_.order;
  const std::size_t buckets = std::size_t(k_.config_count + 1) << (grouped ? 14 : 0);
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
  po.pw_at.assign(n + 1, 0);
  for (std::size_t p = 0; p < n; ++p) po.pw_at[p + 1] = po.pw_at[p] + passwords[order[p]].size();
}

std::size_t RoundMethodBatch::make_ranges(const JobSource& src, const PackedOrder& po, const std::uint32_t* rounds) {
  // Ranges of equal configuration, each with its slice of the template buffer (by_length: runs
  // of groups of one configuration).
  const std::size_t n = core_.n;
  const std::vector<std::uint32_t>& order = core_.order;
  const bool by_length = po.by_length;
  std::size_t tmpl_words = 0;
  for (std::size_t p = 0, g = 0; p < n;) {
    std::size_t q = p;
    if (by_length) {
      const int c = po.groups[g].cfg;
      while (g < po.groups.size() && po.groups[g].cfg == c) q += po.groups[g++].count;
    } else {
      while (q < n && po.cfg_of(order[q]) == po.cfg_of(order[p])) ++q;
    }
    ShaRange r;
    r.begin = int(p);
    r.count = int(q - p);
    r.last = r.count;  // the whole range; run() launches parts of it
    const int c = by_length ? po.groups[g - 1].cfg : po.cfg_of(order[p]);
    if (c >= 0) {
      r.nblk = k_.configs[c].nblk;
      r.nw = k_.configs[c].nw;
      r.shared = core_.variant == Variant::blocks_shared && k_.configs[c].shared_ok;
    }
    std::uint32_t max_r = by_length ? src.rounds : 0;
    if (!by_length)
      for (std::size_t x = p; x < q; ++x) max_r = std::max(max_r, rounds[x]);
    ranges_.push_back(r);
    range_rounds_.push_back(max_r);
    tmpl_words += std::size_t(8) * r.nw * r.count;
    p = q;
  }
  return tmpl_words;
}

void RoundMethodBatch::pack(const JobSource& src) {
  if (src.crossed()) return pack_cross(src);
  const std::span<const std::string_view> passwords = src.passwords;
  const std::size_t n = core_.n;
  const PackedOrder po = order_jobs(src);
  const std::vector<std::uint32_t>& order = core_.order;

  // Packed layout.
  const std::size_t pw_total = po.pw_at[n];
  Staging lay;
  const std::size_t p_pw = lay.add(pw_total), p_off = lay.add(4 * n), p_pl = lay.add(2 * n), p_salt = lay.add(16 * n),
                    p_sl = lay.add(n), p_rounds = lay.add(4 * n);
  core_.staging = core_.pinned(lay.total);
  std::uint8_t* h = core_.staging.get();
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
      std::memcpy(h + lay.parts[p_pw].first + po.pw_at[p], pw.data(), pw.size());
      off[p] = std::uint32_t(po.pw_at[p]);
      pl[p] = std::uint16_t(pw.size());
      const std::string_view s = src.salt(i);
      std::memcpy(salt + 16 * p, s.data(), s.size());
      sl[p] = std::uint8_t(s.size());
      rounds[p] = po.by_length ? src.rounds : po.job_rounds[i];
    }
  });
  const std::size_t tmpl_words = make_ranges(src, po, rounds);
  const cudaStream_t stream = core_.stream;
  upload(d_pw_, core_.staging, lay, p_pw, stream);
  upload(d_pw_off_, core_.staging, lay, p_off, stream);
  upload(d_pl_, core_.staging, lay, p_pl, stream);
  upload(d_salt_, core_.staging, lay, p_salt, stream);
  upload(d_sl_, core_.staging, lay, p_sl, stream);
  upload(d_rounds_, core_.staging, lay, p_rounds, stream);
  allocate_rounds(pw_total, tmpl_words);
}

void RoundMethodBatch::allocate_rounds(std::size_t pw_total, std::size_t tmpl_words) {
  const std::size_t n = core_.n;
  const cudaStream_t stream = core_.stream;
  d_state_ = DeviceBuffer<std::uint32_t>(std::size_t(k_.digest_bytes / 4) * n, stream);
  d_pseq_ = DeviceBuffer<std::uint8_t>(std::max<std::size_t>(1, pw_total), stream);
  d_sseq_ = DeviceBuffer<std::uint8_t>(16 * n, stream);
  d_tmpl_ = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(1, tmpl_words), stream);
  std::size_t at = 0;
  for (ShaRange& r : ranges_) {
    r.tmpl = d_tmpl_.get() + at;
    at += std::size_t(8) * r.nw * r.count;
  }
  sha_.n = int(n);
  sha_.pw = d_pw_.get();
  sha_.pw_off = d_pw_off_.get();
  sha_.pl = d_pl_.get();
  sha_.salt = d_salt_.get();
  sha_.sl = d_sl_.get();
  sha_.rounds = d_rounds_.get();
  sha_.state = d_state_.get();
  sha_.pseq = d_pseq_.get();
  sha_.sseq = d_sseq_.get();
  sha_.out = core_.d_out.get();
  sha_.out_stride = core_.out_stride;
}

// Crossed jobs: job p0 + j of a block is candidate c0 + j / k (sorted by length) under account
// a0 + j % k (sorted by salt length, then rounds). Per salt length, the candidates' length groups
// go by configuration, so the ranges are runs of blocks of one configuration, as in the grouped
// rungs. The host touches each candidate (on all cores) and account once; the pairs are made on
// the device. A run's candidates are not touched at all: the device makes a mask's from the
// mask, and a rules run's from its words and rules (rule_lengths, then rule_place), the host
// reading back only how many there are of each length.
void RoundMethodBatch::pack_cross(const JobSource& src) {
  const std::span<const std::string_view> cands = src.passwords;
  const Mask* const mask = src.run.mask;       // a mask's candidates, made on the device
  const bool rules = !src.run.rules.empty();   // words through rules, made on the device
  const std::span<const Setting* const> accs = src.accounts;
  std::size_t m = src.candidates();
  const std::size_t k = accs.size();
  const bool reference = core_.variant == Variant::reference;
  // The candidates' length groups in sorted order: strings by length (cand[c]: the caller's number
  // of sorted candidate c), a mask's candidates all of its length, in the caller's order, and
  // rules' by length as the device counted them.
  struct LengthRun {
    std::uint32_t c0 = 0, count = 0, pl = 0;
  };
  std::vector<LengthRun> lengths;
  std::vector<std::uint32_t> cand, acc(k);
  RuleInput rule_in;
  if (rules) {
    if (m > UINT32_MAX) throw Error(ErrorCategory::internal, "crossed batch: a run of 2^32 candidates");
    const std::vector<std::uint32_t> hist = rule_lengths(src.run, rule_in);
    std::uint32_t sorted = 0;
    for (std::size_t len = 0; len < hist.size(); ++len)
      if (hist[len]) {
        lengths.push_back({sorted, hist[len], std::uint32_t(len)});
        sorted += hist[len];
      }
    m = sorted;  // the candidates no rule rejected
    core_.n = k * m;
    if (core_.n == 0) return;
  } else if (mask) {
    if (mask->length() > std::size_t(hd::kMaxPasswordBytes) || m > UINT32_MAX)
      throw Error(ErrorCategory::internal, "crossed batch: a mask over 511 positions or 2^32 candidates");
    lengths.push_back({0, std::uint32_t(m), std::uint32_t(mask->length())});
  } else {
    // Candidates by length, stable: a counting sort on all cores (one account's batch holds 2^21
    // of md5crypt). Each chunk's histogram, then where the chunk's candidates of each length go.
    constexpr std::size_t kLengths = std::size_t(hd::kMaxPasswordBytes) + 1, kChunk = std::size_t(1) << 15;
    const std::size_t chunks = (m + kChunk - 1) / kChunk;
    auto chunk_end = [&](std::size_t ch) { return std::min(m, (ch + 1) * kChunk); };
    std::vector<std::uint32_t> place(chunks * kLengths, 0);  // counts, then where each goes
    std::atomic<bool> too_long{false};
    parallel_for(chunks, 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t ch = b; ch < e; ++ch)
        for (std::size_t c = ch * kChunk; c < chunk_end(ch); ++c) {
          if (cands[c].size() >= kLengths) too_long = true;
          else ++place[ch * kLengths + cands[c].size()];
        }
    });
    if (too_long) throw Error(ErrorCategory::internal, "crossed batch: a candidate over 511 bytes");
    std::uint32_t sorted = 0;
    for (std::size_t len = 0; len < kLengths; ++len) {
      const std::uint32_t c0 = sorted;
      for (std::size_t ch = 0; ch < chunks; ++ch) {
        const std::uint32_t count = place[ch * kLengths + len];
        place[ch * kLengths + len] = sorted;
        sorted += count;
      }
      if (sorted > c0) lengths.push_back({c0, sorted - c0, std::uint32_t(len)});
    }
    cand.resize(m);
    parallel_for(chunks, 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t ch = b; ch < e; ++ch)
        for (std::size_t c = ch * kChunk; c < chunk_end(ch); ++c) cand[place[ch * kLengths + cands[c].size()]++] = std::uint32_t(c);
    });
  }
  std::iota(acc.begin(), acc.end(), 0u);
  std::stable_sort(acc.begin(), acc.end(), [&](std::uint32_t x, std::uint32_t y) {
    const Setting &a = *accs[x], &b = *accs[y];
    return a.salt.size() != b.salt.size() ? a.salt.size() < b.salt.size() : a.rounds < b.rounds;
  });
  for (const Setting* s : accs)
    if (s->method != core_.method || s->salt.size() > 16)
      throw Error(ErrorCategory::internal, "crossed batch: an account of another method");
  auto cfg_of = [&](std::size_t pl, std::size_t sl) {
    if (!reference)
      for (int c = 0; c < k_.config_count; ++c)
        if (k_.fits(k_.configs[c], int(pl), int(sl))) return c;
    return -1;
  };
  const std::size_t n = core_.n;
  std::vector<CrossBlock> blocks;
  std::vector<int> block_cfg;
  std::vector<std::uint32_t> block_rounds;
  std::uint64_t jobs = 0, bytes = 0;
  for (std::size_t a0 = 0; a0 < k;) {
    const std::size_t sl = accs[acc[a0]]->salt.size();
    std::size_t a1 = a0;
    std::uint32_t max_rounds = 0;
    for (; a1 < k && accs[acc[a1]]->salt.size() == sl; ++a1) max_rounds = std::max(max_rounds, accs[acc[a1]]->rounds);
    std::vector<std::pair<int, LengthRun>> runs;
    for (const LengthRun& l : lengths) runs.emplace_back(cfg_of(l.pl, sl), l);
    std::stable_sort(runs.begin(), runs.end(), [](const auto& x, const auto& y) { return x.first + 1 < y.first + 1; });
    for (const auto& [cfg, l] : runs) {
      CrossBlock b;
      b.p0 = std::uint32_t(jobs);
      b.count = std::uint32_t((a1 - a0) * l.count);
      b.c0 = l.c0;
      b.a0 = std::uint32_t(a0);
      b.k = std::uint32_t(a1 - a0);
      b.pl = l.pl;
      b.byte0 = bytes;
      jobs += b.count;
      bytes += std::uint64_t(b.count) * l.pl;
      blocks.push_back(b);
      block_cfg.push_back(cfg);
      block_rounds.push_back(max_rounds);
    }
    a0 = a1;
  }
  if (jobs != n || bytes > UINT32_MAX) throw Error(ErrorCategory::internal, "crossed batch: too many jobs for one batch");
  // Ranges: runs of blocks of one configuration.
  std::size_t tmpl_words = 0;
  for (std::size_t i = 0; i < blocks.size();) {
    std::size_t j = i;
    std::uint32_t max_rounds = 0;
    for (; j < blocks.size() && block_cfg[j] == block_cfg[i]; ++j) max_rounds = std::max(max_rounds, block_rounds[j]);
    ShaRange r;
    r.begin = int(blocks[i].p0);
    r.count = int((j < blocks.size() ? blocks[j].p0 : n) - blocks[i].p0);
    r.last = r.count;
    if (const int c = block_cfg[i]; c >= 0) {
      r.nblk = k_.configs[c].nblk;
      r.nw = k_.configs[c].nw;
      r.shared = core_.variant == Variant::blocks_shared && k_.configs[c].shared_ok;
    }
    ranges_.push_back(r);
    range_rounds_.push_back(max_rounds);
    tmpl_words += std::size_t(8) * r.nw * r.count;
    i = j;
  }
  // The candidates (or the mask's charsets) and accounts in sorted order, once each.
  std::size_t cand_bytes = 0;
  const std::size_t positions = mask ? mask->length() : 0;
  std::vector<std::size_t> run_byte;  // strings: where each length run's bytes start
  if (mask) {
    for (std::size_t i = 0; i < positions; ++i) cand_bytes += mask->charset(i).size();
  } else {  // strings, or the rules' candidates placed on the device
    for (const LengthRun& l : lengths) {
      run_byte.push_back(cand_bytes);
      cand_bytes += std::size_t(l.count) * l.pl;
    }
  }
  const bool host_bytes = !mask && !rules;  // the candidates' bytes go through the staging
  Staging lay;
  const std::size_t p_cand = lay.add(rules ? 0 : cand_bytes), p_at = lay.add(host_bytes ? 4 * m : 0),
                    p_ci = lay.add(host_bytes ? 4 * m : 0), p_table = lay.add(rules ? 4 * 4 * kRuleLengths : 0),
                    p_sets = lay.add(sizeof(uint2) * positions), p_salt = lay.add(16 * k), p_sl = lay.add(k),
                    p_rounds = lay.add(4 * k), p_ai = lay.add(4 * k), p_blocks = lay.add(sizeof(CrossBlock) * blocks.size());
  core_.staging = core_.pinned(lay.total);
  std::uint8_t* h = core_.staging.get();
  auto part = [&](std::size_t p) { return h + lay.parts[p].first; };
  if (mask) {
    auto* sets = reinterpret_cast<uint2*>(part(p_sets));
    for (std::size_t i = 0, off = 0; i < positions; ++i) {
      const std::string& set = mask->charset(i);
      std::memcpy(part(p_cand) + off, set.data(), set.size());
      sets[i] = uint2{std::uint32_t(off), std::uint32_t(set.size())};
      off += set.size();
    }
  } else if (rules) {
    // Per length: no count (the device's), the cursor at 0, the first sorted index and byte.
    auto* table = reinterpret_cast<std::uint32_t*>(part(p_table));
    std::memset(table, 0, 4 * 4 * kRuleLengths);
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      table[2 * kRuleLengths + lengths[r].pl] = lengths[r].c0;
      table[3 * kRuleLengths + lengths[r].pl] = std::uint32_t(run_byte[r]);
    }
  } else {
    auto* at = reinterpret_cast<std::uint32_t*>(part(p_at));
    auto* ci = reinterpret_cast<std::uint32_t*>(part(p_ci));
    std::uint8_t* bytes_at = part(p_cand);
    parallel_for(m, std::size_t(1) << 14, [&](std::size_t b, std::size_t e) {
      std::size_t r = 0;  // the length run holding sorted candidate c
      for (std::size_t c = b; c < e; ++c) {
        while (c >= std::size_t(lengths[r].c0) + lengths[r].count) ++r;
        const std::string_view pw = cands[cand[c]];
        const std::size_t off = run_byte[r] + (c - lengths[r].c0) * lengths[r].pl;
        std::memcpy(bytes_at + off, pw.data(), pw.size());
        at[c] = std::uint32_t(off);
        ci[c] = cand[c];
      }
    });
  }
  std::memset(part(p_salt), 0, 16 * k);
  auto* rounds = reinterpret_cast<std::uint32_t*>(part(p_rounds));
  auto* ai = reinterpret_cast<std::uint32_t*>(part(p_ai));
  for (std::size_t a = 0; a < k; ++a) {
    const Setting& s = *accs[acc[a]];
    std::memcpy(part(p_salt) + 16 * a, s.salt.data(), s.salt.size());
    part(p_sl)[a] = std::uint8_t(s.salt.size());
    rounds[a] = s.rounds;
    ai[a] = acc[a];
  }
  std::memcpy(part(p_blocks), blocks.data(), sizeof(CrossBlock) * blocks.size());
  const cudaStream_t stream = core_.stream;
  if (rules) {
    // Pass 2: the candidates made again, each put at its sorted place.
    upload(d_rule_table_, core_.staging, lay, p_table, stream);
    d_cand_ = DeviceBuffer<std::uint8_t>(std::max<std::size_t>(1, cand_bytes), stream);
    d_cand_at_ = DeviceBuffer<std::uint32_t>(m, stream);
    d_cand_index_ = DeviceBuffer<std::uint32_t>(m, stream);
    std::uint32_t* t = d_rule_table_.get();
    launch_rule_place(rule_in, d_rule_len_.get(),
                      {t + 2 * kRuleLengths, t + 3 * kRuleLengths, t + kRuleLengths, d_cand_.get(), d_cand_at_.get(),
                       d_cand_index_.get()},
                      stream);
  } else {
    upload(d_cand_, core_.staging, lay, p_cand, stream);
    upload(d_cand_at_, core_.staging, lay, p_at, stream);
    upload(d_cand_index_, core_.staging, lay, p_ci, stream);
  }
  upload(d_mask_sets_, core_.staging, lay, p_sets, stream);
  upload(d_acc_salt_, core_.staging, lay, p_salt, stream);
  upload(d_acc_sl_, core_.staging, lay, p_sl, stream);
  upload(d_acc_rounds_, core_.staging, lay, p_rounds, stream);
  upload(d_acc_index_, core_.staging, lay, p_ai, stream);
  upload(d_blocks_, core_.staging, lay, p_blocks, stream);
  // The per-job arrays, made on the device.
  d_pw_ = DeviceBuffer<std::uint8_t>(std::max<std::size_t>(1, bytes), stream);
  d_pw_off_ = DeviceBuffer<std::uint32_t>(n, stream);
  d_pl_ = DeviceBuffer<std::uint16_t>(n, stream);
  d_salt_ = DeviceBuffer<std::uint8_t>(16 * n, stream);
  d_sl_ = DeviceBuffer<std::uint8_t>(n, stream);
  d_rounds_ = DeviceBuffer<std::uint32_t>(n, stream);
  core_.d_pair = DeviceBuffer<std::uint32_t>(2 * n, stream);
  CrossInput in;
  in.blocks = d_blocks_.get();
  in.block_count = int(blocks.size());
  in.cand = d_cand_.get();
  in.cand_at = d_cand_at_.get();
  in.cand_index = d_cand_index_.get();
  if (mask) {
    in.mask_len = int(positions);
    in.mask_first = src.run.first;
    in.mask_chars = d_cand_.get();
    in.mask_sets = d_mask_sets_.get();
  }
  in.salt = d_acc_salt_.get();
  in.sl = d_acc_sl_.get();
  in.rounds = d_acc_rounds_.get();
  in.acc_index = d_acc_index_.get();
  const CrossJobArrays out{int(n), d_pw_.get(), d_pw_off_.get(), d_pl_.get(), d_salt_.get(), d_sl_.get(), d_rounds_.get(),
                           core_.d_pair.get()};
  launch_cross_expand(in, out, stream);
  allocate_rounds(std::size_t(bytes), tmpl_words);
}

std::vector<std::uint32_t> RoundMethodBatch::rule_lengths(const CandidateRun& run, RuleInput& in) {
  const std::uint64_t r = run.rules.size(), w0 = run.first / r, w1 = (run.first + run.count - 1) / r + 1;
  const std::span<const std::string_view> words = run.words.subspan(std::size_t(w0), std::size_t(w1 - w0));
  std::size_t word_bytes = 0, op_count = 0;
  for (const std::string_view w : words) word_bytes += w.size();
  for (const Rule& rule : run.rules) op_count += rule.ops().size();
  if (word_bytes > UINT32_MAX) throw Error(ErrorCategory::internal, "crossed batch: a run's words over 4 GiB");
  Staging lay;
  const std::size_t p_words = lay.add(word_bytes), p_word_at = lay.add(4 * (words.size() + 1)),
                    p_ops = lay.add(sizeof(RuleOp) * op_count), p_rule_at = lay.add(4 * (r + 1)),
                    p_hist = lay.add(4 * kRuleLengths);
  // The words are password material: this staging is wiped before it goes back, whatever happens.
  PinnedBuffer<std::uint8_t> staging = core_.pinned(lay.total);
  const cudaStream_t stream = core_.stream;
  struct Wiped {
    PinnedBuffer<std::uint8_t>& buffer;
    PinnedPool* pool;
    cudaStream_t stream;
    ~Wiped() {
      cudaStreamSynchronize(stream);  // no copy reads it any more (at once on the normal path)
      std::memset(buffer.get(), 0, buffer.bytes());
      if (pool) pool->give(std::move(buffer));
    }
  } wiped{staging, core_.pool, stream};
  std::uint8_t* h = staging.get();
  auto* word_at = reinterpret_cast<std::uint32_t*>(h + lay.parts[p_word_at].first);
  std::size_t at = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    word_at[i] = std::uint32_t(at);
    if (words[i].size() > kMaxCandidateBytes)
      throw Error(ErrorCategory::internal, "crossed batch: a rule run's word over 511 bytes");
    std::memcpy(h + lay.parts[p_words].first + at, words[i].data(), words[i].size());
    at += words[i].size();
  }
  word_at[words.size()] = std::uint32_t(at);
  auto* ops = reinterpret_cast<RuleOp*>(h + lay.parts[p_ops].first);
  auto* rule_at = reinterpret_cast<std::uint32_t*>(h + lay.parts[p_rule_at].first);
  std::size_t op = 0;
  for (std::size_t i = 0; i < r; ++i) {
    rule_at[i] = std::uint32_t(op);
    for (const Rule::Op& o : run.rules[i].ops()) ops[op++] = RuleOp{std::uint8_t(o.fn), o.a, o.b, 0};
  }
  rule_at[r] = std::uint32_t(op);
  upload(d_words_, staging, lay, p_words, stream);
  upload(d_word_at_, staging, lay, p_word_at, stream);
  upload(d_rule_ops_, staging, lay, p_ops, stream);
  upload(d_rule_at_, staging, lay, p_rule_at, stream);
  d_rule_len_ = DeviceBuffer<std::uint16_t>(std::size_t(run.count), stream);
  d_rule_table_ = DeviceBuffer<std::uint32_t>(4 * kRuleLengths, stream);
  WK_CUDA_CHECK(cudaMemsetAsync(d_rule_table_.get(), 0, d_rule_table_.bytes(), stream));
  in.words = d_words_.get();
  in.word_at = d_word_at_.get();
  in.ops = d_rule_ops_.get();
  in.rule_at = d_rule_at_.get();
  in.first = run.first;
  in.count = std::uint32_t(run.count);
  in.rules = std::uint32_t(r);
  launch_rule_lengths(in, d_rule_len_.get(), d_rule_table_.get(), stream);
  auto* hist = reinterpret_cast<std::uint32_t*>(h + lay.parts[p_hist].first);
  WK_CUDA_CHECK(cudaMemcpyAsync(hist, d_rule_table_.get(), 4 * kRuleLengths, cudaMemcpyDeviceToHost, stream));
  wait_sleeping(stream);
  return std::vector<std::uint32_t>(hist, hist + kRuleLengths);
}

void RoundMethodBatch::make_parts() {
  if (!part_streams_.empty()) return;
  for (int q = 1; q < kLaunchParts; ++q) {
    part_streams_.emplace_back();
    joined_.emplace_back(cudaEventDisableTiming);
  }
  // Blocking-sync: the progress waits sleep. wk-hash keeps several batches in flight, each waiting
  // on its thread most of the time; spinning, they would take that many cores from the host work
  // (packing, formatting) of the others.
  for (int e = 0; e < (kStepsAhead + 1) * kLaunchParts; ++e)
    step_done_.emplace_back(cudaEventBlockingSync | cudaEventDisableTiming);
}

// The batch's stream waits for everything queued on the part streams.
void RoundMethodBatch::join_parts() noexcept {
  for (std::size_t q = 0; q < part_streams_.size(); ++q)
    if (cudaEventRecord(joined_[q].get(), part_streams_[q]) == cudaSuccess)
      cudaStreamWaitEvent(core_.stream, joined_[q].get(), 0);
}

void RoundMethodBatch::wipe() noexcept {
  // After any launch still queued on the part streams.
  join_parts();
  const cudaStream_t stream = core_.stream;
  wipe_device(d_pw_, stream);
  wipe_device(d_cand_, stream);
  wipe_device(d_words_, stream);
  wipe_device(d_pseq_, stream);
  wipe_device(d_sseq_, stream);
  wipe_device(d_tmpl_, stream);
  wipe_device(d_state_, stream);
}

void RoundMethodBatch::run(cudaStream_t stream, const std::function<void(double)>& progress,
                           const std::function<void()>& queued) {
  make_parts();
  // Part q of a range: its jobs in blocks [nb * q / P, nb * (q + 1) / P) of the round kernels.
  auto part = [](const ShaRange& range, int q) {
    ShaRange p = range;
    const int nb = (range.count + kRoundThreads - 1) / kRoundThreads;
    p.first = std::min(range.count, nb * q / kLaunchParts * kRoundThreads);
    p.last = std::min(range.count, nb * (q + 1) / kLaunchParts * kRoundThreads);
    return p;
  };
  forked_.record(stream);  // the uploads (and a previous run) before any part's launches
  for (const Stream& s : part_streams_) WK_CUDA_CHECK(cudaStreamWaitEvent(s, forked_.get(), 0));
  {
    nvtx::Range r("setup", nvtx::Color::compute);
    for (int q = 0; q < kLaunchParts; ++q)
      for (const ShaRange& range : ranges_) k_.setup(sha_, part(range, q), part_stream(q));
  }
  const std::uint32_t max_rounds = *std::max_element(range_rounds_.begin(), range_rounds_.end());
  const std::uint32_t steps = max_rounds / rounds_per_launch_ + (max_rounds % rounds_per_launch_ != 0);
  auto step_end = [&](std::uint32_t s) {
    return std::uint32_t(std::min<std::uint64_t>(max_rounds, std::uint64_t(s + 1) * rounds_per_launch_));
  };
  auto event = [&](std::uint32_t s, int q) -> Event& { return step_done_[(s % (kStepsAhead + 1)) * kLaunchParts + q]; };
  auto report = [&](std::uint32_t s) {
    for (int q = 0; q < kLaunchParts; ++q) event(s, q).synchronize();
    progress(double(step_end(s)) / double(max_rounds));
  };
  for (std::uint32_t s = 0; s < steps; ++s) {
    const std::uint32_t r0 = s * rounds_per_launch_, r1 = step_end(s);
    nvtx::Range r("rounds", nvtx::Color::compute, std::int64_t(r0));
    for (int q = 0; q < kLaunchParts; ++q)
      for (std::size_t i = 0; i < ranges_.size(); ++i)
        if (r0 < range_rounds_[i]) k_.rounds(sha_, part(ranges_[i], q), r0, r1, part_stream(q));
    if (progress) {
      for (int q = 0; q < kLaunchParts; ++q) event(s, q).record(part_stream(q));
      if (s >= kStepsAhead && s + 1 < steps) report(s - kStepsAhead);
    }
  }
  {
    nvtx::Range r("final", nvtx::Color::compute);
    for (int q = 0; q < kLaunchParts; ++q)
      for (const ShaRange& range : ranges_) {
        const ShaRange p = part(range, q);
        k_.final(sha_, range.begin + p.first, range.begin + p.last, part_stream(q));
      }
  }
  join_parts();
  if (queued) queued();
  if (progress)
    for (std::uint32_t s = steps > kStepsAhead + 1 ? steps - kStepsAhead - 1 : 0; s < steps; ++s) report(s);
}

}  // namespace

std::unique_ptr<MethodBatch> make_round_batch(BatchCore& core, const ShaKernels& kernels) {
  return std::make_unique<RoundMethodBatch>(core, kernels);
}

}  // namespace wk::hash::gpu
