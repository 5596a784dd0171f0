// IDEA on the GPU: the paper's known answer through every kernel, every kernel configuration and
// every rung of the ladder against the CPU path (ECB both ways, CTR across a 2^64 wrap), odd
// sizes and alignments, the deployed executor with CPU shares, and wk-crypt on the GPU backend
// (round trips, GPU <-> CPU interchange; a multi-GB round trip tagged [slow]).
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include "idea_test_util.hpp"
#include "test_support.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_file.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"

namespace fs = std::filesystem;
using namespace wk;
using namespace wk::cipher;
using wk::test::kPaperCipher;
using wk::test::kPaperKey;
using wk::test::kPaperPlain;
using wk::test::random_bytes;
using wk::test::random_key;
using wk::test::sh_quote;

namespace {

std::string mismatch(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
  if (got.size() != want.size()) return "sizes differ";
  const auto m = std::mismatch(got.begin(), got.end(), want.begin());
  if (m.first == got.end()) return "";
  return "first difference at byte " + std::to_string(m.first - got.begin()) + " of " + std::to_string(got.size());
}

std::vector<std::uint8_t> cpu_run(const IdeaJob& job, const std::vector<std::uint8_t>& in) {
  std::vector<std::uint8_t> out(in.size());
  idea_cpu(job, in.data(), out.data(), in.size() / 8);
  return out;
}

// The device-resident kernel on `in`, placed `offset` bytes into its buffers (8: not 16-byte
// aligned, which sends the coarsened kernel down its one-block-per-thread path).
std::vector<std::uint8_t> gpu_kernel(const IdeaJob& job, const std::vector<std::uint8_t>& in, const IdeaKernelConfig& cfg,
                                     std::size_t offset = 0) {
  const std::size_t bytes = in.size();
  DeviceBuffer<std::uint8_t> d_in(bytes + offset + 16), d_out(bytes + offset + 16);
  DeviceBuffer<IdeaSubkeys> d_subkeys(1);
  Stream s;
  WK_CUDA_CHECK(cudaMemcpyAsync(d_subkeys.get(), &job.subkeys, sizeof(IdeaSubkeys), cudaMemcpyHostToDevice, s));
  if (bytes) WK_CUDA_CHECK(cudaMemcpyAsync(d_in.get() + offset, in.data(), bytes, cudaMemcpyHostToDevice, s));
  WK_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0xEE, bytes + offset + 16, s));
  idea_gpu(job, d_in.get() + offset, d_out.get() + offset, bytes / 8, cfg, d_subkeys.get(), s);
  std::vector<std::uint8_t> out(bytes + offset + 16);
  WK_CUDA_CHECK(cudaMemcpyAsync(out.data(), d_out.get(), out.size(), cudaMemcpyDeviceToHost, s));
  s.synchronize();
  // Nothing outside [offset, offset + bytes) may be written.
  for (std::size_t i = 0; i < offset; ++i) REQUIRE(out[i] == 0xEE);
  for (std::size_t i = offset + bytes; i < out.size(); ++i) REQUIRE(out[i] == 0xEE);
  return {out.begin() + static_cast<std::ptrdiff_t>(offset), out.begin() + static_cast<std::ptrdiff_t>(offset + bytes)};
}

std::vector<IdeaKernelConfig> kernel_configs() {
  return {{IdeaKernel::global_key, 128, 1}, {IdeaKernel::constant_key, 128, 1}, {IdeaKernel::coarsened, 32, 1},
          {IdeaKernel::coarsened, 64, 2},   {IdeaKernel::coarsened, 256, 4},    {IdeaKernel::coarsened, 1024, 8},
          idea_kernel_config("coarsened")};
}

std::string describe(const IdeaKernelConfig& c) {
  const char* k = c.kernel == IdeaKernel::global_key ? "global_key" : c.kernel == IdeaKernel::constant_key ? "constant_key" : "coarsened";
  return std::string(k) + " " + std::to_string(c.threads_per_block) + "x" + std::to_string(c.blocks_per_thread);
}

}  // namespace

