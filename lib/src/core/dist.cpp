// wk::dist: MPI worlds, chunk dealing and collection (wk/core/dist.hpp). Without WK_HAVE_MPI
// (or without a launcher) the world is one rank and the dealer works in memory.
//
// Protocol between a rank r > 0 and rank 0 (MPI_COMM_WORLD):
//   r -> 0  kAsk    1 byte: 0 "a chunk, please", 1 "I stop asking" (stopped)
//   0 -> r  kChunk  3 x uint64 {id, begin, end}; id == UINT64_MAX: no chunk is left
//   r -> 0  kDone   8 bytes chunk id (little-endian host order) + the payload
// Rank 0 answers from its service thread, which polls (MPI_Iprobe) instead of blocking in MPI.
#include "wk/core/dist.hpp"

#include <sched.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"

#ifndef WK_HAVE_MPI
#define WK_HAVE_MPI 0
#endif
#if WK_HAVE_MPI
#include <mpi.h>
#endif

namespace wk::dist {

namespace {

World g_world;
bool g_started = false;

[[maybe_unused]] bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

constexpr std::uint64_t kNoChunk = ~std::uint64_t(0);
[[maybe_unused]] constexpr int kAsk = 101, kChunk = 102, kDone = 103;

// Between polls: short sleeps, so a rank waiting for rank 0 leaves its core to the work.
void nap(int& spins) {
  if (++spins < 64) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(spins < 1024 ? 50 : 200));
}

#if WK_HAVE_MPI
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(ErrorCategory::io, std::string("MPI: ") + what + " failed");
}

void wait_for(MPI_Request& request) {
  int flag = 0, spins = 0;
  for (;;) {
    check(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    if (flag) return;
    nap(spins);
  }
}
#endif

}  // namespace

bool mpi_in_build() noexcept { return WK_HAVE_MPI; }

const World& world() noexcept { return g_world; }

const World& init([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#if !WK_HAVE_MPI
  // Started by a launcher with several ranks, but built without MPI: every process would do the
  // whole job (and write the same outputs). Refuse.
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(var); v && std::atoi(v) > 1 && launched_by_mpi())
      throw Error(ErrorCategory::usage, std::string("started as one of ") + v + " ranks (" + var +
                                            "), but this build has no MPI (WARPKIT_MPI was OFF or MPI was not found): "
                                            "each rank would do the whole job; rebuild with MPI or run one process");
#else
  if (g_started || !launched_by_mpi()) return g_world;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    throw Error(ErrorCategory::io, "MPI: MPI_Init_thread failed");
  g_started = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &g_world.local_rank);
  MPI_Comm_size(node, &g_world.local_size);
  MPI_Comm_free(&node);
  if (provided < MPI_THREAD_MULTIPLE)
    throw Error(ErrorCategory::unsupported, "MPI: this MPI library gives no MPI_THREAD_MULTIPLE support (warpkit needs it)");
  // Unbound ranks of one node would each take every core: split them.
  if (g_world.local_size > 1) {
    const unsigned cores = usable_cores(), all = std::max(1u, std::thread::hardware_concurrency());
    if (cores >= all) limit_cores(std::max(1u, all / unsigned(g_world.local_size)));
  }
#endif
  return g_world;
}

void finalize() noexcept {
#if WK_HAVE_MPI
  if (g_started) {
    MPI_Finalize();
    g_started = false;
  }
#endif
}

