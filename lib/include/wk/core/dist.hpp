#pragma once
// Scale-out over processes started by an MPI launcher (Open MPI's mpirun, Slurm's srun): one rank
// per process; rank 0 deals chunks of the work on demand (a slow rank simply asks less often) and
// collects what each chunk produced. MPI is linked by the apps only (wk_dist_mpi in
// apps/CMakeLists.txt builds this file with MPI into them); the installed library, a build without
// MPI (WARPKIT_MPI OFF) and a process started without a launcher are a world of one rank: the same
// code then runs everything locally, with no MPI call at all.
//
// Threads: MPI runs with MPI_THREAD_MULTIPLE; a ChunkDealer may be used from any thread. Waiting
// ranks poll (MPI_Test, then a short sleep) instead of spinning on a core, so the cores stay with
// the work.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wk::dist {

// True when this build has MPI (CMake option WARPKIT_MPI, auto-detected).
bool mpi_in_build() noexcept;

struct World {
  int rank = 0, size = 1;
  int local_rank = 0, local_size = 1;  // among the ranks of this node
  bool distributed() const noexcept { return size > 1; }
};

// Starts MPI when this build has it and the process was started by a launcher (mpirun, srun:
// OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK set); otherwise returns a world of one. Ranks
// sharing a node whose affinity is not bound (mpirun --oversubscribe, srun without --cpu-bind)
// split its cores (wk::limit_cores). Throws wk::Error{unsupported} when MPI lacks thread support.
const World& init(int* argc, char*** argv);
const World& world() noexcept;  // init's result (a world of one before init)
// MPI_Finalize, when init started MPI. Only after a normal end: a job cut short ends with _exit.
void finalize() noexcept;

// Collectives over the world (nothing to do in a world of one).
void broadcast(std::string& bytes);  // rank 0's bytes to every rank
int broadcast(int value);            // rank 0's value
void sum(std::vector<std::uint64_t>& values);  // every rank gets the element-wise sums
[[noreturn]] void abort(int code) noexcept;    // MPI_Abort (or _exit alone): ends every rank

// The share of `items` (a node's GPUs) for process `index` of `count` sharing them (node-local
// ranks): the items i with i % count == index % count, or item index % size when there are fewer
// items than processes (they then share it). count <= 1: every item.
std::vector<int> node_share(const std::vector<int>& items, int index, int count);

// A chunk of items [begin, end) of the job's work list; `id` numbers the chunks in item order.
struct Chunk {
  std::size_t id = 0, begin = 0, end = 0;
};

// Chunk boundaries over `weights` (one per item: bytes of a file, 1 per line): about `chunks`
// chunks of equal weight, each with at least one item. Returns chunk i as [b[i], b[i + 1]).
std::vector<std::size_t> chunk_bounds(const std::vector<std::uint64_t>& weights, std::size_t chunks);

// Deals chunks to the ranks as they ask and hands what each chunk produced (a payload of bytes)
// to rank 0's `deliver`. Rank 0 deals from a thread of its own and works on chunks too.
class ChunkDealer {
 public:
  struct Options {
    std::vector<std::size_t> bounds;  // rank 0: chunk i is [bounds[i], bounds[i + 1]); other ranks: unused
    bool ordered = false;             // deliver in chunk order (else as they come)
    std::size_t window = 0;           // ordered: deal at most this many chunks past the oldest undelivered one (0: any)
    // Rank 0: a chunk's payload (`rank` did it), one call at a time, on whichever thread completed it.
    std::function<void(const Chunk&, int rank, std::string&& payload)> deliver;
    const std::atomic<bool>* stop = nullptr;  // once set: no new chunk is dealt
  };
  explicit ChunkDealer(Options options);
  ~ChunkDealer();
  ChunkDealer(const ChunkDealer&) = delete;
  ChunkDealer& operator=(const ChunkDealer&) = delete;

  // The next chunk for this rank; nullopt when every chunk is dealt (or after stop). May wait
  // (ordered: while the window is full).
  std::optional<Chunk> next();
  // What `chunk` produced, to rank 0 (a partial chunk too, after a stop).
  void done(const Chunk& chunk, std::string payload);

  // A chunk dealt to a rank that never reported it.
  struct Missing {
    Chunk chunk;
    int rank = 0;
  };
  // Rank 0: waits until every dealt chunk is delivered and every rank was told there is no more;
  // once stop is set, waits for them until `grace` after the stop was first seen. Returns the chunks never delivered. Other
  // ranks: waits until their payloads were sent. Call once, after this rank's last done().
  std::vector<Missing> finish(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

  // Rank 0: the chunks dealt and not reported yet, now (other ranks: none).
  std::vector<Missing> outstanding() const;

  std::size_t chunk_count() const noexcept;  // rank 0: all chunks; other ranks: those dealt here

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wk::dist