TEST_CASE("GPU IDEA: the paper's known answer through every kernel", "[gpu][idea]") {
  std::vector<std::uint8_t> block(8);
  idea_store_be64(block.data(), kPaperPlain);
  // Twice the block, so the 16-byte path of the coarsened kernel runs too.
  std::vector<std::uint8_t> two(block);
  two.insert(two.end(), block.begin(), block.end());
  for (const auto& cfg : kernel_configs()) {
    CAPTURE(describe(cfg));
    for (const auto& in : {block, two}) {
      const auto c = gpu_kernel(idea_ecb_job(kPaperKey, IdeaDirection::encrypt), in, cfg);
      for (std::size_t i = 0; i < in.size(); i += 8) CHECK(idea_load_be64(c.data() + i) == kPaperCipher);
      CHECK(gpu_kernel(idea_ecb_job(kPaperKey, IdeaDirection::decrypt), c, cfg) == in);
    }
  }
}

TEST_CASE("GPU IDEA: every kernel equals the CPU path: ECB both ways, CTR across 2^64, odd sizes, unaligned", "[gpu][idea]") {
  const std::size_t block_counts[] = {1, 2, 3, 31, 32, 33, 255, 1023, 1025, 4096 * 2 + 3, 65537};
  std::uint32_t seed = 0;
  for (std::size_t n : block_counts) {
    ++seed;
    const IdeaKey key = random_key(seed);
    const auto data = random_bytes(n * 8, seed + 1000);
    const IdeaJob jobs[] = {idea_ecb_job(key, IdeaDirection::encrypt), idea_ecb_job(key, IdeaDirection::decrypt),
                            idea_ctr_job(key, ~std::uint64_t(0) - 100)};
    for (const IdeaJob& job : jobs) {
      const auto want = cpu_run(job, data);
      for (const auto& cfg : kernel_configs())
        for (std::size_t offset : {std::size_t(0), std::size_t(8)}) {
          CAPTURE(n, describe(cfg), offset, to_string(job.mode));
          CHECK(mismatch(gpu_kernel(job, data, cfg, offset), want) == "");
        }
    }
  }
  // The all-zero key has zero subkeys (2^16) in every multiplication slot of the first rounds.
  const auto data = random_bytes(4096 * 8, 77);
  for (const IdeaJob& job : {idea_ecb_job(IdeaKey{}, IdeaDirection::encrypt), idea_ecb_job(IdeaKey{}, IdeaDirection::decrypt)})
    CHECK(mismatch(gpu_kernel(job, data, idea_kernel_config("coarsened")), cpu_run(job, data)) == "");
}

TEST_CASE("GPU IDEA: every rung's host->host engine equals the CPU path, pinned, pageable and in place", "[gpu][idea]") {
  const IdeaKey key = random_key(5);
  const std::size_t n = 100003;  // blocks: odd, several chunks of the small streaming setting below
  const auto data = random_bytes(n * 8, 5);
  const IdeaJob jobs[] = {idea_ecb_job(key, IdeaDirection::encrypt), idea_ctr_job(key, 0xFFFFFFFFFFFF0000ull)};
  for (const RungInfo& r : idea_rungs())
    for (const IdeaJob& job : jobs) {
      CAPTURE(r.name, to_string(job.mode));
      const auto want = cpu_run(job, data);
      // The rung's own setting (one chunk here), then small chunks over 3 streams.
      for (const IdeaStreaming st : {idea_streaming(r.name), IdeaStreaming{3, 64 * 1024}}) {
        CAPTURE(st.streams, st.chunk_bytes);
        IdeaGpuEngine engine(0, r.name, idea_kernel_config(r.name), st);
        CHECK(std::string(engine.rung()) == r.name);
        std::vector<std::uint8_t> out(data.size());
        engine.run(job, data.data(), out.data(), n);  // pageable
        CHECK(mismatch(out, want) == "");
        HostBuffer<std::uint8_t> pin(data.size());
        std::memcpy(pin.data(), data.data(), data.size());
        engine.run(job, pin.data(), pin.data(), n);  // pinned, in place
        CHECK(std::memcmp(pin.data(), want.data(), want.size()) == 0);
      }
    }
}

