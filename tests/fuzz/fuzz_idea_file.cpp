// wk-crypt's file formats: the key file reader (exactly 16 bytes) and idea_crypt_file on
// arbitrary inputs in both directions and both modes, through the CPU executor, with chunk sizes
// small enough that inputs span several chunks. Input: 3 control bytes (mode and padding, chunk
// size, key-file length), 16 key bytes, then the file.
// Invariants: a key file of any other length is a wk::Error{decode}; a failed run is a wk::Error
// and leaves no output; a successful encryption decrypts back to the input, with the sizes the
// format defines (CTR: +8 bytes; ECB: padded to whole blocks).
#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz_util.hpp"
#include "wk/cipher/idea_file.hpp"
#include "wk/core/error.hpp"
#include "wk/io/files.hpp"

using wk::fuzz::check;
using wk::fuzz::fail;
namespace wc = wk::cipher;
namespace fs = std::filesystem;

namespace {

using wk::fuzz::idea_cpu_executor;

std::vector<std::uint8_t> file_bytes(const fs::path& p) { return wk::io::read_file(p); }

// Runs one direction; returns whether it succeeded. A failure must be a wk::Error and leave no
// output behind.
bool crypt(wc::IdeaDirection dir, const fs::path& in, const fs::path& out, const wc::IdeaKey& key,
           const wc::IdeaFileOptions& opt) {
  std::error_code ec;
  fs::remove(out, ec);
  try {
    const wc::IdeaFileResult r = wc::idea_crypt_file(dir, in, out, key, opt, idea_cpu_executor());
    check(fs::file_size(out) == r.bytes_out && fs::file_size(in) == r.bytes_in, "the result reports the file sizes");
    return true;
  } catch (const wk::Error&) {
    check(!fs::exists(out), "a failed run leaves no output");
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::uint8_t control = in.ConsumeIntegral<std::uint8_t>();
  wc::IdeaFileOptions opt;
  opt.mode = (control & 1) ? wc::IdeaMode::ecb : wc::IdeaMode::ctr;
  opt.pad = !(control & 2);
  opt.nonce = 0x0123456789abcdefULL * (control | 1);
  opt.chunk_bytes = 16 * (1 + in.ConsumeIntegral<std::uint8_t>() % 8);
  const std::size_t key_file_bytes = in.ConsumeIntegral<std::uint8_t>() % 24;
  const std::vector<std::uint8_t> key_bytes = in.ConsumeBytes<std::uint8_t>(16);
  const std::vector<std::uint8_t> body = in.ConsumeRemainingBytes<std::uint8_t>();

  const fs::path dir = wk::fuzz::scratch_dir();
  // The key file reader: exactly 16 bytes or a decode error.
  const std::vector<std::uint8_t> key_file(body.begin(), body.begin() + std::min(key_file_bytes, body.size()));
  wk::fuzz::write_bytes(dir / "key", key_file);
  wc::IdeaKey key{};
  try {
    key = wc::idea_read_key_file(dir / "key");
    check(key_file.size() == 16, "only a 16-byte key file is accepted");
    check(std::equal(key.begin(), key.end(), key_file.begin()), "the key is the file's bytes");
  } catch (const wk::Error& e) {
    check(key_file.size() != 16 && e.category() == wk::ErrorCategory::decode, "a key file of another size is a decode error");
  }
  std::copy(key_bytes.begin(), key_bytes.end(), key.begin());

  // Decrypting arbitrary bytes: fails cleanly or gives the format's size.
  wk::fuzz::write_bytes(dir / "in", body);
  if (crypt(wc::IdeaDirection::decrypt, dir / "in", dir / "plain", key, opt)) {
    const std::uint64_t n = fs::file_size(dir / "plain");
    if (opt.mode == wc::IdeaMode::ctr) check(body.size() >= 8 && n == body.size() - 8, "CTR decrypt drops the 8-byte nonce");
    else if (opt.pad) check(body.size() % 8 == 0 && body.size() > 0 && n < body.size() && n + 8 >= body.size(), "ECB unpadding removes 1..8 bytes");
    else check(body.size() % 8 == 0 && n == body.size(), "unpadded ECB keeps the size");
  } else {
    if (opt.mode == wc::IdeaMode::ctr) check(body.size() < 8, "CTR decrypt fails only for inputs shorter than the nonce");
  }

  // Round trip: encrypt the body, decrypt it again.
  const bool enc_ok = crypt(wc::IdeaDirection::encrypt, dir / "in", dir / "enc", key, opt);
  if (!enc_ok) {
    check(opt.mode == wc::IdeaMode::ecb && !opt.pad && body.size() % 8 != 0, "encryption fails only for unpadded ECB of partial blocks");
    return 0;
  }
  const std::uint64_t m = fs::file_size(dir / "enc");
  if (opt.mode == wc::IdeaMode::ctr) check(m == body.size() + 8, "CTR adds the 8-byte nonce");
  else if (opt.pad) check(m % 8 == 0 && m > body.size() && m <= body.size() + 8, "ECB pads to the next whole block");
  else check(m == body.size(), "unpadded ECB keeps the size");
  if (!crypt(wc::IdeaDirection::decrypt, dir / "enc", dir / "dec", key, opt)) fail("a file warpkit encrypted does not decrypt");
  check(file_bytes(dir / "dec") == body, "decrypt(encrypt(x)) == x");
  return 0;
}
