// wk-hash's password and setting lists: read_secret_input (from a file, as the CLI reads one),
// split_lines, check_password, and LineReader (the line engine's streamed input). Invariants: the
// lines put back together are the input (LF separators, one CR dropped before each LF),
// check_password rejects exactly what libxcrypt cannot take (a NUL byte, 512 bytes or more), and
// LineReader's blocks hold the same lines, whatever bounds them.
#include <string>

#include "fuzz_util.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/secret_input.hpp"
#include "wk/hash/setting.hpp"

using wk::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = wk::fuzz::scratch_dir() / "passwords.txt";
  wk::fuzz::write_bytes(path, {data, size});
  const wk::hash::SecretBuffer buf = wk::hash::read_secret_input(path);
  const std::string_view text = buf.view();
  check(text == wk::fuzz::as_text(data, size), "read_secret_input returns the file's bytes");

  const auto lines = wk::hash::split_lines(text);
  // Rebuild: each line, its CR back if the input had CRLF there, and the LF.
  std::size_t pos = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    check(l.data() >= text.data() && l.data() + l.size() <= text.data() + text.size(), "lines point into the input");
    check(std::size_t(l.data() - text.data()) == pos, "lines are contiguous");
    check(l.find('\n') == std::string_view::npos, "no LF inside a line");
    pos += l.size();
    if (pos < text.size() && text[pos] == '\r') ++pos;  // the CR of a CRLF
    if (pos < text.size()) {
      check(text[pos] == '\n', "a line ends at LF");
      ++pos;
    } else {
      check(i + 1 == lines.size(), "only the last line may end at the end of input");
    }
  }
  check(pos == text.size(), "lines cover the input");
  if (!text.empty() && text.back() != '\n') check(!lines.empty(), "a last line without LF is still a line");

  for (auto l : lines) {
    const bool bad = l.find('\0') != std::string_view::npos || l.size() >= 512;
    check(wk::hash::check_password(l).empty() != bad, "check_password rejects exactly NUL bytes and 512+ bytes");
  }

  // The same file a block at a time: at most 1..8 lines and about 1..4096 bytes a block (from
  // the input's first bytes).
  const std::size_t max_lines = size ? data[0] % 8 + 1 : 1, max_bytes = size > 1 ? data[1] * 16 + 1 : 4096;
  wk::hash::LineReader reader(path);
  wk::hash::SecretBuffer block;
  std::size_t at = 0;
  while (const std::size_t n = reader.next(block, max_lines, max_bytes)) {
    const auto part = wk::hash::split_lines(block.view());
    check(part.size() == n && n <= max_lines, "a LineReader block holds the lines it counts, at most max_lines");
    check(at + n <= lines.size(), "LineReader hands out no more lines than the input has");
    // A line over kMaxLineBytes keeps only its start (check_line rejects it all the same).
    for (std::size_t i = 0; i < n; ++i) {
      const std::string_view whole = lines[at + i];
      const bool cut = whole.size() > wk::hash::kMaxLineBytes && part[i].size() > wk::hash::kMaxLineBytes &&
                       whole.substr(0, part[i].size()) == part[i];
      check(part[i] == whole || cut, "LineReader's lines are split_lines' lines, a long one cut short");
    }
    at += n;
  }
  check(at == lines.size(), "LineReader hands out every line");
  check(reader.consumed() == size, "LineReader consumed the whole input");
  return 0;
}