TEST_CASE("GPU IDEA: the deployed executor with CPU shares and every GPU equals the CPU path", "[gpu][idea]") {
  int count = 0;
  WK_CUDA_CHECK(cudaGetDeviceCount(&count));
  const IdeaKey key = random_key(6);
  const std::size_t n = 300007;
  const auto data = random_bytes(n * 8, 6);
  const IdeaJob job = idea_ctr_job(key, 12345);
  const auto want = cpu_run(job, data);
  for (double pct : {0.0, 1.0, 33.3, 50.0, 100.0}) {
    CAPTURE(pct);
    IdeaExecution ex;
    ex.backend = Backend::gpu;
    ex.gpus = parse_gpu_list("all", count);
    ex.cpu_percent = pct;
    IdeaExecutor exec(ex);
    HostBuffer<std::uint8_t> buf = exec.host_buffer(data.size());
    std::memcpy(buf.data(), data.data(), data.size());
    exec.run(job, buf.data(), buf.data(), n);
    CHECK(std::memcmp(buf.data(), want.data(), want.size()) == 0);
    CHECK(exec.describe().find("deployed") != std::string::npos);
  }
  // Several GPUs or a CPU share need the deployed rung.
  IdeaExecution bad;
  bad.backend = Backend::gpu;
  bad.rung = "coarsened";
  bad.cpu_percent = 10;
  CHECK_THROWS_AS(IdeaExecutor(bad), Error);
  // No name: the default rung of the GPU's architecture, which the engine and the executor report.
  WK_CUDA_CHECK(cudaSetDevice(0));
  const std::string def = idea_default_rung();
  CHECK_NOTHROW(check_rung_name("idea", idea_rungs(), def));
  CHECK(IdeaGpuEngine(0).rung() == def);
  IdeaExecution plain;
  plain.backend = Backend::gpu;
  IdeaExecutor exec(plain);
  CHECK(exec.rung() == def);
  // Pinned host memory for the rungs that overlap copies; pageable for the synchronous ones, as
  // the book's first port allocates it.
  plain.rung = "overlapped";
  CHECK(IdeaExecutor(plain).host_memory() == IdeaExecutor::HostMemory::pinned);
  plain.rung = "parallelized";
  CHECK(IdeaExecutor(plain).host_memory() == IdeaExecutor::HostMemory::pageable);
}

