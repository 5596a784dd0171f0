#pragma once
// sha512crypt ($6$, U. Drepper's SHA-crypt), the module: registered in
// lib/src/hash/methods/registry.cpp.
#include "hash/methods/method_module.hpp"

namespace wk::hash {

extern const MethodModule sha512crypt_module;

}  // namespace wk::hash
