// A consumer of warpkit::hash alone: wk/hash and wk/core headers, no OpenCV and no MPI on its
// include path or link line. Checks warpkit's host md5crypt and sha512crypt against libxcrypt.
#include <cstdio>
#include <string>

#include "wk/hash/crypt.hpp"
#include "wk/hash/setting.hpp"
#include "wk/version.hpp"

int main() {
  bool ok = true;
  for (const char* setting : {"$1$saltsalt", "$6$rounds=1000$saltsaltsaltsalt"}) {
    const wk::hash::SettingParse parsed = wk::hash::parse_setting(setting);
    if (!parsed.setting) {
      std::printf("hash consumer: %s rejected: %s\n", setting, parsed.error.c_str());
      return 1;
    }
    const std::string mine = wk::hash::crypt_warpkit_host(*parsed.setting, "password");
    const auto reference = wk::hash::crypt_libxcrypt(setting, "password");
    std::printf("hash consumer: %s -> %s\n", setting, mine.c_str());
    ok = ok && reference && *reference == mine;
  }
  std::printf("warpkit %s (%s)\n%s\n", wk::version_string, wk::git_commit, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