TEST_CASE("GPU IDEA: authenticated runs (container chunks) on every rung equal the CPU reference", "[gpu][idea][container]") {
  int count = 0;
  WK_CUDA_CHECK(cudaGetDeviceCount(&count));
  IdeaMacKey mac;
  {
    std::array<std::uint8_t, 32> k{};
    const auto b = random_bytes(32, 41);
    std::copy(b.begin(), b.end(), k.begin());
    mac = idea_mac_key(k);
  }
  auto check_job = [&](const IdeaSealJob& enc, const IdeaSealJob& dec, std::size_t n, auto&& seal, auto&& open) {
    const auto data = random_bytes(n + 16, static_cast<std::uint32_t>(n));
    const std::size_t sealed_bytes = idea_sealed_bytes(n, enc.chunk_bytes), chunks = idea_sealed_chunks(n, enc.chunk_bytes);
    std::vector<std::uint8_t> want(sealed_bytes + 16), back_want(n + 16), tags_want(32 * chunks);
    idea_seal_cpu(enc, data.data(), n, want.data());
    idea_open_cpu(dec, want.data(), n, back_want.data(), tags_want.data());
    HostBuffer<std::uint8_t> in(n + 16), sealed(sealed_bytes + 16), back(n + 16), tags(32 * chunks);
    std::memcpy(in.data(), data.data(), n + 16);
    seal(enc, in.data(), n, sealed.data());
    CHECK(std::memcmp(sealed.data(), want.data(), sealed_bytes) == 0);
    open(dec, want.data(), n, back.data(), tags.data());
    CHECK(std::memcmp(back.data(), data.data(), n) == 0);
    CHECK(std::memcmp(tags.data(), tags_want.data(), tags_want.size()) == 0);
  };
  const IdeaKey key = random_key(42);
  for (IdeaMode mode : {IdeaMode::ctr, IdeaMode::ecb})
    for (std::size_t chunk : {std::size_t(1024), std::size_t(65536), std::size_t(1) << 20})
      for (std::size_t n : {std::size_t(0), std::size_t(8), std::size_t(1024), std::size_t(3000 * 8),
                            std::size_t(5 << 20) + 24, std::size_t(9 << 20)}) {
        if (mode == IdeaMode::ctr && n == 3000 * 8) n += 5;  // a partial last block
        CAPTURE(to_string(mode), chunk, n);
        IdeaSealJob enc, dec;
        enc.cipher = mode == IdeaMode::ctr ? idea_ctr_job(key, ~std::uint64_t(0) - 100) : idea_ecb_job(key, IdeaDirection::encrypt);
        enc.mac = mac;
        enc.chunk_bytes = chunk;
        enc.first_index = 3;
        enc.last_final = true;
        dec = enc;
        if (mode == IdeaMode::ecb) dec.cipher = idea_ecb_job(key, IdeaDirection::decrypt);
        for (const RungInfo& r : idea_rungs()) {
          CAPTURE(r.name);
          IdeaGpuEngine engine(0, r.name);
          check_job(enc, dec, n,
                    [&](auto&&... a) { engine.seal(a...); }, [&](auto&&... a) { engine.open(a...); });
        }
        for (double pct : {0.0, 30.0}) {
          CAPTURE(pct);
          IdeaExecution ex;
          ex.backend = Backend::gpu;
          ex.gpus = parse_gpu_list("all", count);
          ex.cpu_percent = pct;
          IdeaExecutor exec(ex);
          check_job(enc, dec, n, [&](auto&&... a) { exec.seal(a...); }, [&](auto&&... a) { exec.open(a...); });
        }
      }
}

