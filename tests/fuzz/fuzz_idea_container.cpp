// The wk-crypt container's header parser and chunk reader. Input: 3 control bytes (mode, chunk
// size and batch size, what to do to the sealed file), then a body.
// Invariants:
//  - parse_container_header of any bytes is a header that encodes back to the same 72 bytes, or
//    a wk::Error{decode};
//  - opening the body itself as a container (a key file secret) fails with a wk::Error and leaves
//    no output (it holds no tag made with the key);
//  - the body sealed and then changed (a flipped byte, a cut, two chunks swapped, bytes appended)
//    is refused with no output when the change altered the file, and opens to the body when not.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>

#include "fuzz_util.hpp"
#include "wk/cipher/idea_container.hpp"
#include "wk/core/error.hpp"
#include "wk/io/files.hpp"

using wk::fuzz::check;
using wk::fuzz::fail;
namespace wc = wk::cipher;
namespace fs = std::filesystem;

namespace {

using wk::fuzz::idea_cpu_executor;

// Opens `in` into `out`; a failure must be a wk::Error and leave no output.
bool open(const fs::path& in, const fs::path& out, const wc::IdeaSecret& secret, const wc::ContainerOptions& o) {
  std::error_code ec;
  fs::remove(out, ec);
  try {
    wc::idea_open_file(in, out, secret, o, idea_cpu_executor());
    return true;
  } catch (const wk::Error&) {
    check(!fs::exists(out), "a refused container leaves no output");
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::uint8_t control = in.ConsumeIntegral<std::uint8_t>();
  const std::uint8_t sizes = in.ConsumeIntegral<std::uint8_t>();
  const std::uint8_t change = in.ConsumeIntegral<std::uint8_t>();
  const std::vector<std::uint8_t> body = in.ConsumeRemainingBytes<std::uint8_t>();

  // The header parser on raw bytes.
  try {
    const wc::ContainerHeader h = wc::parse_container_header(body);
    const auto again = wc::encode_container_header(h);
    check(std::equal(again.begin(), again.end(), body.begin()), "a parsed header encodes back to its bytes");
  } catch (const wk::Error& e) {
    check(e.category() == wk::ErrorCategory::decode, "a header that does not parse is a decode error");
  }

  const fs::path dir = wk::fuzz::scratch_dir();
  wc::IdeaSecret secret;
  secret.key = wc::IdeaKey{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  wc::ContainerOptions o;
  o.mode = (control & 1) ? wc::IdeaMode::ecb : wc::IdeaMode::ctr;
  o.chunk_log2 = 10;                                      // 1 KiB chunks: several in a small body
  o.batch_bytes = std::size_t(1 + sizes % 4) << 10;       // batches of 1..4 chunks
  o.salt = std::array<std::uint8_t, 16>{};
  o.nonce = 0x0123456789abcdefULL;

  // The body as a container: never accepted (no tag in it was made with the key).
  wk::fuzz::write_bytes(dir / "raw", body);
  if (open(dir / "raw", dir / "out", secret, o)) fail("bytes not sealed with the key opened as a container");

  // Seal the body, change the file, open it.
  wk::fuzz::write_bytes(dir / "plain", body);
  try {
    wc::idea_seal_file(dir / "plain", dir / "sealed", secret, o, idea_cpu_executor());
  } catch (const wk::Error& e) {
    fail(std::string("sealing failed: ") + e.what());
  }
  const std::vector<std::uint8_t> sealed = wk::io::read_file(dir / "sealed");
  std::vector<std::uint8_t> bad = sealed;
  const std::size_t at = body.empty() ? 0 : (std::size_t(body[0]) << 8 | body[body.size() / 2]) % sealed.size();
  switch (change % 4) {
    case 0: bad[at] ^= static_cast<std::uint8_t>(1u << (change >> 5)); break;
    case 1: bad.resize(at); break;
    case 2: {  // swap the first chunk with the one at `at`
      const std::size_t R = 1024 + 32, chunks = (sealed.size() - 72) / R;
      if (chunks >= 2) {
        const std::size_t k = 1 + at % (chunks - 1);
        std::swap_ranges(bad.begin() + 72, bad.begin() + 72 + R, bad.begin() + 72 + k * R);
      }
      break;
    }
    default: bad.insert(bad.end(), body.begin(), body.begin() + std::min<std::size_t>(body.size(), 1 + change % 64)); break;
  }
  wk::fuzz::write_bytes(dir / "bad", bad);
  const bool opened = open(dir / "bad", dir / "out", secret, o);
  if (bad == sealed) {
    check(opened, "an unchanged container opens");
    check(wk::io::read_file(dir / "out") == body, "open(seal(x)) == x");
  } else {
    check(!opened, "a changed container is refused");
  }
  return 0;
}
