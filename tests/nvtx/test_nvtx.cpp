// NVTX ranges, proven: the apps run with tests/nvtx/nvtx_recorder.cpp injected through
// NVTX_INJECTION64_PATH, and the recorded ranges must have the documented names, nesting
// (docs/profiling.md) and balance. No GPU needed: the CPU backend carries the same ranges.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::sh_quote;

namespace {

struct RangeNode {
  std::string name;
  std::string payload;
  std::vector<RangeNode> children;
};

struct Recording {
  std::vector<RangeNode> roots;       // per-thread trees, threads in order of first event
  std::vector<std::string> problems;  // unbalanced pops, other domains, ranges left open
};

// Rebuilds the push/pop trees of every thread from the recorder's log.
Recording parse_log(const std::string& log) {
  Recording rec;
  std::map<std::string, std::vector<RangeNode*>> stacks;
  std::map<std::string, std::size_t> first_root;
  std::vector<std::unique_ptr<RangeNode>> thread_roots;
  std::map<std::string, RangeNode*> root_of;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    for (std::string x; std::getline(ls, x, '\t');) f.push_back(x);
    if (f.empty()) continue;
    if (f.size() > 1 && f[1] != "warpkit") rec.problems.push_back("range outside the warpkit domain: " + line);
    if (f[0] == "push" && f.size() == 5) {
      const std::string& tid = f[4];
      if (!root_of.count(tid)) {
        thread_roots.push_back(std::make_unique<RangeNode>());
        root_of[tid] = thread_roots.back().get();
        stacks[tid].push_back(root_of[tid]);
      }
      auto& st = stacks[tid];
      st.back()->children.push_back({f[2], f[3], {}});
      st.push_back(&st.back()->children.back());
    } else if (f[0] == "pop" && f.size() == 3) {
      auto& st = stacks[f[2]];
      if (st.size() <= 1) rec.problems.push_back("pop without push on thread " + f[2]);
      else st.pop_back();
    } else if (f[0] == "start" || f[0] == "end") {
      // start/end ranges are checked for balance only.
    } else {
      rec.problems.push_back("unparsable line: " + line);
    }
  }
  for (auto& [tid, st] : stacks)
    if (st.size() > 1) rec.problems.push_back("range '" + st.back()->name + "' never popped on thread " + tid);
  for (auto& r : thread_roots)
    for (auto& c : r->children) rec.roots.push_back(c);
  return rec;
}

std::vector<std::string> child_names(const RangeNode& n) {
  std::vector<std::string> v;
  for (const auto& c : n.children) v.push_back(c.name);
  return v;
}

void collect_names(const RangeNode& n, std::set<std::string>& out) {
  out.insert(n.name);
  for (const auto& c : n.children) collect_names(c, out);
}

std::set<std::string> all_names(const Recording& rec) {
  std::set<std::string> names;
  for (const auto& r : rec.roots) collect_names(r, names);
  return names;
}

std::string run_recorded(const std::string& command, const fs::path& log) {
  const std::string env = "NVTX_INJECTION64_PATH=" + sh_quote(WK_NVTX_RECORDER) + " WK_NVTX_LOG=" + sh_quote(log.string()) + " ";
  const auto r = wk::test::run(env + command);
  INFO(r.output);
  return fs::exists(log) ? wk::test::read_bytes(log) : std::string();
}

}  // namespace

TEST_CASE("nvtx: the recorder sees nothing without injection, and ranges cost no output", "[nvtx]") {
  wk::test::TempDir dir;
  const auto r = wk::test::run("WK_NVTX_LOG=" + sh_quote((dir / "log").string()) + " " + std::string(WK_IMAGE_EXE) + " --help");
  CHECK(r.exit_code == 0);
  CHECK_FALSE(fs::exists(dir / "log"));
}