// [slow]: some 70 runs of wk-crypt, each a CUDA start-up; under compute-sanitizer (which skips
// [slow]) that is minutes for kernels the in-process tests above already cover.
TEST_CASE("wk-crypt on the GPU: round trips, and files interchange with the CPU backend", "[gpu][idea][cli][slow]") {
  test::TempDir dir;
  const fs::path key = dir / "k";
  REQUIRE(test::run(std::string(WK_CRYPT_EXE) + " keygen " + sh_quote(key.string())).exit_code == 0);
  auto crypt = [&](const std::string& verb, const std::string& opts, const fs::path& in, const fs::path& out) {
    const auto r = test::run(std::string(WK_CRYPT_EXE) + " " + verb + " -q --key " + sh_quote(key.string()) + " " + opts +
                             " " + sh_quote(in.string()) + " " + sh_quote(out.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(8), std::size_t(9),
                        (std::size_t(3) << 20) + 5})
    for (const char* format : {"", "--raw "})
    for (const char* mode : {"--mode ctr", "--mode ecb"}) {
      CAPTURE(n, format, mode);
      const auto data = random_bytes(n, static_cast<std::uint32_t>(n));
      test::write_bytes(dir / "p", std::string(data.begin(), data.end()));
      const std::string gpu = std::string(format) + mode + " --device gpu --chunk-mib 1";
      const std::string cpu = std::string(format) + mode + " --device cpu --chunk-mib 1";
      // The plaintexts exist from the previous case: decrypt replaces them only with --force.
      crypt("encrypt", gpu, dir / "p", dir / "c_gpu");
      crypt("decrypt", gpu + " --force", dir / "c_gpu", dir / "b_gpu");
      CHECK(test::read_bytes(dir / "b_gpu") == test::read_bytes(dir / "p"));
      crypt("decrypt", cpu + " --force", dir / "c_gpu", dir / "b_cpu");  // GPU ciphertext, CPU decryption
      CHECK(test::read_bytes(dir / "b_cpu") == test::read_bytes(dir / "p"));
      crypt("encrypt", cpu, dir / "p", dir / "c_cpu");
      crypt("decrypt", gpu + " --cpu-percent 30 --force", dir / "c_cpu", dir / "b_mix");  // and the other way, hybrid
      CHECK(test::read_bytes(dir / "b_mix") == test::read_bytes(dir / "p"));
      // Raw ECB has no salt: the same key gives the same file on both backends.
      if (std::string(mode) == "--mode ecb" && *format) CHECK(test::read_bytes(dir / "c_cpu") == test::read_bytes(dir / "c_gpu"));
    }
  // Every rung through the app.
  const auto data = random_bytes((std::size_t(2) << 20) + 3, 9);
  test::write_bytes(dir / "p", std::string(data.begin(), data.end()));
  for (const RungInfo& r : idea_rungs()) {
    CAPTURE(r.name);
    crypt("encrypt", std::string("--mode ecb --device gpu --chunk-mib 1 --variant ") + r.name, dir / "p", dir / "c");
    crypt("decrypt", "--mode ecb --device cpu --force", dir / "c", dir / "b");
    CHECK(test::read_bytes(dir / "b") == test::read_bytes(dir / "p"));
  }
}

// The "multi-gpu" ctest runs it where 2 or more GPUs are present (hidden from the "gpu" ones).
TEST_CASE("wk-crypt --gpus: every GPU of the machine gives the one-GPU bytes, both ways", "[gpu][idea][cli][.multi-gpu]") {
  test::TempDir dir;
  const fs::path key = dir / "k";
  REQUIRE(test::run(std::string(WK_CRYPT_EXE) + " keygen " + sh_quote(key.string())).exit_code == 0);
  auto crypt = [&](const std::string& args) {
    const auto r = test::run(std::string(WK_CRYPT_EXE) + " " + args + " -q --key " + sh_quote(key.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  const auto data = random_bytes((std::size_t(40) << 20) + 13, 45);
  test::write_bytes(dir / "p", std::string(data.begin(), data.end()));
  const std::string p = sh_quote((dir / "p").string());
  auto at = [&](const char* name) { return sh_quote((dir / name).string()); };
  // Raw ECB has no salt: the same key gives the same bytes on any set of GPUs.
  crypt("encrypt --raw --mode ecb --device gpu --chunk-mib 1 --gpus 0 " + p + " " + at("one"));
  crypt("encrypt --raw --mode ecb --device gpu --chunk-mib 1 --gpus all " + p + " " + at("all"));
  CHECK(test::read_bytes(dir / "one") == test::read_bytes(dir / "all"));
  // The container: sealed on every GPU, opened on one and on the CPU.
  crypt("encrypt --device gpu --chunk-mib 1 --gpus all " + p + " " + at("c"));
  crypt("decrypt --device gpu --chunk-mib 1 --gpus 1 " + at("c") + " " + at("b"));  // new outputs: no --force
  CHECK(test::read_bytes(dir / "b") == test::read_bytes(dir / "p"));
  // --gpus 1 shows the runtime GPU 1 alone, where it is device 0: the summary still says GPU 1.
  const auto second = test::run(std::string(WK_CRYPT_EXE) + " decrypt --device gpu --chunk-mib 1 --gpus 1 --key " +
                                sh_quote(key.string()) + " " + at("c") + " " + at("b1"));
  INFO(second.output);
  REQUIRE(second.exit_code == 0);
  CHECK_THAT(second.output, Catch::Contains("on GPU 1 ("));
  CHECK(test::read_bytes(dir / "b1") == test::read_bytes(dir / "p"));
  crypt("decrypt --device cpu " + at("c") + " " + at("b2"));
  CHECK(test::read_bytes(dir / "b2") == test::read_bytes(dir / "p"));
}

TEST_CASE("GPU IDEA: the whole block-size x blocks-per-thread sweep equals the CPU path", "[gpu][idea][slow]") {
  const IdeaKey key = random_key(8);
  const std::size_t n = (std::size_t(1) << 20) + 3;
  const auto data = random_bytes(n * 8, 8);
  for (const IdeaJob& job : {idea_ecb_job(key, IdeaDirection::encrypt), idea_ctr_job(key, ~std::uint64_t(0) - 7)}) {
    const auto want = cpu_run(job, data);
    for (int t : {32, 64, 96, 128, 256, 512, 768, 1024})
      for (int b : {1, 2, 4, 8}) {
        CAPTURE(t, b, to_string(job.mode));
        CHECK(mismatch(gpu_kernel(job, data, {IdeaKernel::coarsened, t, b}), want) == "");
      }
  }
}

TEST_CASE("wk-crypt on the GPU: a multi-GB file round trip (larger than 2^31 bytes)", "[gpu][idea][cli][slow]") {
  test::TempDir dir;
  const fs::path key = dir / "k", p = dir / "p", c = dir / "c", b = dir / "b";
  REQUIRE(test::run(std::string(WK_CRYPT_EXE) + " keygen " + sh_quote(key.string())).exit_code == 0);
  const std::size_t bytes = (std::size_t(9) << 28) + 5;  // 2.25 GiB + 5
  {
    std::ofstream f(p, std::ios::binary);
    std::vector<std::uint64_t> buf(std::size_t(1) << 20);
    std::uint64_t x = 88172645463325252ull;
    for (std::size_t done = 0; done < bytes;) {
      for (auto& w : buf) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        w = x;
      }
      const std::size_t n = std::min(bytes - done, buf.size() * 8);
      f.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(n));
      done += n;
    }
    REQUIRE(f.good());
  }
  const std::string k = " -q --device gpu --key " + sh_quote(key.string()) + " ";
  for (const char* format : {"", "--raw "})
  for (const char* mode : {"--mode ctr", "--mode ecb"}) {
    CAPTURE(format, mode);
    const std::string opts = std::string(format) + mode;
    auto r = test::run(std::string(WK_CRYPT_EXE) + " encrypt " + opts + k + sh_quote(p.string()) + " " + sh_quote(c.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    r = test::run(std::string(WK_CRYPT_EXE) + " decrypt " + opts + k + sh_quote(c.string()) + " " + sh_quote(b.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    REQUIRE(fs::file_size(b) == bytes);
    const auto cmp = test::run("cmp " + sh_quote(p.string()) + " " + sh_quote(b.string()));
    INFO(cmp.output);
    CHECK(cmp.exit_code == 0);
    if (!*format) {  // the container's chunks and tags: checked by decryption; its layout by the CPU tests
      fs::remove(c);
      fs::remove(b);
      continue;
    }
    // The tail of the raw ciphertext (past 2^31 bytes) against the CPU path.
    const IdeaKey kk = idea_read_key_file(key);
    std::ifstream pf(p, std::ios::binary), cf(c, std::ios::binary);
    const std::size_t tail_blocks = 4096, first_block = bytes / 8 - tail_blocks;  // whole blocks before the last partial
    const std::size_t hdr = std::string(mode) == "--mode ctr" ? 8 : 0;
    std::vector<std::uint8_t> plain(tail_blocks * 8), cipher(tail_blocks * 8), nonce(8);
    pf.seekg(static_cast<std::streamoff>(first_block * 8));
    pf.read(reinterpret_cast<char*>(plain.data()), static_cast<std::streamsize>(plain.size()));
    cf.read(reinterpret_cast<char*>(nonce.data()), 8);
    cf.seekg(static_cast<std::streamoff>(hdr + first_block * 8));
    cf.read(reinterpret_cast<char*>(cipher.data()), static_cast<std::streamsize>(cipher.size()));
    const IdeaJob job = hdr ? idea_ctr_job(kk, idea_load_be64(nonce.data())).advanced(first_block)
                            : idea_ecb_job(kk, IdeaDirection::encrypt);
    CHECK(mismatch(cpu_run(job, plain), cipher) == "");
    fs::remove(c);
    fs::remove(b);
  }
}
