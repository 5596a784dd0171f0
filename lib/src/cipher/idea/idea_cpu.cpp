// IDEA on the CPU: key schedules, jobs and the multi-threaded CPU path. The cipher itself is
// idea_crypt_words() from idea_round.hpp, the same code the kernels run.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "wk/cipher/idea.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"

namespace wk::cipher {

const char* to_string(IdeaMode mode) noexcept { return mode == IdeaMode::ecb ? "ecb" : "ctr"; }

IdeaSubkeys idea_encryption_subkeys(const IdeaKey& key) {
  // The key as a 128-bit big-endian integer (hi:lo), rotated left by 25 bits after every 8 subkeys.
  std::uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; ++i) hi = (hi << 8) | key[i];
  for (int i = 8; i < 16; ++i) lo = (lo << 8) | key[i];
  IdeaSubkeys sk{};
  for (int i = 0; i < kIdeaSubkeys; ++i) {
    const int w = i % 8;  // word w of the current rotation, most significant first
    const std::uint64_t half = w < 4 ? hi : lo;
    sk.k[i] = static_cast<std::uint32_t>(half >> (48 - 16 * (w % 4))) & 0xFFFFu;
    if (w == 7) {
      const std::uint64_t new_hi = (hi << 25) | (lo >> 39);
      const std::uint64_t new_lo = (lo << 25) | (hi >> 39);
      hi = new_hi;
      lo = new_lo;
    }
  }
  return sk;
}

IdeaSubkeys idea_invert_subkeys(const IdeaSubkeys& e) {
  // Decryption round r (0-based) undoes encryption round 7-r: it takes the inverses of the
  // subkeys that follow that round (its output transform, or the next round's first four), with
  // the two additive keys swapped back except around the output transform, and the MA-structure
  // keys of round 7-r unchanged (the MA structure is an involution given the same keys).
  auto add_inv = [](std::uint32_t x) { return (0x10000u - x) & 0xFFFFu; };
  IdeaSubkeys d{};
  for (int r = 0; r < kIdeaRounds; ++r) {
    const int base = 6 * (kIdeaRounds - r);  // the four keys after encryption round 7-r
    const bool edge = r == 0;                // next to the output transform: no middle swap
    d.k[6 * r + 0] = idea_mul_inverse(e.k[base + 0]);
    d.k[6 * r + 1] = add_inv(e.k[base + (edge ? 1 : 2)]);
    d.k[6 * r + 2] = add_inv(e.k[base + (edge ? 2 : 1)]);
    d.k[6 * r + 3] = idea_mul_inverse(e.k[base + 3]);
    d.k[6 * r + 4] = e.k[base - 2];
    d.k[6 * r + 5] = e.k[base - 1];
  }
  d.k[48] = idea_mul_inverse(e.k[0]);
  d.k[49] = add_inv(e.k[1]);
  d.k[50] = add_inv(e.k[2]);
  d.k[51] = idea_mul_inverse(e.k[3]);
  return d;
}

IdeaJob idea_ecb_job(const IdeaKey& key, IdeaDirection direction) {
  IdeaJob j;
  j.mode = IdeaMode::ecb;
  j.subkeys = direction == IdeaDirection::encrypt ? idea_encryption_subkeys(key) : idea_decryption_subkeys(key);
  return j;
}

IdeaJob idea_ctr_job(const IdeaKey& key, std::uint64_t counter) {
  IdeaJob j;
  j.mode = IdeaMode::ctr;
  j.subkeys = idea_encryption_subkeys(key);
  j.counter = counter;
  return j;
}

namespace {

// kLanes blocks at a time: independent dependency chains for the out-of-order core (and
// vector lanes where the compiler finds them); the tail one block at a time.
constexpr int kLanes = 8;

void idea_cpu_range(const IdeaJob& job, const std::uint8_t* in, std::uint8_t* out, std::size_t first, std::size_t count) {
  const IdeaSubkeys sk = job.subkeys;  // a local copy: the compiler keeps it out of aliasing doubt
  const bool ecb = job.mode == IdeaMode::ecb;
  std::size_t i = first;
  const std::size_t end = first + count;
  for (; i + kLanes <= end; i += kLanes) {
    std::uint64_t v[kLanes];
    for (int l = 0; l < kLanes; ++l) v[l] = ecb ? idea_load_be64(in + (i + l) * kIdeaBlockBytes) : job.counter + i + l;
    idea_crypt_u64_lanes(v, sk);
    for (int l = 0; l < kLanes; ++l) {
      const std::uint64_t o = ecb ? v[l] : v[l] ^ idea_load_be64(in + (i + l) * kIdeaBlockBytes);
      idea_store_be64(out + (i + l) * kIdeaBlockBytes, o);
    }
  }
  for (; i < end; ++i) {
    const std::uint64_t b = idea_load_be64(in + i * kIdeaBlockBytes);
    idea_store_be64(out + i * kIdeaBlockBytes, ecb ? idea_crypt_u64(b, sk) : b ^ idea_crypt_u64(job.counter + i, sk));
  }
}

}  // namespace

void idea_cpu(const IdeaJob& job, const std::uint8_t* in, std::uint8_t* out, std::size_t nblocks, int threads) {
  if (nblocks == 0) return;
  if (!in || !out) throw Error(ErrorCategory::usage, "idea_cpu: null buffer");
  if (threads < 0) throw Error(ErrorCategory::usage, "idea_cpu: negative thread count");
  if (threads == 0) threads = static_cast<int>(usable_cores());
  // Below ~64 KiB per thread, starting a thread costs more than the work it takes over.
  constexpr std::size_t kMinBlocksPerThread = 8192;
  const std::size_t useful = std::max<std::size_t>(1, nblocks / kMinBlocksPerThread);
  const std::size_t t = std::min<std::size_t>(static_cast<std::size_t>(threads), useful);
  if (t == 1) {
    idea_cpu_range(job, in, out, 0, nblocks);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  const std::size_t per = nblocks / t, extra = nblocks % t;
  std::size_t first = 0;
  std::size_t mine_first = 0, mine_count = 0;
  for (std::size_t k = 0; k < t; ++k) {
    const std::size_t count = per + (k < extra ? 1 : 0);
    if (k == 0) {
      mine_first = first;
      mine_count = count;
    } else {
      pool.emplace_back(idea_cpu_range, std::cref(job), in, out, first, count);
    }
    first += count;
  }
  idea_cpu_range(job, in, out, mine_first, mine_count);
  for (auto& th : pool) th.join();
}

}  // namespace wk::cipher
