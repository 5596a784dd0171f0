// parallel_for: every index exactly once, chunk bounds as documented, exceptions reach the caller,
// and concurrent / nested callers finish (the caller takes chunks when the pool is busy).
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "wk/core/parallel.hpp"

TEST_CASE("parallel_for visits every index once, in chunks of the grain", "[core][parallel]") {
  CHECK(wk::parallel_threads() >= 1);
  for (std::size_t n : {0u, 1u, 7u, 1000u, 100003u}) {
    for (std::size_t grain : {1u, 3u, 4096u}) {
      std::vector<std::atomic<int>> hits(n);
      std::atomic<int> bad_chunks{0};
      wk::parallel_for(n, grain, [&](std::size_t begin, std::size_t end) {
        if (begin >= end || end > n || (begin % grain) != 0 || (end - begin > grain)) ++bad_chunks;
        for (std::size_t i = begin; i < end; ++i) ++hits[i];
      });
      CAPTURE(n, grain);
      CHECK(bad_chunks == 0);
      int wrong = 0;
      for (auto& h : hits) wrong += h != 1;
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("parallel_for rethrows a chunk's exception", "[core][parallel]") {
  CHECK_THROWS_AS(wk::parallel_for(1000, 10,
                                   [](std::size_t begin, std::size_t) {
                                     if (begin == 500) throw std::runtime_error("chunk 50");
                                   }),
                  std::runtime_error);
  // The pool still works afterwards.
  std::atomic<std::size_t> sum{0};
  wk::parallel_for(100, 7, [&](std::size_t b, std::size_t e) { sum += e - b; });
  CHECK(sum == 100);
}

TEST_CASE("parallel_for: concurrent and nested callers all finish", "[core][parallel]") {
  std::atomic<std::size_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      wk::parallel_for(64, 1, [&](std::size_t, std::size_t) {
        wk::parallel_for(50, 5, [&](std::size_t b, std::size_t e) { total += e - b; });
      });
    });
  for (auto& c : callers) c.join();
  CHECK(total == 4u * 64u * 50u);
}
