#pragma once
// A crypt method as a module: one folder below lib/src/hash/methods/ holds everything warpkit
// knows about one format (its prefix, setting parser and fresh-setting encoder, host code, GPU
// kernels and batch, known-answer vectors), described by one MethodModule; registry.cpp lists
// them in one table. The setting parser, the host path, the GPU engine, the front ends' method
// lists and the tests go through the table: adding a method is a folder and a table entry.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "wk/hash/setting.hpp"

namespace wk::hash {

namespace gpu {
struct GpuMethod;  // hash/gpu/method_batch.hpp: a method's rungs and device batches
}

// A known-answer vector: a setting, a password and the crypt string libxcrypt makes of them.
struct KnownAnswer {
  const char* setting;
  const char* password;
  const char* expected;
};

// What every fresh setting of one HashOptions looks like: the fixed text, then the salt.
struct FreshShape {
  std::string head;            // the text before the salt: "$1$", "$6$rounds=10000$", "$2b$05$"
  std::size_t salt_chars = 0;  // salt characters after it
  std::size_t salt_bytes = 0;  // random bytes they encode
  std::uint32_t rounds = 0;    // every setting's round count (bcrypt: the cost)
  char variant = 0;            // every setting's variant letter (bcrypt), else 0
};

struct MethodModule {
  Method id;
  const char* name;     // "sha512crypt": method_name, the front ends' method lists, messages
  const char* prefix;   // "$6$": what its settings start with (bcrypt: the $2b$ it generates)
  const char* formats;  // MethodInfo::formats: "$6$, optional rounds=N"
  bool takes_rounds, takes_cost, takes_variant;  // MethodInfo's flags: which HashOptions apply

  // ---- settings ----
  // Whether a setting is of this method; nullptr: the setting starts with `prefix`.
  bool (*claims)(std::string_view setting);
  // The setting (claimed) with libxcrypt 4.4's acceptance rules; errors name no byte of it.
  SettingParse (*parse)(std::string_view setting);
  // The method's own checks of HashOptions (ranges); those every method shares -- the method
  // and which options apply -- are made before. nullptr: nothing more to check.
  std::optional<HashOptionsProblem> (*check_options)(const HashOptions& options);
  // The shape of fresh settings for checked options, and their salt text: `chars` characters
  // made of the random bytes at `random` (FreshShape::salt_bytes of them).
  FreshShape (*fresh_shape)(const HashOptions& options);
  void (*salt_text)(char* out, const unsigned char* random, std::size_t chars);
  int hash_chars;           // characters of the hash after the setting
  bool dollar_before_hash;  // a '$' between the setting and the hash (bcrypt: none)

  // ---- host ----
  // warpkit's own code compiled for the host: appends the hash characters of `password` (checked)
  // under the parsed `setting` to `out`; wipes what it derived from the password.
  void (*host_hash)(const Setting& setting, std::string_view password, std::string& out);

  // ---- device ----
  const gpu::GpuMethod* gpu;  // nullptr: the method runs on the CPU only (libxcrypt)

  // Known answers (libxcrypt's): the CPU tests check them on the host code, the GPU engine runs
  // them on the device before the first batch of the method (the self-check).
  std::span<const KnownAnswer> self_test;
};

// The table (registry.cpp), in the order the engine runs the methods' batches.
std::span<const MethodModule> method_modules();
// The module of a method; nullptr for Method::other.
const MethodModule* find_module(Method m) noexcept;
// The module whose setting this is; nullptr when none claims it.
const MethodModule* module_claiming(std::string_view setting) noexcept;
// The names of the modules `pick` selects (all when null), joined with ", " and `last` before
// the final one: "md5crypt, sha256crypt, sha512crypt or bcrypt".
std::string module_names(const char* last, bool (*pick)(const MethodModule&) = nullptr);

}  // namespace wk::hash