void broadcast([[maybe_unused]] std::string& bytes) {
#if WK_HAVE_MPI
  if (!g_world.distributed()) return;
  std::uint64_t size = bytes.size();
  check(MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  bytes.resize(size);
  constexpr std::uint64_t kPiece = 1u << 30;  // MPI counts are int
  for (std::uint64_t at = 0; at < size; at += kPiece)
    check(MPI_Bcast(bytes.data() + at, int(std::min(kPiece, size - at)), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
#endif
}

int broadcast(int value) {
#if WK_HAVE_MPI
  if (g_world.distributed()) check(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
#endif
  return value;
}

void sum([[maybe_unused]] std::vector<std::uint64_t>& values) {
#if WK_HAVE_MPI
  if (g_world.distributed() && !values.empty())
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
#endif
}

void abort(int code) noexcept {
#if WK_HAVE_MPI
  if (g_started) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::fflush(nullptr);
  ::_exit(code);
}

std::vector<int> node_share(const std::vector<int>& items, int index, int count) {
  if (count <= 1 || items.empty()) return items;
  std::vector<int> mine;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (int(i) % count == index % count) mine.push_back(items[i]);
  if (mine.empty()) mine.push_back(items[std::size_t(index) % items.size()]);
  return mine;
}

std::vector<std::size_t> chunk_bounds(const std::vector<std::uint64_t>& weights, std::size_t chunks) {
  std::vector<std::size_t> bounds{0};
  if (weights.empty()) return bounds;
  chunks = std::max<std::size_t>(1, chunks);
  long double total = 0;
  for (std::uint64_t w : weights) total += w;
  const long double target = std::max<long double>(total / chunks, 1);
  long double acc = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    acc += weights[i];
    if (acc >= target && i + 1 < weights.size()) {
      bounds.push_back(i + 1);
      acc = 0;
    }
  }
  bounds.push_back(weights.size());
  return bounds;
}

struct ChunkDealer::Impl {
  Options opt;
  World w = g_world;

  // Rank 0.
  mutable std::mutex m;
  std::condition_variable changed;
  std::size_t next = 0;       // the next chunk to deal
  std::size_t delivered = 0;  // ordered: chunks [0, delivered) were delivered
  std::size_t received = 0;   // payloads received (delivered or waiting)
  std::vector<int> owner;     // per dealt chunk: its rank
  std::vector<bool> got;      // per chunk: its payload arrived
  std::map<std::size_t, std::pair<int, std::string>> waiting;  // ordered: arrived, not yet delivered
  std::mutex deliver_m;       // one deliver call at a time
  int ended = 0;              // ranks > 0 that asked their last
  bool finishing = false;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point stop_seen = std::chrono::steady_clock::time_point::max();  // rank 0
  std::thread service;
  std::exception_ptr service_error;

  // Ranks > 0.
  std::mutex ask_m;
  bool exhausted = false;
  std::size_t dealt_here = 0;

  bool stopped() const { return opt.stop && opt.stop->load(); }
  std::size_t count() const { return opt.bounds.empty() ? 0 : opt.bounds.size() - 1; }
  Chunk chunk(std::size_t id) const { return {id, opt.bounds[id], opt.bounds[id + 1]}; }

  enum class Deal { chunk, wait, end };
  // Under m.
  Deal deal(int rank, Chunk& out) {
    if (stopped() || next >= count()) return Deal::end;
    if (opt.ordered && opt.window && next >= delivered + opt.window) return Deal::wait;
    out = chunk(next++);
    owner.push_back(rank);
    return Deal::chunk;
  }

  void accept(std::size_t id, int rank, std::string&& payload) {
    if (id >= count()) throw Error(ErrorCategory::internal, "dist: a payload for an unknown chunk");
    {
      std::lock_guard lock(m);
      if (got[id]) throw Error(ErrorCategory::internal, "dist: chunk " + std::to_string(id) + " reported twice");
      got[id] = true;
      ++received;
      if (opt.ordered) waiting.emplace(id, std::make_pair(rank, std::move(payload)));
    }
    std::lock_guard deliver_lock(deliver_m);
    if (!opt.ordered) {
      if (opt.deliver) opt.deliver(chunk(id), rank, std::move(payload));
    } else {
      for (;;) {
        std::pair<int, std::string> item;
        std::size_t at = 0;
        {
          std::lock_guard lock(m);
          if (waiting.empty() || waiting.begin()->first != delivered) break;
          at = delivered;
          item = std::move(waiting.begin()->second);
          waiting.erase(waiting.begin());
        }
        if (opt.deliver) opt.deliver(chunk(at), item.first, std::move(item.second));
        std::lock_guard lock(m);
        ++delivered;
      }
    }
    changed.notify_all();
  }

#if WK_HAVE_MPI
  void reply(int rank, const Chunk* c) {
    const std::uint64_t msg[3] = {c ? c->id : kNoChunk, c ? c->begin : 0, c ? c->end : 0};
    check(MPI_Send(msg, 3, MPI_UINT64_T, rank, kChunk, MPI_COMM_WORLD), "MPI_Send");
  }

  // Rank 0's service thread: answers asks (deferred while an ordered window is full) and takes
  // payloads, until every rank stopped asking and every dealt chunk arrived (or the deadline).
  void serve() {
    std::deque<int> asks;  // ranks waiting for an answer
    int spins = 0;
    for (;;) {
      bool worked = false;
      {
        std::unique_lock lock(m);
        while (!asks.empty()) {
          Chunk c;
          const Deal d = deal(asks.front(), c);
          if (d == Deal::wait) break;
          const int rank = asks.front();
          asks.pop_front();
          if (d == Deal::end) {
            ++ended;
            changed.notify_all();  // finish() may be waiting for the last rank
          }
          lock.unlock();
          reply(rank, d == Deal::chunk ? &c : nullptr);
          lock.lock();
          worked = true;
        }
        if (stopped() && stop_seen == std::chrono::steady_clock::time_point::max())
          stop_seen = std::chrono::steady_clock::now();
        if (finishing && ended == w.size - 1 && received == next) return;
        if (finishing && std::chrono::steady_clock::now() > deadline) return;
      }
      int flag = 0;
      MPI_Status st;
      check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
      if (flag && st.MPI_TAG == kAsk) {
        char what = 0;
        check(MPI_Recv(&what, 1, MPI_CHAR, st.MPI_SOURCE, kAsk, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        if (what == 1) {
          std::lock_guard lock(m);
          ++ended;
          changed.notify_all();
        } else {
          asks.push_back(st.MPI_SOURCE);
        }
        worked = true;
      } else if (flag && st.MPI_TAG == kDone) {
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        std::string buf(std::size_t(bytes), '\0');
        check(MPI_Recv(buf.data(), bytes, MPI_BYTE, st.MPI_SOURCE, kDone, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        std::uint64_t id = kNoChunk;
        if (buf.size() < sizeof id) throw Error(ErrorCategory::internal, "dist: a short payload message");
        std::memcpy(&id, buf.data(), sizeof id);
        accept(std::size_t(id), st.MPI_SOURCE, buf.substr(sizeof id));
        worked = true;
      }
      if (worked) spins = 0;
      else nap(spins);
    }
  }
#endif
};

ChunkDealer::ChunkDealer(Options options) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.opt = std::move(options);
  if (d.w.rank == 0) {
    d.got.assign(d.count(), false);
#if WK_HAVE_MPI
    if (d.w.distributed())
      d.service = std::thread([&d] {
        try {
          d.serve();
        } catch (...) {
          std::lock_guard lock(d.m);
          d.service_error = std::current_exception();
          d.changed.notify_all();
        }
      });
#endif
  }
}

ChunkDealer::~ChunkDealer() {
  if (impl_->service.joinable()) {
    {
      std::lock_guard lock(impl_->m);
      impl_->finishing = true;
      impl_->deadline = std::chrono::steady_clock::now();
    }
    impl_->service.join();
  }
}

std::size_t ChunkDealer::chunk_count() const noexcept { return impl_->w.rank == 0 ? impl_->count() : impl_->dealt_here; }

std::optional<Chunk> ChunkDealer::next() {
  Impl& d = *impl_;
  if (d.w.rank == 0) {
    std::unique_lock lock(d.m);
    for (;;) {
      if (d.service_error) std::rethrow_exception(d.service_error);
      Chunk c;
      const Impl::Deal r = d.deal(0, c);
      if (r == Impl::Deal::chunk) return c;
      if (r == Impl::Deal::end) return std::nullopt;
      d.changed.wait_for(lock, std::chrono::milliseconds(50));
    }
  }
#if WK_HAVE_MPI
  std::lock_guard lock(d.ask_m);
  if (d.exhausted) return std::nullopt;
  const char what = d.stopped() ? 1 : 0;
  check(MPI_Send(&what, 1, MPI_CHAR, 0, kAsk, MPI_COMM_WORLD), "MPI_Send");
  if (what == 1) {
    d.exhausted = true;
    return std::nullopt;
  }
  std::uint64_t msg[3] = {};
  MPI_Request request;
  check(MPI_Irecv(msg, 3, MPI_UINT64_T, 0, kChunk, MPI_COMM_WORLD, &request), "MPI_Irecv");
  wait_for(request);
  if (msg[0] == kNoChunk) {
    d.exhausted = true;
    return std::nullopt;
  }
  ++d.dealt_here;
  return Chunk{std::size_t(msg[0]), std::size_t(msg[1]), std::size_t(msg[2])};
#else
  return std::nullopt;
#endif
}

void ChunkDealer::done(const Chunk& chunk, std::string payload) {
  Impl& d = *impl_;
  if (d.w.rank == 0) {
    d.accept(chunk.id, 0, std::move(payload));
    return;
  }
#if WK_HAVE_MPI
  std::string buf(sizeof(std::uint64_t), '\0');
  const std::uint64_t id = chunk.id;
  std::memcpy(buf.data(), &id, sizeof id);
  buf += payload;
  if (buf.size() > std::size_t(INT32_MAX)) throw Error(ErrorCategory::internal, "dist: a chunk's payload is over 2 GiB");
  MPI_Request request;
  check(MPI_Isend(buf.data(), int(buf.size()), MPI_BYTE, 0, kDone, MPI_COMM_WORLD, &request), "MPI_Isend");
  wait_for(request);
#endif
}

std::vector<ChunkDealer::Missing> ChunkDealer::finish(std::chrono::milliseconds grace) {
  Impl& d = *impl_;
  if (d.w.rank != 0) {
    // A rank that stopped (or never asked after its last chunk) says it asks no more.
    if (!d.exhausted) {
      std::lock_guard lock(d.ask_m);
#if WK_HAVE_MPI
      const char what = 1;
      check(MPI_Send(&what, 1, MPI_CHAR, 0, kAsk, MPI_COMM_WORLD), "MPI_Send");
#endif
      d.exhausted = true;
    }
    return {};
  }
  if (d.service.joinable()) {
    // The grace period runs from the stop (as the service thread first saw it), not from here:
    // this rank may have spent it finishing its own files.
    auto start_grace = [&] {
      if (!d.stopped() || d.deadline != std::chrono::steady_clock::time_point::max()) return;
      const auto now = std::chrono::steady_clock::now();
      d.deadline = std::min(now, d.stop_seen) + grace;
    };
    {
      std::lock_guard lock(d.m);
      d.finishing = true;
      start_grace();
    }
    for (;;) {
      {
        std::unique_lock lock(d.m);
        auto all_in = [&] { return d.ended == d.w.size - 1 && d.received == d.next; };
        d.changed.wait_for(lock, std::chrono::milliseconds(20), [&] { return d.service_error || all_in(); });
        if (d.service_error) break;
        start_grace();
        if (all_in()) break;  // serve() returns too
        if (std::chrono::steady_clock::now() > d.deadline) break;
      }
    }
    d.service.join();
    if (d.service_error) std::rethrow_exception(d.service_error);
  }
  return outstanding();
}

std::vector<ChunkDealer::Missing> ChunkDealer::outstanding() const {
  Impl& d = *impl_;
  std::vector<Missing> missing;
  if (d.w.rank != 0) return missing;
  std::lock_guard lock(d.m);
  for (std::size_t id = 0; id < d.next; ++id)
    if (!d.got[id]) missing.push_back({d.chunk(id), d.owner[id]});
  return missing;
}

}  // namespace wk::dist
