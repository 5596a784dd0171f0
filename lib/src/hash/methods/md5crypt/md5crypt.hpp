#pragma once
// md5crypt ($1$, P.-H. Kamp), the module: registered in lib/src/hash/methods/registry.cpp.
#include "hash/methods/method_module.hpp"

namespace wk::hash {

extern const MethodModule md5crypt_module;

}  // namespace wk::hash
