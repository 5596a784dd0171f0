#pragma once
// bcrypt ($2a$ $2b$ $2x$ $2y$, Provos & Mazieres), the module: registered in
// lib/src/hash/methods/registry.cpp.
#include <memory>

#include "hash/methods/method_module.hpp"

namespace wk::hash {

extern const MethodModule bcrypt_module;

namespace gpu {
class MethodBatch;
struct BatchCore;
// bcrypt's device batch (bcrypt_batch.cpp).
std::unique_ptr<MethodBatch> make_bcrypt_batch(BatchCore& core);
}  // namespace gpu

}  // namespace wk::hash
