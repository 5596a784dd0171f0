// The method table on the GPU path: every module with GPU kernels computes its known answers with
// every rung of its ladder (in one launch and across many launch boundaries), and its start-up
// self-check passes on its own.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "hash/methods/method_module.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "wk/hash/setting.hpp"

using namespace wk;
using namespace wk::hash;

TEST_CASE("GPU: every method module's known answers, every rung", "[gpu][hash][methods]") {
  // Under compute-sanitizer the other GPU hash tests run every rung already: here the default rung
  // across launch boundaries only.
  const bool sanitizer_run = wk::test::sanitizer_run();
  for (const MethodModule& mod : method_modules()) {
    if (!mod.gpu) continue;
    CAPTURE(mod.name);
    std::vector<Setting> settings;
    std::vector<std::string_view> passwords;
    for (const KnownAnswer& k : mod.self_test) {
      const SettingParse p = parse_setting(k.setting);
      REQUIRE(p.setting);
      settings.push_back(*p.setting);
      passwords.push_back(k.password);
    }
    std::vector<const Setting*> ptrs;
    for (const Setting& s : settings) ptrs.push_back(&s);
    for (const gpu::VariantInfo& v : gpu::variants(mod.id)) {
      CAPTURE(v.name);
      if (sanitizer_run && v.variant != gpu::default_variant(mod.id)) continue;
      for (const bool small_launches : {false, true}) {
        if (sanitizer_run && !small_launches) continue;
        CAPTURE(small_launches);
        Stream stream;
        gpu::DeviceBatch batch(mod.id, ptrs, passwords, v.variant, stream);
        if (small_launches) batch.set_launch_limits(137, 3);
        batch.run(stream);
        std::vector<std::string> out;
        batch.results(stream, out);
        REQUIRE(out.size() == mod.self_test.size());
        for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == mod.self_test[i].expected);
      }
    }
    const Method only[] = {mod.id};
    CHECK(gpu::self_check(only) == "");
  }
}
