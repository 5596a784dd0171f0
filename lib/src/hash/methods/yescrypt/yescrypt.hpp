#pragma once
// yescrypt ($y$, Openwall) and scrypt ($7$, its classic mode), the modules: registered in
// lib/src/hash/methods/registry.cpp. Both share the KDF (hash/hd/yescrypt.hpp), the setting
// reader (yescrypt_text.hpp) and the device batch.
#include "hash/methods/method_module.hpp"

namespace wk::hash {

extern const MethodModule yescrypt_module;
extern const MethodModule scrypt_module;

}  // namespace wk::hash
