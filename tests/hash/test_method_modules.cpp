// The method table (lib/src/hash/methods/registry.cpp): every module's known answers on the CPU
// paths (its host code and the CPU engine, i.e. libxcrypt), its prefix through the setting parser
// and the fresh-setting encoder, and the table as the public API and the GPU engine see it.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "hash/methods/method_module.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "wk/hash/setting.hpp"

using namespace wk::hash;

TEST_CASE("every method module's known answers hold on the CPU paths", "[hash][methods]") {
  REQUIRE_FALSE(method_modules().empty());
  CryptEngine engine(wk::Backend::cpu);
  for (const MethodModule& mod : method_modules()) {
    CAPTURE(mod.name);
    REQUIRE_FALSE(mod.self_test.empty());
    std::vector<CryptJob> jobs;
    for (const KnownAnswer& k : mod.self_test) {
      CAPTURE(k.setting);
      const SettingParse p = parse_setting(k.setting);
      REQUIRE(p.setting);
      CHECK(p.setting->method == mod.id);
      CHECK(crypt_warpkit_host(*p.setting, k.password) == k.expected);  // the module's host code
      CHECK(crypt_libxcrypt(k.setting, k.password).value_or("<rejected>") == k.expected);
      jobs.push_back({k.setting, k.password});
    }
    std::vector<CryptOutcome> out(jobs.size());
    engine.crypt(jobs, out);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      CAPTURE(jobs[i].setting);
      CHECK(out[i].ok());
      CHECK(out[i].hash == mod.self_test[i].expected);
    }
  }
}

TEST_CASE("every module's prefix round-trips through the setting parser", "[hash][methods]") {
  std::set<std::string> names, prefixes;
  for (const MethodModule& mod : method_modules()) {
    CAPTURE(mod.name);
    CHECK(names.insert(mod.name).second);
    CHECK(prefixes.insert(mod.prefix).second);
    CHECK(find_module(mod.id) == &mod);
    CHECK(std::string(method_name(mod.id)) == mod.name);
    CHECK(parse_method_name(mod.name) == mod.id);
    HashOptions o;
    o.method = mod.id;
    // the cheapest cost of each method
    if (mod.takes_cost) o.cost = mod.id == Method::yescrypt ? 1 : mod.id == Method::scrypt ? 6 : 4;
    for (const std::string& setting : generate_settings(o, 20)) {
      CAPTURE(setting);
      // The encoder writes the prefix; the parser gives the setting back to the module that wrote it.
      REQUIRE(setting.rfind(mod.prefix, 0) == 0);
      CHECK(module_claiming(setting) == &mod);
      const SettingParse p = parse_setting(setting);
      REQUIRE(p.setting);
      CHECK(p.setting->method == mod.id);
      CHECK(p.setting->prefix == setting + (mod.dollar_before_hash ? "$" : ""));
      const auto ref = crypt_libxcrypt(setting, "round trip");
      REQUIRE(ref);
      CHECK(ref->size() == crypt_string_bytes(o));
      CHECK(ref->size() == p.setting->prefix.size() + std::size_t(mod.hash_chars));
      CHECK(crypt_warpkit_host(*p.setting, "round trip") == *ref);
    }
  }
}

TEST_CASE("the method table is what the public API lists and what the GPU engine runs", "[hash][methods]") {
  // Every method of the enum but Method::other has its module.
  for (int m = 0; m < int(Method::other); ++m) CHECK(find_module(Method(m)) != nullptr);
  CHECK(find_module(Method::other) == nullptr);
  const auto infos = computed_methods();
  REQUIRE(infos.size() == method_modules().size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const MethodModule& mod = method_modules()[i];
    CAPTURE(mod.name);
    CHECK(infos[i].id == mod.id);
    CHECK(std::string(infos[i].name) == mod.name);
    CHECK(std::string(infos[i].formats).rfind(mod.prefix, 0) == 0);
    CHECK(infos[i].takes_rounds == mod.takes_rounds);
    CHECK(infos[i].takes_cost == mod.takes_cost);
    CHECK(infos[i].takes_variant == mod.takes_variant);
    if (!mod.gpu) {
      CHECK(gpu::variants(mod.id).empty());
      continue;
    }
    const auto rungs = gpu::variants(mod.id);
    REQUIRE_FALSE(rungs.empty());
    bool has_default = false;
    for (const gpu::VariantInfo& v : rungs) {
      has_default |= v.variant == gpu::default_variant(mod.id);
      CHECK(gpu::parse_variant(mod.id, v.name) == v.variant);
      CHECK(std::string(gpu::variant_name(v.variant)) == v.name);
    }
    CHECK(has_default);
    CHECK_THROWS_AS(gpu::parse_variant(mod.id, "no such rung"), wk::Error);
  }
  CHECK(gpu::variants(Method::other).empty());
  CHECK_THROWS_AS(gpu::default_variant(Method::other), wk::Error);
}
