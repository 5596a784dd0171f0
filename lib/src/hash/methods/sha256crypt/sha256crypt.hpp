#pragma once
// sha256crypt ($5$, U. Drepper's SHA-crypt), the module: registered in
// lib/src/hash/methods/registry.cpp.
#include "hash/methods/method_module.hpp"

namespace wk::hash {

extern const MethodModule sha256crypt_module;

}  // namespace wk::hash
