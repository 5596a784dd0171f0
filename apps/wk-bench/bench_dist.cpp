// wk-bench dist: what scale-out costs rank 0 (docs/scale-out.md, "Projection to 64 nodes"): run
// under mpirun -np N. Ranks 1..N-1 take chunks from a wk::dist::ChunkDealer and report each with
// a payload, as wk-image and wk-hash do, but do no work on them; rank 0 only deals and collects
// (alone, it deals to itself):
//   deal      empty payloads, unordered delivery: rank 0's cost per chunk dealt and reported
//   ordered   payloads of B bytes delivered in chunk order into a buffer (wk-hash's output path,
//             without the disk): rank 0's in-order collection rate
// --size CxB: C chunks, B bytes a payload (default 8192x8192). Wall clock over the whole deal,
// median of --repeats runs (at most 5).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "benches.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"

namespace wk::bench {

namespace {

double deal_once(std::size_t chunks, std::size_t bytes, bool ordered) {
  dist::ChunkDealer::Options o;
  for (std::size_t c = 0; c <= chunks; ++c) o.bounds.push_back(c);
  o.ordered = ordered;
  o.window = ordered ? std::size_t(dist::world().size) * 7 + 2 : 0;
  std::string sink;
  o.deliver = [&](const dist::Chunk&, int, std::string&& payload) {
    if (ordered) sink.append(payload);
  };
  (void)dist::broadcast(0);  // start together
  const auto t0 = std::chrono::steady_clock::now();
  {
    dist::ChunkDealer dealer(std::move(o));
    const std::string payload(bytes, 'x');
    // With other ranks, rank 0 only deals and collects: every chunk makes the round trip.
    if (dist::world().rank != 0 || !dist::world().distributed())
      while (const auto c = dealer.next()) dealer.done(*c, payload);
    dealer.finish();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (dist::world().rank == 0 && ordered && sink.size() != chunks * bytes)
    throw Error(ErrorCategory::internal, "dist bench: rank 0 collected the wrong number of bytes");
  return s;
}

}  // namespace

int bench_dist(const Options& opt) {
  const dist::World& w = dist::world();
  const std::size_t chunks = std::size_t(opt.width), bytes = std::size_t(opt.height);
  const int repeats = std::min(opt.repeats, 5);
  if (w.rank == 0) {
    fmt::print("wk-bench dist: {} ranks ({} on this node){}, {} chunks, payload {} B, median of {}\n", w.size,
               w.local_size, dist::mpi_in_build() ? "" : " (this build has no MPI)", chunks, bytes, repeats);
    fmt::print("| mode    | ranks | chunks | payload B | wall ms | us per chunk | MB/s to rank 0 |\n");
    fmt::print("|---------|-------|--------|-----------|---------|--------------|----------------|\n");
  }
  for (const bool ordered : {false, true}) {
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) t.push_back(deal_once(chunks, ordered ? bytes : 0, ordered));
    std::sort(t.begin(), t.end());
    const double s = t[t.size() / 2];
    if (w.rank == 0)
      fmt::print("| {:<7} | {:>5} | {:>6} | {:>9} | {:>7.1f} | {:>12.2f} | {:>14.1f} |\n", ordered ? "ordered" : "deal",
                 w.size, chunks, ordered ? bytes : 0, 1e3 * s, 1e6 * s / double(chunks),
                 ordered ? double(chunks * bytes) / s / 1e6 : 0.0);
  }
  return 0;
}

}  // namespace wk::bench
