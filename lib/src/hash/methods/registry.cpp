// The method table: every crypt method warpkit computes itself, one module each (its folder below
// lib/src/hash/methods/). A new method is its folder and one entry here.
#include <array>
#include <vector>

#include "bcrypt/bcrypt.hpp"
#include "md5crypt/md5crypt.hpp"
#include "method_module.hpp"
#include "sha256crypt/sha256crypt.hpp"
#include "sha512crypt/sha512crypt.hpp"
#include "yescrypt/yescrypt.hpp"

namespace wk::hash {

std::span<const MethodModule> method_modules() {
  // Copied on first use, once every module's descriptor (constant-initialized) exists.
  static const std::array kModules{
      md5crypt_module,
      sha256crypt_module,
      sha512crypt_module,
      bcrypt_module,
      yescrypt_module,
      scrypt_module,
  };
  return kModules;
}

const MethodModule* find_module(Method m) noexcept {
  for (const MethodModule& mod : method_modules())
    if (mod.id == m) return &mod;
  return nullptr;
}

const MethodModule* module_claiming(std::string_view setting) noexcept {
  for (const MethodModule& mod : method_modules())
    if (mod.claims ? mod.claims(setting) : setting.starts_with(mod.prefix)) return &mod;
  return nullptr;
}

std::string module_names(const char* last, bool (*pick)(const MethodModule&)) {
  std::vector<const char*> names;
  for (const MethodModule& mod : method_modules())
    if (!pick || pick(mod)) names.push_back(mod.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? last : ", ";
    out += names[i];
  }
  return out;
}

std::span<const MethodInfo> computed_methods() {
  static const std::vector<MethodInfo> kInfos = [] {
    std::vector<MethodInfo> out;
    for (const MethodModule& mod : method_modules())
      out.push_back({mod.id, mod.name, mod.formats, mod.takes_rounds, mod.takes_cost, mod.takes_variant});
    return out;
  }();
  return kInfos;
}

}  // namespace wk::hash
