// wk::dist in a world of one (no launcher): chunk bounds, the dealer's order, window and stop, and
// the folder job's record round trip and tally that rank 0 merges with. The multi-rank runs are
// tests/mpi/mpi_tests.py (ctest label mpi).
#include <catch2/catch.hpp>

#include <atomic>
#include <numeric>
#include <thread>
#include <vector>

#include "wk/core/dist.hpp"
#include "wk/core/parallel.hpp"
#include "wk/pipeline/folder_job.hpp"

using namespace wk;

TEST_CASE("dist: a process without a launcher is a world of one", "[core][dist]") {
  const dist::World& w = dist::world();
  CHECK(w.rank == 0);
  CHECK(w.size == 1);
  CHECK_FALSE(w.distributed());
  std::string bytes = "unchanged";
  dist::broadcast(bytes);
  CHECK(bytes == "unchanged");
  std::vector<std::uint64_t> counts{3, 4};
  dist::sum(counts);
  CHECK(counts == std::vector<std::uint64_t>{3, 4});
  CHECK(usable_cores() >= 1);
}

TEST_CASE("dist: chunk_bounds cover every item once, in order, about equal weight", "[core][dist]") {
  CHECK(dist::chunk_bounds({}, 4) == std::vector<std::size_t>{0});
  CHECK(dist::chunk_bounds({5}, 4) == std::vector<std::size_t>{0, 1});
  const auto b = dist::chunk_bounds(std::vector<std::uint64_t>(100, 1), 10);
  REQUIRE(b.size() == 11);
  for (std::size_t i = 0; i + 1 < b.size(); ++i) CHECK(b[i + 1] - b[i] == 10);
  // One heavy item gets a chunk of its own; no chunk is empty.
  const auto h = dist::chunk_bounds({1, 1, 100, 1, 1, 1}, 3);
  CHECK(h.front() == 0);
  CHECK(h.back() == 6);
  for (std::size_t i = 0; i + 1 < h.size(); ++i) CHECK(h[i + 1] > h[i]);
  CHECK(std::find(h.begin(), h.end(), 3) != h.end());  // the chunk with item 2 ends after it
}

TEST_CASE("dist: node_share splits a node's GPUs over its ranks", "[core][dist]") {
  const std::vector<int> four{0, 1, 2, 3};
  CHECK(dist::node_share(four, 0, 1) == four);
  CHECK(dist::node_share(four, 1, 2) == std::vector<int>{1, 3});
  CHECK(dist::node_share(four, 3, 4) == std::vector<int>{3});
  CHECK(dist::node_share({7}, 2, 3) == std::vector<int>{7});     // fewer GPUs than ranks: shared
  CHECK(dist::node_share({5, 6}, 2, 3) == std::vector<int>{5});  // rank 2 of 3 over 2: GPU 2 % 2
  CHECK(dist::node_share({}, 1, 2).empty());
}

TEST_CASE("dist: the dealer deals every chunk once and delivers in order", "[core][dist]") {
  dist::ChunkDealer::Options o;
  for (std::size_t b = 0; b <= 200; b += 10) o.bounds.push_back(b);  // 20 chunks
  o.ordered = true;
  o.window = 3;
  std::vector<std::size_t> delivered;
  o.deliver = [&](const dist::Chunk& c, int rank, std::string&& payload) {
    CHECK(rank == 0);
    CHECK(payload == std::to_string(c.begin));
    delivered.push_back(c.id);
  };
  dist::ChunkDealer dealer(std::move(o));
  CHECK(dealer.chunk_count() == 20);
  // Two workers that finish their chunks out of order: the window (3) holds the dealing until
  // the oldest is delivered, and deliveries stay in chunk order.
  std::atomic<int> dealt{0};
  auto worker = [&](bool slow_first) {
    bool first = true;
    while (auto c = dealer.next()) {
      ++dealt;
      if (slow_first && first) std::this_thread::sleep_for(std::chrono::milliseconds(30));
      first = false;
      dealer.done(*c, std::to_string(c->begin));
    }
  };
  std::thread a(worker, true), b(worker, false);
  a.join();
  b.join();
  CHECK(dealer.finish().empty());
  CHECK(dealt == 20);
  std::vector<std::size_t> expected(20);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(delivered == expected);
}

TEST_CASE("dist: after a stop no chunk is dealt and the undelivered ones are reported", "[core][dist]") {
  std::atomic<bool> stop{false};
  dist::ChunkDealer::Options o;
  o.bounds = {0, 1, 2, 3, 4};
  o.stop = &stop;
  dist::ChunkDealer dealer(std::move(o));
  const auto c0 = dealer.next(), c1 = dealer.next();
  REQUIRE(c0);
  REQUIRE(c1);
  dealer.done(*c0, "");
  stop = true;
  CHECK_FALSE(dealer.next());
  const auto missing = dealer.finish(std::chrono::milliseconds(10));
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].chunk.id == c1->id);
  CHECK(missing[0].rank == 0);
}

TEST_CASE("folder job: a record survives record_json / record_from_json, tally counts", "[pipeline][dist]") {
  pipeline::FileRecord r;
  r.path = std::string("photos/caf\xe9.png");  // not UTF-8: travels as path_hex
  r.output = std::string("out/caf\xe9.png");
  r.status = pipeline::FileStatus::ok;
  r.width = 640;
  r.height = 480;
  r.device = "gpu0";
  r.decoder = "nvjpeg-hw";
  r.encoder = "opencv";
  r.finished_s = 1.25;
  r.ms = {1, 2, 3, 4, 5};
  const pipeline::FileRecord back = pipeline::record_from_json(pipeline::record_json(r));
  CHECK(back.path == r.path);
  CHECK(back.output == r.output);
  CHECK(back.status == r.status);
  CHECK(back.width == 640);
  CHECK(back.height == 480);
  CHECK(back.device == "gpu0");
  CHECK(back.decoder == "nvjpeg-hw");
  CHECK(back.encoder == "opencv");
  CHECK(back.finished_s == 1.25);
  CHECK(back.ms.write == 5);
  CHECK_THROWS(pipeline::record_from_json("{\"path\": 3}"));

  pipeline::JobResult result;
  result.records = {r, r, r};
  result.records[1].status = pipeline::FileStatus::failed;
  result.records[2].status = pipeline::FileStatus::skipped;
  result.records[2].device = "cpu";
  pipeline::tally(result, 5);
  CHECK(result.totals.files == 5);
  CHECK(result.totals.ok == 1);
  CHECK(result.totals.failed == 1);
  CHECK(result.totals.skipped == 1);
  CHECK(result.totals.not_started == 2);
  CHECK(result.totals.megapixels == Approx(0.3072));
  CHECK(result.gpu.files_gpu == 2);
  CHECK(result.gpu.files_cpu == 1);
}
