// Password input: split_lines (parallel, in 1 MiB pieces) against a plain line splitter, and
// read_secret_input against the bytes written.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "wk/hash/crypt.hpp"
#include "wk/hash/secret_input.hpp"

namespace {

std::vector<std::string_view> split_reference(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(at, nl - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    at = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("split_lines equals a plain splitter, across 1 MiB pieces", "[hash][input]") {
  std::mt19937 rng(5);
  std::vector<std::string> texts = {"", "\n", "a", "a\n", "a\r\n", "\n\n", "a\nb", "a\r\nb\r\n\r\n", "\r", "x\r\r\n"};
  for (int t = 0; t < 6; ++t) {
    // ~3 MiB of lines from 0 to 3000 bytes, some CRLF.
    std::string s;
    while (s.size() < (std::size_t(3) << 20)) {
      const std::size_t len = rng() % 4 == 0 ? rng() % 3000 : rng() % 12;
      s.append(len, char('a' + rng() % 26));
      if (rng() % 5 == 0) s += '\r';
      s += '\n';
    }
    if (t % 3 == 0) s.pop_back();  // no final newline
    if (t == 4) s.resize(std::size_t(2) << 20), s.back() = '\n';  // a newline as a piece's last byte
    texts.push_back(s);
  }
  for (const std::string& s : texts) {
    CAPTURE(s.size());
    const auto got = wk::hash::split_lines(s);
    const auto want = split_reference(s);
    REQUIRE(got.size() == want.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differ += got[i].data() != want[i].data() || got[i] != want[i];
    CHECK(differ == 0);
  }
}

TEST_CASE("LineIndex: any range of lines equals split_lines, across 64 KiB pieces", "[hash][input]") {
  std::mt19937 rng(6);
  for (int t = 0; t < 4; ++t) {
    // ~1 MiB: short lines (many per piece), and with t odd some lines longer than a piece.
    std::string s;
    while (s.size() < (std::size_t(1) << 20)) {
      const std::size_t len = t % 2 && rng() % 50 == 0 ? 70000 + rng() % 100000 : rng() % 12;
      s.append(len, char('a' + rng() % 26));
      if (rng() % 5 == 0) s += '\r';
      s += '\n';
    }
    if (t >= 2) s.pop_back();  // no final newline
    const auto all = wk::hash::split_lines(s);
    const wk::hash::LineIndex index(s);
    REQUIRE(index.size() == all.size());
    for (int r = 0; r < 40; ++r) {
      const std::size_t first = rng() % all.size(), count = std::min<std::size_t>(all.size() - first, 1 + rng() % 30000);
      CAPTURE(t, first, count);
      std::vector<std::string_view> got(count);
      index.get(first, got);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < count; ++i) differ += got[i].data() != all[first + i].data() || got[i] != all[first + i];
      CHECK(differ == 0);
    }
    std::vector<std::string_view> past(2);
    CHECK_THROWS(index.get(all.size() - 1, past));
  }
  CHECK(wk::hash::LineIndex("").size() == 0);
  CHECK(wk::hash::LineIndex("a").size() == 1);
  CHECK(wk::hash::LineIndex("a\n").size() == 1);
}

TEST_CASE("read_secret_input returns the file's bytes", "[hash][input]") {
  const auto path = std::filesystem::temp_directory_path() / "wk-test-secret-input.txt";
  std::string bytes;
  std::mt19937 rng(9);
  for (int i = 0; i < (3 << 20) + 17; ++i) bytes += char(rng() % 256);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  std::fclose(f);
  const wk::hash::SecretBuffer in = wk::hash::read_secret_input(path);
  CHECK(in.view() == bytes);
  std::filesystem::remove(path);
  CHECK_THROWS(wk::hash::read_secret_input(path));
}

TEST_CASE("wipe_on_all_cores zeroes every byte it is given and nothing else", "[hash][input]") {
  // Sizes around the 1 MiB pieces it splits into, and an odd tail; guard bytes on both sides.
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4095), std::size_t(1) << 20, (std::size_t(1) << 20) + 1,
                              (std::size_t(7) << 20) + 12345}) {
    std::vector<unsigned char> buf(n + 64, 0xA5);
    wk::hash::wipe_on_all_cores(buf.data() + 32, n);
    std::size_t nonzero_inside = 0, changed_outside = 0;
    for (std::size_t i = 0; i < buf.size(); ++i) {
      const bool inside = i >= 32 && i < 32 + n;
      if (inside && buf[i] != 0) ++nonzero_inside;
      if (!inside && buf[i] != 0xA5) ++changed_outside;
    }
    INFO("bytes: " << n);
    CHECK(nonzero_inside == 0);
    CHECK(changed_outside == 0);
  }
  wk::hash::wipe_on_all_cores(nullptr, 100);  // no-op
}