TEST_CASE("nvtx: wk-image ranges per stage and per file, nested and balanced", "[nvtx]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in");
  cv::imwrite((dir / "in" / "a.png").string(), wk::test::random_image(16, 8, 3, 1));
  cv::imwrite((dir / "in" / "b.jpg").string(), wk::test::random_image(16, 8, 3, 2));
  wk::test::write_bytes(dir / "in" / "c.png", "");  // fails in decode
  const std::string log = run_recorded(std::string(WK_IMAGE_EXE) + " gray --device cpu -q -o " + sh_quote((dir / "out").string()) +
                                           " " + sh_quote((dir / "in").string()),
                                       dir / "nvtx.log");
  REQUIRE_FALSE(log.empty());
  const Recording rec = parse_log(log);
  INFO(log);
  CHECK(rec.problems.empty());
  // The main thread opens "wk-image" with "scan" inside; each worker thread has one "file"
  // range per image (payload: the image's number) with the stages inside.
  REQUIRE_FALSE(rec.roots.empty());
  const RangeNode& app = rec.roots[0];
  CHECK(app.name == "wk-image");
  REQUIRE_FALSE(app.children.empty());
  CHECK(app.children.front().name == "scan");
  std::vector<const RangeNode*> files;
  for (const auto& root : rec.roots)
    if (root.name == "file") files.push_back(&root);
  std::sort(files.begin(), files.end(), [](auto* a, auto* b) { return a->payload < b->payload; });
  REQUIRE(files.size() == 3);
  const std::vector<std::string> full{"read", "decode", "gray", "encode", "write"};
  CHECK(files[0]->payload == "0");
  CHECK(child_names(*files[0]) == full);
  CHECK(files[1]->payload == "1");
  CHECK(child_names(*files[1]) == full);
  CHECK(files[2]->payload == "2");
  CHECK(child_names(*files[2]) == std::vector<std::string>{"read", "decode"});
}

TEST_CASE("nvtx: wk-bench opens its app range", "[nvtx]") {
  wk::test::TempDir dir;
  const std::string log = run_recorded(std::string(WK_BENCH_EXE) + " gray --device cpu --size 64x64 --repeats 2", dir / "nvtx.log");
  const Recording rec = parse_log(log);
  INFO(log);
  CHECK(rec.problems.empty());
  REQUIRE_FALSE(rec.roots.empty());
  CHECK(rec.roots[0].name == "wk-bench");
}

TEST_CASE("nvtx: wk-crypt ranges for key, chunks and commit, balanced", "[nvtx]") {
  wk::test::TempDir dir;
  REQUIRE(wk::test::run(std::string(WK_CRYPT_EXE) + " keygen " + sh_quote((dir / "k").string())).exit_code == 0);
  wk::test::write_bytes(dir / "plain", std::string(300000, 'x'));
  const std::string log = run_recorded(std::string(WK_CRYPT_EXE) + " encrypt --device cpu -q --key " + sh_quote((dir / "k").string()) + " " +
                                           sh_quote((dir / "plain").string()) + " " + sh_quote((dir / "enc").string()),
                                       dir / "nvtx.log");
  const Recording rec = parse_log(log);
  INFO(log);
  CHECK(rec.problems.empty());
  REQUIRE_FALSE(rec.roots.empty());
  CHECK(rec.roots[0].name == "wk-crypt");
  const auto names = all_names(rec);
  for (const char* n : {"encrypt", "read-key", "read", "crypt", "write", "commit"}) {
    CAPTURE(n);
    CHECK(names.count(n) == 1);
  }
}

TEST_CASE("nvtx: wk-hash ranges for input, hashing batches and output, balanced", "[nvtx]") {
  wk::test::TempDir dir;
  wk::test::write_bytes(dir / "pw", "alpha\nbeta\n");
  const std::string log = run_recorded(std::string(WK_HASH_EXE) + " hash --method md5crypt --device cpu -i " + sh_quote((dir / "pw").string()) +
                                           " -o " + sh_quote((dir / "out").string()),
                                       dir / "nvtx.log");
  const Recording rec = parse_log(log);
  INFO(log);
  CHECK(rec.problems.empty());
  REQUIRE_FALSE(rec.roots.empty());
  CHECK(rec.roots[0].name.rfind("wk-hash", 0) == 0);
  const auto names = all_names(rec);
  CHECK(names.count("read") == 1);
  CHECK(names.count("write") == 1);
}
